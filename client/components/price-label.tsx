import { useTranslation } from 'react-i18next'
import type { ProgramSummary } from '../../shared/catalogue.ts'

export function PriceLabel({ program }: { program: Pick<ProgramSummary, 'price'> }) {
  const { t, i18n } = useTranslation('catalogue')
  if (!program.price) return <span className="price">{t('program.free')}</span>
  const price = new Intl.NumberFormat(i18n.language, { style: 'currency', currency: program.price.currency }).format(program.price.amount)
  const key = program.price.period === 'month' ? 'program.perMonth' : program.price.period === 'year' ? 'program.perYear' : 'program.price'
  return <span className="price">{t(key, { price })}</span>
}
