import { useId, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useRevalidator, useRouteLoaderData, type LoaderFunctionArgs } from 'react-router'
import { OPERATOR_ROLES, permissionsOf } from '../../../shared/operator.ts'
import { Notice } from '../../components/auth-shell.tsx'
import { apiGet, apiSend, errorMessage, type ApiResult } from '../../lib/api.ts'
import type { SignedInData } from '../../lib/session/guards.ts'

// /@/operator/accounts/:id: one account as support sees it — the auth core's facts and
// the product's record — with the actions: disable with a reason or enable, end every session,
// and for an administrator the roles. Every form says what went wrong next to the field.

/** Kept in step with the API's limit (server/api/operator/users.ts). */
const REASON_MAX = 500

interface Purchase {
  programId: string
  purchasedAt: string
  status: string
  kind: string
  amount: string
  endedAt: string | null
}

export interface AccountDetail {
  id: string
  email: string | null
  joined: string | null
  verified: boolean
  authenticator: boolean
  roles: string[]
  sessions: { count: number; list: Array<{ createdAt: string; lastUsedAt: string; userAgent: string | null }> }
  librarySize: number
  purchases: Purchase[]
  disabled: { at: string; reason: string | null; by: { id: string; email: string } | null } | null
}

export async function loader({ params, context, request }: LoaderFunctionArgs): Promise<AccountDetail> {
  return apiGet<AccountDetail>(context, `/api/operator/users/${encodeURIComponent(params.id ?? '')}`, request.signal)
}

type Status = { kind: 'success' | 'error'; text: string } | null

/** The API's message, else ours for a network failure or anything else. */
function useFailure() {
  const { t } = useTranslation(['operator', 'common'])
  return (result: ApiResult<unknown>): string => (result.status === 0 ? t('common:errors.errorApiRequest') : (errorMessage(result) ?? t('common:errors.occuredSomeError')))
}

export function Component() {
  const { t, i18n } = useTranslation('operator')
  const account = useLoaderData<AccountDetail>()
  const { user } = useRouteLoaderData('signed-in') as SignedInData
  const canGrant = permissionsOf(user.roles).includes('roles:write')
  const dateTime = (iso: string) => new Date(iso).toLocaleString(i18n.language, { dateStyle: 'medium', timeStyle: 'short' })
  return (
    <main id="content" className="operator-page">
      <p>
        <Link to="/@/operator/accounts">{t('accounts.back')}</Link>
      </p>
      <h1 className="operator-account-title" data-testid="account-email">{account.email ?? account.id}</h1>
      {account.disabled ? (
        <Notice kind="warning" testId="account-disabled">
          {t('accounts.disabled.notice', {
            at: dateTime(account.disabled.at),
            by: account.disabled.by?.email ?? '—',
            reason: account.disabled.reason ?? t('accounts.disabled.noReason'),
          })}
        </Notice>
      ) : null}
      <section className="profile-section" aria-labelledby="account-facts">
        <h2 id="account-facts">{t('accounts.detail.heading')}</h2>
        <dl className="profile-facts operator-facts">
          <dt>{t('accounts.fields.id')}</dt>
          <dd>
            <code>{account.id}</code>
          </dd>
          <dt>{t('accounts.fields.joined')}</dt>
          <dd>{account.joined ? dateTime(account.joined) : '—'}</dd>
          <dt>{t('accounts.fields.verified')}</dt>
          <dd>{account.verified ? t('accounts.yes') : <ResendVerification account={account} />}</dd>
          <dt>{t('accounts.fields.authenticator')}</dt>
          <dd>{account.authenticator ? t('accounts.on') : t('accounts.off')}</dd>
          <dt>{t('accounts.fields.roles')}</dt>
          <dd data-testid="account-roles">{account.roles.length > 0 ? account.roles.map((role) => t(`shell.roles.${role}`, { defaultValue: role })).join(', ') : t('accounts.noRoles')}</dd>
          <dt>{t('accounts.fields.library')}</dt>
          <dd>{account.librarySize}</dd>
        </dl>
      </section>
      <SessionsSection account={account} dateTime={dateTime} />
      <PurchasesSection account={account} dateTime={dateTime} />
      {account.disabled ? <EnableSection account={account} /> : <DisableSection account={account} self={user.id === account.id} />}
      {canGrant ? <RolesSection account={account} /> : null}
    </main>
  )
}

