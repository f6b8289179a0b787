import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { checkFileName } from '../../../shared/files/names.ts'

// The drive's dialogs and menus, keyboard first. Dialogs are the native <dialog> opened modal:
// the browser keeps focus inside, makes the page behind inert and closes on Escape; focus goes
// back where it came from when one closes.

export function Dialog({ title, onClose, children, wide, testId }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean; testId?: string }) {
  const ref = useRef<HTMLDialogElement>(null)
  const id = useId()
  const onCloseRef = useRef(onClose)
  onCloseRef.current = onClose
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    const opener = document.activeElement as HTMLElement | null
    dialog.showModal()
    return () => {
      if (dialog.open) dialog.close()
      // The opener may have gone with a re-render (a menu item): then nothing better than the page.
      if (opener?.isConnected) opener.focus()
    }
  }, [])
  return (
    <dialog
      ref={ref}
      className={`drive-dialog${wide ? ' drive-dialog-wide' : ''}`}
      aria-labelledby={`${id}-title`}
      onCancel={(event) => {
        event.preventDefault()
        onCloseRef.current()
      }}
      data-testid={testId}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      {children}
    </dialog>
  )
}

/** A field's problem, announced when it appears; nothing when there is none. */
export function FieldError({ id, error }: { id?: string; error: string | null | undefined }) {
  if (!error) return null
  return (
    <p className="field-error" id={id} role="alert">
      {error}
    </p>
  )
}

/** A dialog form's two buttons: do it, or leave without doing anything. */
export function SubmitOrCancel({ busy, submitLabel, onCancel }: { busy: boolean; submitLabel: string; onCancel: () => void }) {
  const { t } = useTranslation(['files'])
  return (
    <div className="actions">
      <button type="submit" className="button" disabled={busy}>
        {submitLabel}
      </button>
      <button type="button" className="button button-secondary" onClick={onCancel}>
        {t('files:actions.cancel')}
      </button>
    </div>
  )
}

/**
 * Create a folder or rename an item: the name rules are checked here first (shared/files/names.ts),
 * then `onSubmit` has the drive's action write it; `failure` is the server's refusal, `busy` while it runs.
 */
export function NameDialog({
  title,
  label,
  initial,
  submitLabel,
  busy,
  failure,
  onSubmit,
  onClose,
}: {
  title: string
  label: string
  initial: string
  submitLabel: string
  busy: boolean
  failure: string | null
  onSubmit: (name: string) => void
  onClose: () => void
}) {
  const { t } = useTranslation(['files', 'common'])
  const id = useId()
  const [name, setName] = useState(initial)
  const [problem, setProblem] = useState<string | null>(null)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => {
    const field = input.current
    if (!field) return
    field.focus()
    // Renaming "report.pdf": the stem is selected, as file managers do.
    const dot = initial.lastIndexOf('.')
    field.setSelectionRange(0, dot > 0 ? dot : initial.length)
  }, [initial])

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const checked = checkFileName(name)
    if ('problem' in checked) {
      setProblem(t(`files:names.${checked.problem}`))
      return
    }
    setProblem(null)
    onSubmit(checked.name)
  }
  const error = problem ?? (busy ? null : failure)

  return (
    <Dialog title={title} onClose={onClose}>
      <form onSubmit={submit} className="drive-form">
        <div className="field">
          <label htmlFor={`${id}-name`}>{label}</label>
          <input
            ref={input}
            id={`${id}-name`}
            value={name}
            autoComplete="off"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
            onChange={(event) => setName(event.target.value)}
          />
          <FieldError id={`${id}-error`} error={error} />
        </div>
        <SubmitOrCancel busy={busy} submitLabel={submitLabel} onCancel={onClose} />
      </form>
    </Dialog>
  )
}

/** Asks before a write that cannot be taken back; `busy` while the write runs. */
export function ConfirmDialog({
  title,
  text,
  confirmLabel,
  busy,
  onConfirm,
  onClose,
  danger,
}: {
  title: string
  text: string
  confirmLabel: string
  busy: boolean
  onConfirm: () => void
  onClose: () => void
  danger?: boolean
}) {
  const { t } = useTranslation(['files'])
  return (
    <Dialog title={title} onClose={onClose} testId="confirm-dialog">
      <p>{text}</p>
      <div className="actions">
        <button type="button" className={`button${danger ? ' button-danger' : ''}`} disabled={busy} onClick={onConfirm}>
          {confirmLabel}
        </button>
        {/* The safe choice takes the first focus. */}
        <button type="button" className="button button-secondary" onClick={onClose} autoFocus>
          {t('files:actions.cancel')}
        </button>
      </div>
    </Dialog>
  )
}

export interface MenuItem {
  label: string
  onSelect: () => void
  danger?: boolean
}

/**
 * A menu button (WAI-ARIA APG "menu button"): Enter, Space or ArrowDown opens it on the first
 * item, ArrowUp on the last; arrows, Home and End move; Escape closes and returns to the button;
 * Tab or a click elsewhere closes it.
 */
export function MenuButton({ label, items }: { label: string; items: MenuItem[] }) {
  const [open, setOpen] = useState(false)
  const [start, setStart] = useState<'first' | 'last'>('first')
  const id = useId()
  const button = useRef<HTMLButtonElement>(null)
  const menu = useRef<HTMLUListElement>(null)

  const entries = () => [...(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])]

  useEffect(() => {
    if (!open) return
    const all = entries()
    ;(start === 'first' ? all[0] : all[all.length - 1])?.focus()
    const outside = (event: PointerEvent) => {
      if (!menu.current?.contains(event.target as Node) && !button.current?.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener('pointerdown', outside)
    return () => document.removeEventListener('pointerdown', outside)
  }, [open, start])

  const close = () => {
    setOpen(false)
    button.current?.focus()
  }

  const onMenuKey = (event: KeyboardEvent) => {
    const all = entries()
    const index = all.indexOf(document.activeElement as HTMLButtonElement)
    const move = (to: number) => {
      event.preventDefault()
      all[(to + all.length) % all.length]?.focus()
    }
    if (event.key === 'ArrowDown') move(index + 1)
    else if (event.key === 'ArrowUp') move(index - 1)
    else if (event.key === 'Home') move(0)
    else if (event.key === 'End') move(all.length - 1)
    else if (event.key === 'Escape') {
      event.preventDefault()
      close()
    } else if (event.key === 'Tab') setOpen(false)
  }

  return (
    <div className="menu">
      <button
        ref={button}
        type="button"
        className="menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? `${id}-menu` : undefined}
        aria-label={label}
        onClick={() => {
          setStart('first')
          setOpen((value) => !value)
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault()
            setStart(event.key === 'ArrowDown' ? 'first' : 'last')
            setOpen(true)
          }
        }}
      >
        <span aria-hidden="true">⋯</span>
      </button>
      {open ? (
        <ul ref={menu} id={`${id}-menu`} role="menu" aria-label={label} className="menu-list" onKeyDown={onMenuKey}>
          {items.map((item) => (
            <li key={item.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                className={item.danger ? 'menu-danger' : undefined}
                onClick={() => {
                  close()
                  item.onSelect()
                }}
              >
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
