import { useTranslation } from 'react-i18next'
import { dismissToast, useToasts, type Toast } from '../lib/notices/toasts.ts'

function ToastItem({ toast }: { toast: Toast }) {
  const { t } = useTranslation()
  const close = () => dismissToast(toast.id)
  return (
    <div
      className={`toast toast-${toast.kind}${toast.closeOnClick ? ' toast-clickable' : ''}`}
      role={toast.kind === 'error' ? 'alert' : 'status'}
      data-testid={`toast-${toast.kind}`}
      onClick={toast.closeOnClick ? close : undefined}
    >
      <div className="toast-body">
        <p className="toast-title">{toast.title}</p>
        {toast.description ? <p className="toast-description">{toast.description}</p> : null}
      </div>
      {toast.action ? (
        <button
          type="button"
          className="button button-small toast-action"
          onClick={(event) => {
            // The action, not also the toast's own click (which would only close it).
            event.stopPropagation()
            toast.action!.run()
          }}
        >
          {toast.action.label}
        </button>
      ) : null}
      <button type="button" className="toast-close" onClick={close}>
        {t('toast.close')}
      </button>
    </div>
  )
}

export function Toaster() {
  const { t } = useTranslation()
  const toasts = useToasts()
  return (
    <>
      {(['top-right', 'bottom-right'] as const).map((position) => (
        // Live regions, not landmarks: two landmarks with one name would confuse navigation by region.
        <div key={position} role="status" className={`toaster toaster-${position}`} aria-label={t('toast.region')} aria-live="polite">
          {toasts
            .filter((toast) => toast.position === position)
            .map((toast) => (
              <ToastItem key={toast.id} toast={toast} />
            ))}
        </div>
      ))}
    </>
  )
}
