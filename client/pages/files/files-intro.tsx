import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'

// /files: what the drive is, for a visitor, and the way in. A signed-in user never sees
// it: the public guard sends them to /@/files, its twin (shared/auth/session.ts).

const POINTS = ['upload', 'resume', 'share', 'trash'] as const

export function Component() {
  const { t } = useTranslation(['files', 'common'])
  return (
    <main id="content" className="files-intro">
      <section className="hero">
        <h1>{t('files:intro.title')}</h1>
        <p className="hero-lead">{t('files:intro.lead')}</p>
        <p className="actions files-intro-actions">
          <Link className="button" to="/welcome">
            {t('files:intro.signUp')}
          </Link>
          <Link to="/login">{t('files:intro.logIn')}</Link>
        </p>
      </section>
      <ul className="feature-grid files-intro-points">
        {POINTS.map((point) => (
          <li key={point} className="card">
            <h2>{t(`files:intro.points.${point}.title`)}</h2>
            <p>{t(`files:intro.points.${point}.text`)}</p>
          </li>
        ))}
      </ul>
      <p className="hint files-intro-note">{t('files:intro.note')}</p>
    </main>
  )
}
