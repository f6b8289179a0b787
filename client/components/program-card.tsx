import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import type { ProgramSummary } from '../../shared/catalogue.ts'
import { PriceLabel } from './price-label.tsx'
import { ProgramIcon } from './program-icon.tsx'

export function ProgramCard({ program }: { program: ProgramSummary }) {
  const { t } = useTranslation('catalogue')
  return (
    <li className="program-card card">
      <ProgramIcon id={program.id} name={program.name} />
      <div className="program-card-body">
        <h3>
          <Link to={`/programs/${program.id}`}>{program.name}</Link>
        </h3>
        <p className="program-card-developer">{program.developer.name}</p>
        <p className="program-card-summary">{program.summary}</p>
        <p className="program-card-meta">
          <span className={`badge ${program.isFree ? 'badge-free' : 'badge-paid'}`}>{t(`licenseTypes.${program.licenseType}`)}</span>
          <PriceLabel program={program} />
        </p>
      </div>
    </li>
  )
}
