import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { PRODUCT_NAME } from '../../shared/constants.ts'
import { PROGRAM_CATEGORIES } from '../../shared/catalogue.ts'

export function Component() {
  const { t } = useTranslation(['home', 'common'])
  return (
    <main id="content" className="home">
      <section className="hero">
        <p className="hero-kicker">{PRODUCT_NAME}</p>
        <h1>{t('home:hero.title')}</h1>
        <p className="hero-lead">{t('home:hero.lead')}</p>
      </section>
      <section className="features" aria-labelledby="features-title">
        <h2 id="features-title">{t('home:features.title')}</h2>
        <ul className="feature-grid">
          {(['catalogue', 'browse', 'library'] as const).map((key) => (
            <li key={key} className="card">
              <h3>{t(`home:features.${key}.title`)}</h3>
              <p>{t(`home:features.${key}.text`)}</p>
            </li>
          ))}
        </ul>
      </section>
      <section className="categories" aria-labelledby="categories-title">
        <h2 id="categories-title">{t('home:categories.title')}</h2>
        <p>{t('home:categories.lead')}</p>
        <ul className="chip-list">
          {PROGRAM_CATEGORIES.map((category) => (
            <li key={category} className="chip">
              <Link to={`/category/${category}`}>{t(`common:categories.${category}`)}</Link>
            </li>
          ))}
        </ul>
      </section>
    </main>
  )
}
