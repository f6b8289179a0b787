import type { TFunction } from 'i18next'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { COMPARE_MAX, COMPARE_MIN, comparePath } from '../../shared/catalogue/living.ts'
import { addToCompare, clearCompare, removeFromCompare, useCompareList } from '../lib/catalogue/compare-list.ts'
import { useCatalogueHref } from '../lib/catalogue/twins.ts'
import { showToast } from '../lib/notices/toasts.ts'

// The "Compare" choice on program cards and the program page, and the tray that collects
// the choices (client/lib/catalogue/compare-list.ts) and links to /compare?programs=…. Loaded only
// once the page's script runs, through compare-toggle.tsx.

/** A pressed/unpressed button; a fifth program is refused with a message, the list unchanged. */
function CompareToggle({ program, t }: { program: { id: string; name: string }; t: TFunction<'catalogue'> }) {
  const list = useCompareList()
  if (list === null) return null
  const chosen = list.some((p) => p.id === program.id)
  return (
    <button
      type="button"
      className="button button-secondary compare-toggle"
      aria-pressed={chosen}
      aria-label={t('compare.toggleNamed', { name: program.name })}
      data-testid="compare-toggle"
      onClick={() => {
        if (chosen) removeFromCompare(program.id)
        else if (!addToCompare(program)) showToast({ kind: 'warning', title: t('compare.full', { max: COMPARE_MAX }), description: t('compare.fullHint') })
      }}
    >
      {t('compare.toggle')}
    </button>
  )
}

/** The chosen programs, at the foot of the window while there are any: each removable, the comparison's link, and Clear. */
function CompareTray() {
  const { t } = useTranslation('catalogue')
  const href = useCatalogueHref()
  const list = useCompareList()
  if (!list || list.length === 0) return null
  const ready = list.length >= COMPARE_MIN
  return (
    <aside className="compare-tray" aria-label={t('compare.tray')} data-testid="compare-tray">
      <ul className="compare-tray-list">
        {list.map((program) => (
          <li key={program.id}>
            <span>{program.name}</span>
            <button type="button" className="compare-tray-remove" aria-label={t('compare.removeNamed', { name: program.name })} onClick={() => removeFromCompare(program.id)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <div className="compare-tray-actions">
        {ready ? (
          <Link className="button" to={href(comparePath(list.map((p) => p.id)))}>
            {t('compare.open', { count: list.length })}
          </Link>
        ) : (
          <span className="hint">{t('compare.needMore', { min: COMPARE_MIN })}</span>
        )}
        <button type="button" className="button button-secondary" onClick={clearCompare}>
          {t('compare.clear')}
        </button>
      </div>
    </aside>
  )
}

/** One module loaded after hydration for both (compare-toggle.tsx): a program's toggle, or the tray. */
export default function CompareControl({ program, t }: { program?: { id: string; name: string } | undefined; t?: TFunction<'catalogue'> | undefined }) {
  return program && t ? <CompareToggle program={program} t={t} /> : <CompareTray />
}
