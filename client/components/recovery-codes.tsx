import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Notice } from './auth-shell.tsx'

// A fresh set of recovery codes, shown the one time the server hands them out: at the
// end of the authenticator's set-up (/mfa) and when the profile makes a new set. Copy puts them on
// the clipboard; the download is a plain link to a text file, so it works from the keyboard and
// needs no script of its own.

export function RecoveryCodeList({ codes, heading: Heading = 'h2' }: { codes: string[]; heading?: 'h2' | 'h3' }) {
  const { t } = useTranslation(['auth'])
  const [copied, setCopied] = useState<'ok' | 'failed' | null>(null)
  const text = `${t('auth:authenticator.fileHeading')}\n\n${codes.join('\n')}\n`

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(codes.join('\n'))
      setCopied('ok')
    } catch {
      setCopied('failed')
    }
  }

  return (
    <div className="recovery-codes" data-testid="recovery-codes">
      <Heading>{t('auth:authenticator.codesTitle')}</Heading>
      <p>{t('auth:authenticator.codesLead')}</p>
      <ol className="recovery-code-list">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <p className="actions">
        <button type="button" className="button button-secondary" onClick={() => void copy()}>
          {t('auth:authenticator.copy')}
        </button>
        <a className="button button-secondary" href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`} download="softshelf-recovery-codes.txt" data-testid="recovery-codes-download">
          {t('auth:authenticator.download')}
        </a>
      </p>
      {copied ? <Notice kind={copied === 'ok' ? 'success' : 'error'}>{copied === 'ok' ? t('auth:authenticator.copied') : t('auth:authenticator.copyFailed')}</Notice> : null}
    </div>
  )
}