/** "No", and a button that mails the account a new verification link. */
function ResendVerification({ account }: { account: AccountDetail }) {
  const { t } = useTranslation('operator')
  const failure = useFailure()
  const [status, setStatus] = useState<Status>(null)
  const [busy, setBusy] = useState(false)
  const resend = async () => {
    setBusy(true)
    setStatus(null)
    const result = await apiSend('POST', `/api/operator/users/${encodeURIComponent(account.id)}/verification/resend`)
    setBusy(false)
    setStatus(result.ok ? { kind: 'success', text: t('accounts.verification.sent') } : { kind: 'error', text: failure(result) })
  }
  return (
    <>
      {`${t('accounts.no')} `}
      <button type="button" className="button button-secondary button-small" disabled={busy} onClick={() => void resend()} data-testid="resend-verification">
        {t('accounts.verification.resend')}
      </button>
      {status ? <Notice kind={status.kind}>{status.text}</Notice> : null}
    </>
  )
}

function SessionsSection({ account, dateTime }: { account: AccountDetail; dateTime: (iso: string) => string }) {
  const { t } = useTranslation('operator')
  const revalidator = useRevalidator()
  const failure = useFailure()
  const [status, setStatus] = useState<Status>(null)
  const [busy, setBusy] = useState(false)
  const end = async () => {
    setBusy(true)
    setStatus(null)
    const result = await apiSend<{ sessionsEnded: number }>('POST', `/api/operator/users/${encodeURIComponent(account.id)}/sessions/end`)
    setBusy(false)
    if (!result.ok) return setStatus({ kind: 'error', text: failure(result) })
    setStatus({ kind: 'success', text: t('accounts.sessions.ended', { number: (result.body as { sessionsEnded: number }).sessionsEnded }) })
    await revalidator.revalidate()
  }
  return (
    <section className="profile-section" aria-labelledby="account-sessions">
      <h2 id="account-sessions">{t('accounts.sessions.heading', { number: account.sessions.count })}</h2>
      {account.sessions.count === 0 ? (
        <p>{t('accounts.sessions.none')}</p>
      ) : (
        <ul className="device-list" data-testid="account-sessions">
          {account.sessions.list.map((session, index) => (
            <li key={index} className="device">
              <span>{session.userAgent ?? t('accounts.sessions.unknownBrowser')}</span>
              <p className="hint">{t('accounts.sessions.times', { created: dateTime(session.createdAt), used: dateTime(session.lastUsedAt) })}</p>
            </li>
          ))}
        </ul>
      )}
      {status ? (
        <Notice kind={status.kind} testId="sessions-status">
          {status.text}
        </Notice>
      ) : null}
      {account.sessions.count > 0 ? (
        <p className="actions">
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => void end()} data-testid="end-sessions">
            {t('accounts.sessions.end')}
          </button>
        </p>
      ) : null}
    </section>
  )
}

