import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { PRODUCT_NAME } from '../../shared/constants.ts'

export function BrandLink() {
  const { t } = useTranslation()
  return (
    <Link to="/" className="brand" aria-label={t('nav.home')}>
      <span className="brand-mark" aria-hidden="true">
        S
      </span>
      {PRODUCT_NAME}
    </Link>
  )
}
