// WCAG 2.2 contrast (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio) between two sRGB colours
// written as hex ("#1f3a5f" or "1F3A5F").

function channel(value: number): number {
  const c = value / 255
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
}

export function relativeLuminance(hex: string): number {
  const digits = hex.replace(/^#/, '')
  if (!/^[0-9a-f]{6}$/i.test(digits)) throw new Error(`not a colour: ${hex}`)
  const [r, g, b] = [0, 2, 4].map((at) => channel(Number.parseInt(digits.slice(at, at + 2), 16)))
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x)
  return (light! + 0.05) / (dark! + 0.05)
}

/** WCAG 1.4.11: graphical objects needed to understand the content need 3:1 against what is next to them. */
export const NON_TEXT_CONTRAST = 3
