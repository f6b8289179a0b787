import { logoPath } from '../../shared/catalogue/logos.ts'
import { useClientConfig } from '../lib/client-config.tsx'

// A program's logo (decision 024): its brand's mark or a generated one, drawn by the BFF
// and served from our own origin as SVG (GET /logos/<id>.svg). Nothing of it is in the JS bundle:
// the page only names the URL, versioned so the browser keeps the image for a year.

const PIXELS = { md: 48, lg: 80 } as const

/** Decorative (alt=""): the program's name is always next to it. Cards load it when scrolled near, the program page's large logo at once. */
export function ProgramIcon({ id, size = 'md' }: { id: string; size?: 'md' | 'lg' }) {
  const { logosVersion } = useClientConfig()
  const pixels = PIXELS[size]
  return (
    <img
      className={`program-icon program-icon-${size}`}
      src={logoPath(id, logosVersion)}
      alt=""
      width={pixels}
      height={pixels}
      loading={size === 'lg' ? 'eager' : 'lazy'}
      decoding="async"
    />
  )
}
