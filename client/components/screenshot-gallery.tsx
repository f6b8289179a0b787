import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import { useTranslation } from 'react-i18next'
import type { ProgramScreenshot } from '../../shared/catalogue/media.ts'

// A program's screenshots: thumbnails (responsive WebP, lazy, their size reserved by
// width and height so nothing shifts), each a button that opens the larger view — a modal dialog
// that works with the keyboard: ← and → go through them, Escape closes, focus returns to the
// thumbnail of the one last shown.

/** How wide a thumbnail is drawn, for the browser's choice in srcset (client/styles.css .gallery-grid). */
const THUMB_SIZES = '(min-width: 1024px) 280px, (min-width: 640px) 45vw, 92vw'
const LARGE_SIZES = '(min-width: 1280px) 1200px, 94vw'

const srcsetOf = (shot: ProgramScreenshot) => shot.srcset.map((file) => `${file.url} ${file.width}w`).join(', ')

export function ScreenshotGallery({ programName, screenshots }: { programName: string; screenshots: ProgramScreenshot[] }) {
  const { t } = useTranslation('catalogue')
  const [open, setOpen] = useState<number | null>(null)
  const thumbs = useRef<Array<HTMLButtonElement | null>>([])
  const dialog = useRef<HTMLDialogElement>(null)
  const lastShown = useRef(0)
  const total = screenshots.length

  const altOf = (index: number) => screenshots[index]!.alt || t('gallery.fallbackAlt', { name: programName, n: index + 1, total })

  useEffect(() => {
    const element = dialog.current
    if (open === null || !element) return
    if (!element.open) element.showModal()
    lastShown.current = open
  }, [open])

  const close = () => {
    dialog.current?.close()
    setOpen(null)
    thumbs.current[lastShown.current]?.focus()
  }
  const step = (delta: number) => setOpen((index) => (index === null ? index : (index + delta + total) % total))
  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key === 'ArrowRight') step(1)
    else if (event.key === 'ArrowLeft') step(-1)
    else return
    event.preventDefault()
  }

  if (total === 0) return null
  const shown = open === null ? null : screenshots[open]!
  return (
    <section aria-labelledby="screenshots-title" className="program-gallery">
      <h2 id="screenshots-title">{t('gallery.title')}</h2>
      <ul className="gallery-grid">
        {screenshots.map((shot, index) => (
          <li key={shot.id}>
            <button
              type="button"
              className="gallery-thumb"
              ref={(element) => {
                thumbs.current[index] = element
              }}
              onClick={() => setOpen(index)}
              aria-haspopup="dialog"
              data-testid="gallery-thumb"
            >
              <img
                src={shot.srcset[0]?.url}
                srcSet={srcsetOf(shot)}
                sizes={THUMB_SIZES}
                width={shot.width}
                height={shot.height}
                loading="lazy"
                decoding="async"
                alt={t('gallery.open', { alt: altOf(index) })}
               
              />
            </button>
          </li>
        ))}
      </ul>
      {shown && open !== null ? (
        <dialog
          ref={dialog}
          className="gallery-dialog"
          aria-labelledby="gallery-dialog-title"
          onKeyDown={onKeyDown}
          onCancel={(event) => {
            event.preventDefault()
            close()
          }}
          data-testid="gallery-dialog"
        >
          <div className="gallery-dialog-head">
            <h2 id="gallery-dialog-title" aria-live="polite">
              {t('gallery.position', { n: open + 1, total })}
            </h2>
            <button type="button" className="button button-secondary" onClick={close} autoFocus>
              {t('gallery.close')}
            </button>
          </div>
          <figure>
            <img src={shown.srcset[shown.srcset.length - 1]?.url} srcSet={srcsetOf(shown)} sizes={LARGE_SIZES} width={shown.width} height={shown.height} alt={altOf(open)} />
            {shown.alt ? <figcaption>{shown.alt}</figcaption> : null}
          </figure>
          {total > 1 ? (
            <div className="gallery-dialog-nav">
              <button type="button" className="button button-secondary" onClick={() => step(-1)}>
                <span aria-hidden="true">← </span>
                {t('gallery.previousLabel')}
              </button>
              <button type="button" className="button button-secondary" onClick={() => step(1)}>
                {t('gallery.nextLabel')}
                <span aria-hidden="true"> →</span>
              </button>
            </div>
          ) : null}
        </dialog>
      ) : null}
    </section>
  )
}
