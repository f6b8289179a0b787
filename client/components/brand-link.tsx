import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { PRODUCT_NAME } from '../../shared/constants.ts'

export function BrandLink({ to = '/' }: { to?: string }) {
  const { t } = useTranslation()
  return (
    <Link to={to} className="brand" aria-label={t('nav.home')}>
      {/* The mark's letter comes from CSS: visible text must be the start of the link's name (WCAG 2.5.3). */}
      <span className="brand-mark" aria-hidden="true" />
      {PRODUCT_NAME}
    </Link>
  )
}
