import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from 'saxes'

// An uploaded SVG logo is rewritten, never stored as sent: it is parsed by a strict
// XML parser (saxes: no DTD, no entities of its own, so no entity expansion and no external
// entity), and only an allow-list of drawing elements and presentation attributes is written out
// again by us. Whatever is not on the list is dropped with its content: scripts, event handlers
// (on…), foreignObject, <style>, <image>, links, animations, filters (feImage loads URLs), other
// namespaces (editor metadata). A reference may only point inside the document (`#id`,
// `url(#id)`); any other href, url(), data: or javascript: goes. The served file also carries a
// CSP that runs and loads nothing (decision 024), so this is the second wall, not the only one.

export class SvgRefused extends Error {
  override name = 'SvgRefused'
}

const SVG_NS = 'http://www.w3.org/2000/svg'
const XLINK_NS = 'http://www.w3.org/1999/xlink'
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/'
const XML_NS = 'http://www.w3.org/XML/1998/namespace'

/** Drawing elements kept (with their allowed attributes); any other element is dropped with its content. */
const ELEMENTS = new Set([
  'svg', 'g', 'defs', 'symbol', 'use', 'title', 'desc',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon',
  'text', 'tspan',
  'linearGradient', 'radialGradient', 'stop', 'clipPath', 'mask', 'pattern',
])

/** Elements whose text is kept (escaped); text elsewhere is whitespace in a drawing. */
const TEXT_ELEMENTS = new Set(['title', 'desc', 'text', 'tspan'])

/** Presentation properties: allowed as attributes and as declarations of a style attribute. */
const PRESENTATION = new Set([
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-linecap', 'stroke-linejoin', 'stroke-miterlimit',
  'stroke-dasharray', 'stroke-dashoffset', 'stroke-opacity', 'opacity', 'clip-path', 'clip-rule', 'mask', 'stop-color',
  'stop-opacity', 'color', 'display', 'visibility', 'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor',
  'dominant-baseline', 'letter-spacing', 'word-spacing', 'vector-effect', 'shape-rendering', 'paint-order', 'isolation', 'mix-blend-mode',
])

/** Geometry and structure attributes. */
const GEOMETRY = new Set([
  'id', 'x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'fx', 'fy', 'fr', 'width', 'height', 'd', 'points',
  'viewBox', 'preserveAspectRatio', 'transform', 'offset', 'dx', 'dy', 'rotate', 'textLength', 'lengthAdjust', 'pathLength',
  'gradientUnits', 'gradientTransform', 'spreadMethod', 'clipPathUnits', 'maskUnits', 'maskContentUnits',
  'patternUnits', 'patternContentUnits', 'patternTransform', 'version',
])