function PurchasesSection({ account, dateTime }: { account: AccountDetail; dateTime: (iso: string) => string }) {
  const { t } = useTranslation('operator')
  return (
    <section className="profile-section" aria-labelledby="account-purchases">
      <h2 id="account-purchases">{t('accounts.purchases.heading')}</h2>
      {account.purchases.length === 0 ? (
        <p>{t('accounts.purchases.none')}</p>
      ) : (
        <div className="operator-table-wrap">
          <table className="operator-table">
            <thead>
              <tr>
                <th scope="col">{t('accounts.purchases.program')}</th>
                <th scope="col">{t('accounts.purchases.date')}</th>
                <th scope="col">{t('accounts.purchases.amount')}</th>
                <th scope="col">{t('accounts.purchases.status')}</th>
              </tr>
            </thead>
            <tbody>
              {account.purchases.map((purchase, index) => (
                <tr key={index}>
                  <td>
                    <Link to={`/programs/${encodeURIComponent(purchase.programId)}`}>{purchase.programId}</Link>
                  </td>
                  <td>{dateTime(purchase.purchasedAt)}</td>
                  <td>{`${purchase.amount} · ${t(`accounts.purchases.kinds.${purchase.kind}`, { defaultValue: purchase.kind })}`}</td>
                  <td>{t(`accounts.purchases.statuses.${purchase.status}`, { defaultValue: purchase.status })}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

function DisableSection({ account, self }: { account: AccountDetail; self: boolean }) {
  const { t } = useTranslation('operator')
  const revalidator = useRevalidator()
  const failure = useFailure()
  const reasonId = useId()
  const [fieldError, setFieldError] = useState<string | null>(null)
  const [status, setStatus] = useState<Status>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const reason = String(new FormData(form).get('reason') ?? '').trim()
    setStatus(null)
    if (reason === '') {
      setFieldError(t('accounts.disable.reasonRequired'))
      form.querySelector('textarea')?.focus()
      return
    }
    setFieldError(null)
    setBusy(true)
    const result = await apiSend('POST', `/api/operator/users/${encodeURIComponent(account.id)}/disable`, { reason })
    setBusy(false)
    if (!result.ok) {
      // A refusal of the reason belongs next to it; anything else above the button.
      const body = result.body as { code?: string; message?: string } | null
      if (result.status === 400 && body?.message?.includes('reason')) setFieldError(failure(result))
      else setStatus({ kind: 'error', text: failure(result) })
      return
    }
    form.reset()
    await revalidator.revalidate()
  }
  const describedBy = `${reasonId}-hint${fieldError ? ` ${reasonId}-error` : ''}`
  return (
    <section className="profile-section" aria-labelledby="account-disable">
      <h2 id="account-disable">{t('accounts.disable.heading')}</h2>
      {self ? (
        <p>{t('accounts.disable.self')}</p>
      ) : (
        <form className="profile-form" method="post" noValidate onSubmit={(event) => void submit(event)}>
          <div className="field">
            <label htmlFor={reasonId}>{t('accounts.disable.reason')}</label>
            <textarea id={reasonId} name="reason" rows={3} maxLength={REASON_MAX} aria-invalid={fieldError ? true : undefined} aria-describedby={describedBy} data-testid="disable-reason" />
            <p id={`${reasonId}-hint`} className="hint">
              {t('accounts.disable.hint', { max: REASON_MAX })}
            </p>
            {fieldError ? (
              <p id={`${reasonId}-error`} className="field-error">
                {fieldError}
              </p>
            ) : null}
          </div>
          {status ? <Notice kind={status.kind}>{status.text}</Notice> : null}
          <p className="actions">
            <button type="submit" className="button button-danger" disabled={busy} data-testid="disable-account">
              {t('accounts.disable.submit')}
            </button>
          </p>
        </form>
      )}
    </section>
  )
}

function EnableSection({ account }: { account: AccountDetail }) {
  const { t } = useTranslation('operator')
  const revalidator = useRevalidator()
  const failure = useFailure()
  const [status, setStatus] = useState<Status>(null)
  const [busy, setBusy] = useState(false)
  const enable = async () => {
    setBusy(true)
    setStatus(null)
    const result = await apiSend('POST', `/api/operator/users/${encodeURIComponent(account.id)}/enable`)
    setBusy(false)
    if (!result.ok) return setStatus({ kind: 'error', text: failure(result) })
    await revalidator.revalidate()
  }
  return (
    <section className="profile-section" aria-labelledby="account-enable">
      <h2 id="account-enable">{t('accounts.enable.heading')}</h2>
      <p>{t('accounts.enable.lead')}</p>
      {status ? <Notice kind={status.kind}>{status.text}</Notice> : null}
      <p className="actions">
        <button type="button" className="button" disabled={busy} onClick={() => void enable()} data-testid="enable-account">
          {t('accounts.enable.submit')}
        </button>
      </p>
    </section>
  )
}

function RolesSection({ account }: { account: AccountDetail }) {
  const { t } = useTranslation('operator')
  const revalidator = useRevalidator()
  const failure = useFailure()
  const [status, setStatus] = useState<Status>(null)
  const [busy, setBusy] = useState(false)
  const legendId = useId()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const roles = new FormData(event.currentTarget).getAll('roles').map(String)
    setBusy(true)
    setStatus(null)
    const result = await apiSend('PUT', `/api/operator/users/${encodeURIComponent(account.id)}/roles`, { roles })
    setBusy(false)
    if (!result.ok) return setStatus({ kind: 'error', text: failure(result) })
    setStatus({ kind: 'success', text: t('accounts.roles.saved') })
    await revalidator.revalidate()
  }
  return (
    <section className="profile-section" aria-labelledby={legendId}>
      <h2 id={legendId}>{t('accounts.roles.heading')}</h2>
      <form className="profile-form" method="post" onSubmit={(event) => void submit(event)} key={account.roles.join(',')}>
        <fieldset className="operator-roles" aria-describedby={`${legendId}-hint`}>
          <legend className="visually-hidden">{t('accounts.roles.heading')}</legend>
          {OPERATOR_ROLES.map((role) => (
            <label key={role} className="checkbox">
              <input type="checkbox" name="roles" value={role} defaultChecked={account.roles.includes(role)} data-testid={`role-${role}`} /> {t(`shell.roles.${role}`)}
            </label>
          ))}
        </fieldset>
        <p id={`${legendId}-hint`} className="hint">
          {t('accounts.roles.hint')}
        </p>
        {status ? (
          <Notice kind={status.kind} testId="roles-status">
            {status.text}
          </Notice>
        ) : null}
        <p className="actions">
          <button type="submit" className="button" disabled={busy} data-testid="save-roles">
            {t('accounts.roles.submit')}
          </button>
        </p>
      </form>
    </section>
  )
}
