import { useEffect, useId, useRef, useState, type DragEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { avatarImageType } from '../../../shared/account/avatar.ts'
import { AVATAR_MAX_BYTES, AVATAR_MIME_TYPES } from '../../../shared/constants.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { Notice } from '../../components/auth-shell.tsx'
import { UserAvatar } from '../../components/user-avatar.tsx'
import { useRouteWrite } from '../../lib/route-writes.ts'
import { onAvatarProgress, type ProfileOutcome } from './actions.ts'

// The profile picture: pick or drop a PNG, JPEG or WebP up to 5 MB; a preview while it
// uploads with a progress bar; the header shows the new one as soon as it is stored (the page's data
// is loaded again after the profile's action, actions.ts). The server decides (the same checks, by
// content, then a re-encode); the checks here only save a wasted upload.

type Problem = 'tooLarge' | 'unsupported' | 'unreadable' | 'tooManyPixels' | 'network' | 'other'
type Status = { kind: 'success'; key: 'saved' | 'removed' } | { kind: 'error'; key: Problem }

const PROBLEM_OF_CODE: Record<string, Problem> = {
  AVATAR_TOO_LARGE: 'tooLarge',
  AVATAR_UNSUPPORTED_TYPE: 'unsupported',
  AVATAR_UNREADABLE: 'unreadable',
  AVATAR_TOO_MANY_PIXELS: 'tooManyPixels',
}

async function localProblem(file: File): Promise<Problem | null> {
  if (file.size > AVATAR_MAX_BYTES) return 'tooLarge'
  const head = new Uint8Array(await file.slice(0, 32).arrayBuffer())
  return avatarImageType(head) === null ? 'unsupported' : null
}

export function AvatarSection({ user }: { user: UserRecord }) {
  const { t } = useTranslation(['profile', 'common'])
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  const [preview, setPreview] = useState<string | null>(null)
  const [progress, setProgress] = useState<number | null>(null)
  const [status, setStatus] = useState<Status | null>(null)
  const [dragging, setDragging] = useState(false)

  useEffect(() => () => void (preview && URL.revokeObjectURL(preview)), [preview])
  useEffect(() => onAvatarProgress(setProgress), [])

  const write = useRouteWrite<ProfileOutcome>((outcome) => {
    if (outcome.intent !== 'uploadAvatar' && outcome.intent !== 'removeAvatar') return
    const { failure } = outcome
    if (!failure) setStatus({ kind: 'success', key: outcome.intent === 'uploadAvatar' ? 'saved' : 'removed' })
    else if (outcome.intent === 'uploadAvatar') setStatus({ kind: 'error', key: failure.status === 0 ? 'network' : (PROBLEM_OF_CODE[failure.code ?? ''] ?? 'other') })
    else setStatus({ kind: 'error', key: failure.status === 0 ? 'network' : 'other' })
    setPreview(null)
    setProgress(null)
    if (input.current) input.current.value = ''
  })

  const send = async (file: File) => {
    setStatus(null)
    const problem = await localProblem(file)
    if (problem) {
      setStatus({ kind: 'error', key: problem })
      return
    }
    setPreview(URL.createObjectURL(file))
    setProgress(0)
    void write.submit({ intent: 'uploadAvatar', file })
  }

  const remove = () => {
    setStatus(null)
    void write.submit({ intent: 'removeAvatar' })
  }

  const drop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault()
    setDragging(false)
    const file = event.dataTransfer.files[0]
    if (file && progress === null) void send(file)
  }

  const statusText = (shown: Status): string => {
    if (shown.kind === 'success') return t(`profile:avatar.${shown.key}`)
    if (shown.key === 'network') return t('common:errors.errorApiRequest')
    if (shown.key === 'other') return t('common:errors.occuredSomeError')
    return t(`profile:avatar.problems.${shown.key}`)
  }

  const busy = progress !== null
  return (
    <section className="profile-section" aria-labelledby={`${id}-heading`} data-testid="avatar-section">
      <h2 id={`${id}-heading`}>{t('profile:avatar.heading')}</h2>
      <div
        className={`avatar-drop${dragging ? ' avatar-drop-active' : ''}`}
        onDragOver={(event) => {
          event.preventDefault()
          setDragging(true)
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
        data-testid="avatar-drop"
      >
        {preview ? <img className="user-avatar" src={preview} alt={t('profile:avatar.preview')} width={96} height={96} /> : <UserAvatar user={user} size="large" />}
        <div className="avatar-drop-text">
          <p className="hint" id={`${id}-hint`}>
            {t('profile:avatar.lead')}
          </p>
          <p className="actions">
            <input
              ref={input}
              id={`${id}-file`}
              className="visually-hidden"
              type="file"
              accept={AVATAR_MIME_TYPES.join(',')}
              aria-describedby={`${id}-hint`}
              disabled={busy}
              onChange={(event) => {
                const file = event.currentTarget.files?.[0]
                if (file) void send(file)
              }}
              data-testid="avatar-input"
            />
            {/* After the input, so its keyboard focus shows on the label (CSS: input:focus-visible + label). */}
            <label className={`button${busy ? ' button-disabled' : ''}`} htmlFor={`${id}-file`}>
              {t('profile:avatar.choose')}
            </label>
            {user.avatarUrl && !busy ? (
              <button type="button" className="button button-secondary" disabled={write.busy} onClick={remove}>
                {t('profile:avatar.remove')}
              </button>
            ) : null}
          </p>
          <p className="hint">{t('profile:avatar.drop')}</p>
          {busy ? (
            <progress className="avatar-progress" max={1} value={progress} aria-label={t('profile:avatar.uploading', { percent: Math.round(progress * 100) })} />
          ) : null}
        </div>
      </div>
      {status ? (
        <Notice kind={status.kind} testId="avatar-status">
          {statusText(status)}
        </Notice>
      ) : null}
    </section>
  )
}
