import { useCallback, useMemo, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate, useRevalidator } from 'react-router'
import type { LibraryChange } from '../../../shared/types.ts'
import { apiSend, errorMessage } from '../api.ts'
import { LibraryContext, type LibraryState } from './library-state.ts'
import { showToast } from '../notices/toasts.ts'

// The signed-in user's library as the catalogue pages under /@ see it: which programs are in it,
// and adding or removing one (POST / DELETE /api/user/program/{id}, idempotent), and which the user
// owns (GET /api/user/program-ids). The cards and the program page read it through
// catalogue/library-state.ts: a visitor's page never loads this code, nor anyone's purchases.

interface LibraryProviderProps {
  ids: readonly string[]
  /** The programs the user owns (GET /api/user/program-ids `ownedIds`). */
  ownedIds?: readonly string[]
  children: ReactNode
  revalidateOnChange?: boolean
}

export function LibraryProvider({ ids, ownedIds = [], children, revalidateOnChange = false }: LibraryProviderProps) {
  const { t } = useTranslation('common')
  const navigate = useNavigate()
  const revalidator = useRevalidator()
  const [inLibrary, setInLibrary] = useState(() => new Set(ids))
  const [pending, setPending] = useState(() => new Set<string>())
  const toggle = useCallback(
    async (id: string) => {
      const adding = !inLibrary.has(id)
      setPending((set) => new Set(set).add(id))
      const result = await apiSend<LibraryChange>(adding ? 'POST' : 'DELETE', `/api/user/program/${encodeURIComponent(id)}`)
      setPending((set) => {
        const next = new Set(set)
        next.delete(id)
        return next
      })
      if (result.ok) {
        setInLibrary((set) => {
          const next = new Set(set)
          if (adding) next.add(id)
          else next.delete(id)
          return next
        })
        if (revalidateOnChange) await revalidator.revalidate()
        return
      }
      // Spec §2 and §8: a 404 from the API goes to /404; other failures are toasts.
      if (result.status === 404) {
        await navigate('/404')
        return
      }
      showToast({ kind: 'error', title: result.status === 0 ? t('errors.errorApiRequest') : (errorMessage(result) ?? t('errors.occuredSomeError')) })
    },
    [inLibrary, navigate, revalidateOnChange, revalidator, t],
  )
  const owned = useMemo(() => new Set(ownedIds), [ownedIds])
  const value = useMemo<LibraryState>(() => ({ has: (id) => inLibrary.has(id), busy: (id) => pending.has(id), toggle, owns: (id) => owned.has(id) }), [inLibrary, pending, toggle, owned])
  return <LibraryContext.Provider value={value}>{children}</LibraryContext.Provider>
}
