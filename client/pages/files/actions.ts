import type { ActionFunctionArgs } from 'react-router'
import type { ApiResult } from '../../lib/api.ts'
import { apiWrite, failed, failureOf, readWrite, textField, type WriteFailure } from '../../lib/route-writes.ts'

// The drive's writes, in one place: the route action of /@/files. Each form of the drive posts
// an `intent` and its fields here; the action calls the files API and answers with what happened,
// which the view that sent it turns into words (a toast, a dialog's error). Several items are sent
// one by one: a refusal does not stop the others, and the outcome names each item that was not done.

export const DRIVE_INTENTS = ['newFolder', 'rename', 'move', 'delete', 'restore', 'emptyTrash', 'revokeLink', 'share'] as const
export type DriveIntent = (typeof DRIVE_INTENTS)[number]

/** An item a write was about: its id and the name to say. */
export interface ItemRef {
  id: string
  name: string
}

export interface Refusal {
  item: ItemRef
  failure: WriteFailure
}

/** What a write of several items did: each item is in one of the two lists. */
export interface BatchOutcome {
  done: ItemRef[]
  refused: Refusal[]
}

export type DriveOutcome =
  | { intent: 'newFolder' | 'rename'; name: string; failure?: WriteFailure }
  | ({ intent: 'move' | 'delete' | 'restore' } & BatchOutcome)
  | { intent: 'emptyTrash'; failure?: WriteFailure }
  | { intent: 'revokeLink'; share: ItemRef; failure?: WriteFailure }
  | { intent: 'share'; url?: string; failure?: WriteFailure }

const itemPath = (id: string) => `/api/files/${encodeURIComponent(id)}`

/** The items a form names: `id` and `name` fields, paired in order. */
function itemsOf(form: FormData): ItemRef[] {
  const names = form.getAll('name')
  return form.getAll('id').flatMap((id, index) => (typeof id === 'string' && id ? [{ id, name: String(names[index] ?? id) }] : []))
}

/** Sends `write` for each item in turn (the API serialises a user's writes anyway) and collects what happened. */
async function eachItem(items: ItemRef[], write: (item: ItemRef) => Promise<ApiResult<unknown>>): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { done: [], refused: [] }
  for (const item of items) {
    const result = await write(item)
    if (result.ok) outcome.done.push(item)
    else outcome.refused.push({ item, failure: failureOf(result) })
  }
  return outcome
}


export async function action({ request, context }: ActionFunctionArgs): Promise<DriveOutcome> {
  const { intent, form } = await readWrite(request, DRIVE_INTENTS)
  const [item] = itemsOf(form)
  switch (intent) {
    case 'newFolder': {
      const result = await apiWrite<{ name: string }>(context, 'POST', '/api/files/folders', { parentId: textField(form, 'parentId') || null, name: textField(form, 'newName') })
      return { intent, name: result.ok ? (result.body as { name: string }).name : textField(form, 'newName'), ...failed(result) }
    }
    case 'rename': {
      const result = await apiWrite(context, 'PATCH', itemPath(item?.id ?? ''), { name: textField(form, 'newName') })
      return { intent, name: textField(form, 'newName'), ...failed(result) }
    }
    case 'move':
      return { intent, ...(await eachItem(itemsOf(form), (each) => apiWrite(context, 'PATCH', itemPath(each.id), { parentId: textField(form, 'parentId') || null }))) }
    case 'delete':
      return { intent, ...(await eachItem(itemsOf(form), (each) => apiWrite(context, 'DELETE', itemPath(each.id)))) }
    case 'restore':
      return { intent, ...(await eachItem(itemsOf(form), (each) => apiWrite(context, 'POST', `${itemPath(each.id)}/restore`))) }
    case 'emptyTrash':
      return { intent, ...failed(await apiWrite(context, 'DELETE', '/api/files/trash')) }
    case 'revokeLink': {
      const share = item ?? { id: '', name: '' }
      return { intent, share, ...failed(await apiWrite(context, 'DELETE', `/api/files/shares/${encodeURIComponent(share.id)}`)) }
    }
    case 'share': {
      const password = textField(form, 'password')
      const expiresAt = textField(form, 'expiresAt')
      const result = await apiWrite<{ url: string; link: string }>(context, 'POST', `${itemPath(item?.id ?? '')}/shares`, {
        allowDownload: textField(form, 'allowDownload') === 'on',
        ...(password ? { password } : {}),
        ...(expiresAt ? { expiresAt } : {}),
      })
      if (!result.ok) return { intent, failure: failureOf(result) }
      const answer = result.body as { url: string; link: string }
      return { intent, url: answer.url || `${typeof window === 'undefined' ? '' : window.location.origin}/sharing/${answer.link}` }
    }
  }
}
