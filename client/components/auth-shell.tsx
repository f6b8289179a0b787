import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { BrandLink } from './brand-link.tsx'
import { LanguageSwitcher } from './language-switcher.tsx'

// The account pages (login, welcome, passwords, verification, callback) use no layout (spec §2):
// a small centred card with the brand and the language switch.

export function AuthShell({ title, lead, children, footer }: { title: string; lead?: ReactNode; children?: ReactNode; footer?: ReactNode }) {
  return (
    <div className="auth-shell">
      <header className="auth-header">
        <BrandLink />
        <LanguageSwitcher />
      </header>
      <main id="content" className="auth-card card">
        <h1>{title}</h1>
        {lead ? <p className="auth-lead">{lead}</p> : null}
        {children}
      </main>
      {footer ? <nav className="auth-footer">{footer}</nav> : null}
      <LegalLinks />
    </div>
  )
}

function LegalLinks() {
  const { t } = useTranslation()
  return (
    <nav className="auth-legal" aria-label={t('footer.legal')}>
      <Link to="/terms">{t('footer.terms')}</Link>
      <Link to="/privacy">{t('footer.privacy')}</Link>
      <Link to="/cookie">{t('footer.cookie')}</Link>
    </nav>
  )
}

/** A message box: errors are announced at once (role alert), notices politely. */
export function Notice({ kind, children, testId }: { kind: 'error' | 'warning' | 'success' | 'info'; children: ReactNode; testId?: string }) {
  return (
    <div className={`notice notice-${kind}`} role={kind === 'error' || kind === 'warning' ? 'alert' : 'status'} data-testid={testId}>
      {children}
    </div>
  )
}

/** A labelled input with its own error, tied together for screen readers. */
export function Field({
  id,
  label,
  error,
  hint,
  ...input
}: { id: string; label: string; error?: string | undefined; hint?: string | undefined } & React.InputHTMLAttributes<HTMLInputElement>) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {hint ? (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  )
}
