import { useTranslation } from 'react-i18next'
import type { ProgramDetail } from '../../shared/catalogue/program-schemas.ts'
import { ProgramGrid } from './program-card.tsx'

/**
 * A paid program's free alternatives — free programs of its primary category, most
 * popular first (GET /api/programs/{id} `alternatives`, rendered with the page on the server).
 * Nothing for a free program, nor when its category has no free one.
 */
export function FreeAlternatives({ program }: { program: ProgramDetail }) {
  const { t } = useTranslation(['catalogue', 'common'])
  const alternatives = program.alternatives ?? []
  const primary = program.categories[0]
  if (program.isFree || alternatives.length === 0 || primary === undefined) return null
  return (
    <section aria-labelledby="free-alternatives-title" className="free-alternatives" data-testid="free-alternatives">
      <h2 id="free-alternatives-title">{t('catalogue:freeAlternatives.title')}</h2>
      <p className="hint">{t('catalogue:freeAlternatives.intro', { name: program.name, category: t(`common:categories.${primary}`) })}</p>
      <ProgramGrid programs={alternatives} />
    </section>
  )
}
