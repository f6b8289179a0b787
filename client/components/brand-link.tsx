import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { PRODUCT_NAME } from '../../shared/constants.ts'
import { useCatalogueHref } from '../lib/catalogue/twins.ts'

/** The product's name, home: the public home for a visitor, the signed-in home (/@) on a signed-in page. */
export function BrandLink() {
  const { t } = useTranslation()
  const href = useCatalogueHref()
  return (
    <Link to={href('/')} className="brand" aria-label={t('nav.home')}>
      {/* The mark's letter comes from CSS: visible text must be the start of the link's name (WCAG 2.5.3). */}
      <span className="brand-mark" aria-hidden="true" />
      {PRODUCT_NAME}
    </Link>
  )
}