/** A value that could reach outside the document, run something or break out of CSS. */
const UNSAFE_VALUE = /url\s*\(|javascript:|data:|expression\s*\(|[\\<>@{};]|\/\*/i
/** The one url() kept: a reference to an element of the document. */
const LOCAL_URL = /^url\(\s*#[A-Za-z_][\w.:-]*\s*\)$/
const LOCAL_FRAGMENT = /^#[A-Za-z_][\w.:-]*$/

const MAX_DEPTH = 64
const MAX_ELEMENTS = 20_000

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, '&quot;')

function safeValue(name: string, value: string): string | null {
  const trimmed = value.trim()
  if (LOCAL_URL.test(trimmed)) return ['fill', 'stroke', 'clip-path', 'mask'].includes(name) ? trimmed : null
  if (UNSAFE_VALUE.test(trimmed)) return null
  return value
}

/** The declarations of a style attribute that are presentation properties with safe values, as one style attribute again. */
function safeStyle(style: string): string | null {
  const kept: string[] = []
  for (const declaration of style.split(';')) {
    const colon = declaration.indexOf(':')
    if (colon < 0) continue
    const property = declaration.slice(0, colon).trim().toLowerCase()
    const value = declaration.slice(colon + 1).trim()
    if (!PRESENTATION.has(property) || value === '') continue
    const safe = safeValue(property, value)
    if (safe !== null) kept.push(`${property}:${safe}`)
  }
  return kept.length > 0 ? kept.join(';') : null
}

function keptAttributes(tag: SaxesTagNS): string {
  const out: string[] = []
  for (const attribute of Object.values(tag.attributes) as SaxesAttributeNS[]) {
    const { uri, local, value } = attribute
    if (uri === XMLNS_NS || attribute.name === 'xmlns') continue // written by us
    if (uri === XML_NS) {
      if (local === 'space' && (value === 'preserve' || value === 'default')) out.push(`xml:space="${value}"`)
      continue
    }
    if ((uri === XLINK_NS || uri === '') && local === 'href') {
      // References inside the document only; written as SVG 2's plain href.
      if (tag.local === 'use' || tag.local === 'linearGradient' || tag.local === 'radialGradient' || tag.local === 'pattern') {
        if (LOCAL_FRAGMENT.test(value.trim())) out.push(`href="${escapeAttribute(value.trim())}"`)
      }
      continue
    }
    if (uri !== '') continue // another namespace: editors' metadata
    if (local === 'style') {
      const style = safeStyle(value)
      if (style !== null) out.push(`style="${escapeAttribute(style)}"`)
      continue
    }
    if (!PRESENTATION.has(local) && !GEOMETRY.has(local)) continue // on…, class, and everything else
    const safe = safeValue(local, value)
    if (safe !== null) out.push(`${local}="${escapeAttribute(safe)}"`)
  }
  return out.length > 0 ? ` ${out.join(' ')}` : ''
}

/**
 * The SVG we store for an uploaded one: the safe subset, written by us, or an SvgRefused saying
 * why not (not well-formed XML, a DOCTYPE, not an <svg> root, too deep or too large).
 */
export function sanitiseSvg(source: string): string {
  const parser = new SaxesParser({ xmlns: true, position: true })
  const out: string[] = []
  // Per open element: whether it is written (false: dropped with its content) and whether its text is kept.
  const stack: Array<{ kept: boolean; text: boolean }> = []
  let elements = 0
  let rootSeen = false
  let failure: string | undefined

  parser.on('doctype', () => {
    throw new SvgRefused('The SVG has a DOCTYPE: send the drawing without one.')
  })
  parser.on('opentag', (tag) => {
    const parent = stack[stack.length - 1]
    if (!parent) {
      if (rootSeen || tag.uri !== SVG_NS || tag.local !== 'svg') throw new SvgRefused('The file is not an SVG image: its root must be an <svg> element in the SVG namespace.')
      rootSeen = true
    }
    elements += 1
    if (elements > MAX_ELEMENTS || stack.length >= MAX_DEPTH) throw new SvgRefused('The SVG is too complex: it has too many elements or nests them too deeply.')
    const kept = (parent?.kept ?? true) && tag.uri === SVG_NS && ELEMENTS.has(tag.local)
    stack.push({ kept, text: kept && TEXT_ELEMENTS.has(tag.local) })
    if (!kept) return
    const namespace = parent ? '' : ` xmlns="${SVG_NS}"`
    out.push(`<${tag.local}${namespace}${keptAttributes(tag)}>`)
  })
  parser.on('closetag', (tag) => {
    const element = stack.pop()
    if (element?.kept) out.push(`</${tag.local}>`)
  })
  const text = (value: string) => {
    if (stack[stack.length - 1]?.text) out.push(escapeText(value))
  }
  parser.on('text', text)
  parser.on('cdata', text)
  parser.on('error', (error) => {
    failure ??= error.message
  })

  try {
    parser.write(source).close()
  } catch (error) {
    if (error instanceof SvgRefused) throw error
    throw new SvgRefused('The SVG could not be read: it is not well-formed XML.')
  }
  if (failure !== undefined || !rootSeen) throw new SvgRefused('The SVG could not be read: it is not well-formed XML.')
  return out.join('')
}
