// What every logo and card image shares: the tile's size and shape, our colours, and the SVG
// document around a drawing. Logos are drawn with presentation attributes only (no <style>, no
// script, no links, no outside references), so they render the same as an <img>, opened on their
// own, or in sharp.

/** A logo is a 64 × 64 tile with rounded corners (the cards show it at 48 px, the program page at 80). */
export const LOGO_SIZE = 64
export const LOGO_RADIUS = 15

/** client/styles.css: --ink, --line, --brand, --accent. */
export const LOGO_INK = '#14213d'
export const LOGO_LINE = '#dde2ec'
export const BRAND = '#1f3a5f'
export const ACCENT = '#f4b942'

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;')
}

/** A standalone SVG document: `title` names it when opened on its own (the page's <img> has its own alt). */
export function svgDocument(width: number, height: number, title: string, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<title>${escapeXml(title)}</title>${body}</svg>`
  )
}

/** A logo's drawing placed into a larger image, `size` units square at (x, y). */
export function nestedLogo(body: string, x: number, y: number, size: number): string {
  return `<svg x="${x}" y="${y}" width="${size}" height="${size}" viewBox="0 0 ${LOGO_SIZE} ${LOGO_SIZE}">${body}</svg>`
}
