import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { Form, Link, useLoaderData, useNavigation, type LoaderFunctionArgs } from 'react-router'
import { data } from 'react-router'
import type { ErrorBody } from '../../../shared/types.ts'
import { apiResponse } from '../../lib/api.ts'

// /@/operator/accounts: find accounts by the start of the address or of its domain
// (several terms separated by ";"), the oldest first, a page at a time. A plain GET form: the
// search is in the URL, Enter searches, the back button works.

export interface AccountRow {
  id: string
  email: string | null
  joined: string | null
  verified: boolean
  disabled: boolean
}

interface AccountsData {
  email: string
  users: AccountRow[] | null
  next: string | null
  /** The API's refusal of the query (a 400 names the field), shown next to the search box. */
  error: string | null
}

export async function loader({ request, context }: LoaderFunctionArgs): Promise<AccountsData> {
  const url = new URL(request.url)
  const email = url.searchParams.get('email') ?? ''
  if (email.trim() === '') return { email, users: null, next: null, error: null }
  const query = new URLSearchParams({ email })
  const next = url.searchParams.get('next')
  if (next) query.set('next', next)
  const response = await apiResponse(context, `/api/operator/users?${query.toString()}`, request.signal)
  if (response.status === 400) return { email, users: null, next: null, error: (response.body as ErrorBody | null)?.message ?? null }
  if (response.status !== 200) throw data(response.body, { status: response.status })
  const body = response.body as { users: AccountRow[]; next: string | null }
  return { email, users: body.users, next: body.next, error: null }
}

export function Component() {
  const { t, i18n } = useTranslation('operator')
  const { email, users, next, error } = useLoaderData<AccountsData>()
  const navigation = useNavigation()
  const searchId = useId()
  const date = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString(i18n.language, { year: 'numeric', month: 'short', day: 'numeric' }) : '—')
  const describedBy = `${searchId}-hint${error ? ` ${searchId}-error` : ''}`
  return (
    <main id="content" className="operator-page">
      <h1>{t('accounts.title')}</h1>
      <Form method="get" className="operator-search" role="search">
        <div className="field">
          <label htmlFor={searchId}>{t('accounts.search.label')}</label>
          <input id={searchId} name="email" type="search" defaultValue={email} key={email} autoComplete="off" spellCheck={false} aria-invalid={error ? true : undefined} aria-describedby={describedBy} data-testid="accounts-search" />
          <p id={`${searchId}-hint`} className="hint">
            {t('accounts.search.hint')}
          </p>
          {error ? (
            <p id={`${searchId}-error`} className="field-error">
              {error}
            </p>
          ) : null}
        </div>
        <p className="actions">
          <button type="submit" className="button" disabled={navigation.state === 'loading'}>
            {t('accounts.search.submit')}
          </button>
        </p>
      </Form>
      {users === null ? null : users.length === 0 ? (
        <p data-testid="accounts-none">{t('accounts.search.none')}</p>
      ) : (
        <div className="operator-table-wrap">
          <table className="operator-table" data-testid="accounts-results">
            <caption className="visually-hidden">{t('accounts.search.caption', { query: email })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('accounts.fields.email')}</th>
                <th scope="col">{t('accounts.fields.joined')}</th>
                <th scope="col">{t('accounts.fields.verified')}</th>
                <th scope="col">{t('accounts.fields.status')}</th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <tr key={user.id}>
                  <td>
                    <Link to={`/@/operator/accounts/${encodeURIComponent(user.id)}`}>{user.email ?? user.id}</Link>
                  </td>
                  <td>{date(user.joined)}</td>
                  <td>{user.verified ? t('accounts.yes') : t('accounts.no')}</td>
                  <td>{user.disabled ? <span className="operator-badge operator-badge-off">{t('accounts.status.disabled')}</span> : t('accounts.status.active')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next ? (
        <p className="actions">
          <Link className="button button-secondary" to={`?${new URLSearchParams({ email, next }).toString()}`}>
            {t('accounts.search.more')}
          </Link>
        </p>
      ) : null}
    </main>
  )
}
