import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation, useNavigate, useRouteLoaderData } from 'react-router'
import { problemOfHttp } from '../../../shared/auth/forms.ts'
import { readReturn } from '../../../shared/auth/return-path.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { AuthShell, Notice } from '../../components/auth-shell.tsx'
import { continueTo } from '../../lib/account/continue.ts'
import { formOutcomeAction, useFormOutcome } from '../../lib/account/form-outcome.ts'
import { apiSend } from '../../lib/api.ts'
import { problemMessage } from '../../lib/account/auth-errors.ts'
import type { SignedInData } from '../../lib/session/guards.ts'
import { useClientConfig } from '../../lib/client-config.tsx'

/** A form sent before the script ran, answered by the BFF (decision 025). */
export const action = formOutcomeAction

interface LegalSection {
  heading: string
  body: string[]
}

/**
 * /tos: the terms in force, accepted once per version, with the mailing-list opt-in (spec §4, §7);
 * then on to ?redirectToPath=. Works before the page's script runs (decision 025).
 */
export function Component() {
  const { t, i18n } = useTranslation(['auth', 'legal', 'common'])
  const config = useClientConfig()
  const navigate = useNavigate()
  const target = readReturn(useLocation().search)
  const { user } = useRouteLoaderData('signed-in') as SignedInData
  const [outcome, setOutcome] = useFormOutcome()
  const [busy, setBusy] = useState(false)
  const sections = Object.entries(t('legal:terms.sections', { returnObjects: true, operator: config.operatorName, contactEmail: config.contactEmail }) as Record<string, LegalSection>)

  const accept = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const isInMailList = new FormData(event.currentTarget).get('isInMailList') === 'on'
    setBusy(true)
    setOutcome(undefined)
    const result = await apiSend<UserRecord>('POST', '/api/user/accept-tos', { isInMailList })
    if (result.ok) {
      await continueTo(navigate, target)
      return
    }
    setBusy(false)
    setOutcome({ problem: result.status === 0 ? { kind: 'network' } : problemOfHttp(result.status, result.body) })
  }

  return (
    <AuthShell title={t('auth:tos.title')} lead={t('auth:tos.lead')} footer={<Link to="/@/logout">{t('auth:tos.logOut')}</Link>}>
      <div className="tos-text" tabIndex={0} aria-label={t('common:footer.terms')}>
        {sections.map(([id, section]) => (
          <section key={id}>
            <h2>{section.heading}</h2>
            {section.body.map((paragraph, index) => (
              <p key={index}>{paragraph}</p>
            ))}
          </section>
        ))}
      </div>
      {outcome?.problem ? <Notice kind="error">{problemMessage(outcome.problem, t, i18n.language)}</Notice> : null}
      <form method="post" onSubmit={(event) => void accept(event)}>
        <div className="field field-check">
          <input id="tos-mail-list" type="checkbox" name="isInMailList" defaultChecked={user.isInMailList} />
          <label htmlFor="tos-mail-list">{t('auth:fields.mailList')}</label>
        </div>
        <button type="submit" className="button" disabled={busy}>
          {t('auth:tos.accept')}
        </button>
      </form>
    </AuthShell>
  )
}
