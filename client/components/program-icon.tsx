// Icons are generated here, never loaded from another site: a monogram on one of eight brand
// colours chosen by the program id (classes, because the CSP allows no inline styles).

function hash(value: string): number {
  let h = 0
  for (let i = 0; i < value.length; i++) h = (h * 31 + value.charCodeAt(i)) >>> 0
  return h
}

export function monogram(name: string): string {
  const words = name.replace(/[^\p{L}\p{N} ]/gu, ' ').split(/\s+/).filter(Boolean)
  const letters = words.length > 1 ? `${words[0]![0]}${words[1]![0]}` : (words[0] ?? '?').slice(0, 2)
  return letters.toUpperCase()
}

export function ProgramIcon({ id, name, size = 'md' }: { id: string; name: string; size?: 'md' | 'lg' }) {
  return (
    <span className={`program-icon program-icon-${size} icon-c${hash(id) % 8}`} aria-hidden="true">
      {monogram(name)}
    </span>
  )
}
