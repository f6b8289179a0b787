import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useRouteLoaderData } from 'react-router'
import type { UserRecord } from '../../../shared/types.ts'
import { AuthShell, Notice } from '../../components/auth-shell.tsx'
import { apiSend, errorMessage } from '../../lib/api.ts'
import type { SignedInData } from '../../lib/guards.ts'
import { useClientConfig } from '../../lib/client-config.tsx'

interface LegalSection {
  heading: string
  body: string[]
}

/** /tos: the terms in force, accepted once per version, with the mailing-list opt-in (spec §4, §7). */
export function Component() {
  const { t } = useTranslation(['auth', 'legal', 'common'])
  const config = useClientConfig()
  const navigate = useNavigate()
  const { user } = useRouteLoaderData('signed-in') as SignedInData
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const sections = Object.entries(t('legal:terms.sections', { returnObjects: true, operator: config.operatorName, contactEmail: config.contactEmail }) as Record<string, LegalSection>)

  const accept = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const isInMailList = new FormData(event.currentTarget).get('isInMailList') === 'on'
    setBusy(true)
    setError(null)
    const result = await apiSend<UserRecord>('POST', '/api/user/accept-tos', { isInMailList })
    setBusy(false)
    if (result.ok) {
      await navigate('/@', { replace: true })
      return
    }
    setError(result.status === 0 ? t('common:errors.errorApiRequest') : (errorMessage(result) ?? t('common:errors.occuredSomeError')))
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
      {error ? <Notice kind="error">{error}</Notice> : null}
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
