import sharp from 'sharp'
import t from 'tap'
import { screenshotWidths } from '../../../server/api/catalogue/media-images.ts'
import { sanitiseSvg, SvgRefused } from '../../../server/api/catalogue/svg-sanitiser.ts'

// An uploaded SVG logo is rewritten to an allow-listed subset (server/api/catalogue/svg-sanitiser.ts).

const svg = (body: string, attributes = '') => `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"${attributes}>${body}</svg>`

t.test('a plain drawing comes out as it went in, in our spelling', async (t) => {
  const out = sanitiseSvg(svg('<g transform="translate(1 1)"><path d="M0 0L5 5Z" fill="#123456" stroke-width="2"/><circle cx="5" cy="5" r="2" fill-opacity=".5"/></g>'))
  t.equal(out, '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g transform="translate(1 1)"><path d="M0 0L5 5Z" fill="#123456" stroke-width="2"></path><circle cx="5" cy="5" r="2" fill-opacity=".5"></circle></g></svg>')
  t.match(await sharp(Buffer.from(out)).metadata(), { format: 'svg' })
})

t.test('every way to run or load something is dropped', async (t) => {
  const cases: Array<[string, string]> = [
    ['script', '<script>alert(1)</script>'],
    ['script in CDATA', '<script><![CDATA[alert(1)]]></script>'],
    ['an event attribute in any case', '<rect width="1" height="1" ONLOAD="alert(1)" onBegin="alert(1)"/>'],
    ['javascript: in an href', '<a xlink:href="javascript:alert(1)"><rect width="1" height="1"/></a>'],
    ['an external use', '<use href="https://evil.example/s.svg#x"/>'],
    ['an external use via xlink', '<use xlink:href="//evil.example/s.svg#x"/>'],
    ['a data: use', '<use href="data:image/svg+xml,&lt;svg/&gt;"/>'],
    ['a remote image', '<image href="https://evil.example/p.png"/>'],
    ['foreignObject', '<foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example"/></foreignObject>'],
    ['a style element', '<style>@import url(https://evil.example/x.css);</style>'],
    ['a url() fill', '<rect width="1" height="1" fill="url(https://evil.example/#g)"/>'],
    ['a url() in style', '<rect width="1" height="1" style="fill:url(https://evil.example/a)"/>'],
    ['an escaped url() in style', '<rect width="1" height="1" style="fill:u\\72l(https://evil.example/a)"/>'],
    ['an animation setting an href', '<animate attributeName="href" to="javascript:alert(1)"/>'],
    ['a filter image', '<filter id="f"><feImage href="https://evil.example/p.png"/></filter>'],
    ['an HTML element', '<div xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></div>'],
    ['a processing instruction', '<?xml-stylesheet href="https://evil.example/x.css"?>'],
  ]
  for (const [what, body] of cases) {
    const out = sanitiseSvg(svg(body))
    t.notMatch(out, /script|alert|evil\.example|javascript|data:|onload|onbegin|foreignObject|<image|<style|<animate|<filter|<feImage|<div|xml-stylesheet|\\72/i, what)
  }
})

t.test('references inside the document stay', async (t) => {
  const out = sanitiseSvg(svg('<defs><linearGradient id="g" xlink:href="#h"><stop offset="0" stop-color="red"/></linearGradient><clipPath id="c"><rect width="5" height="5"/></clipPath></defs><rect width="9" height="9" fill="url(#g)" clip-path="url(#c)" style="stroke:url(#g);opacity:0.5"/><use xlink:href="#c"/>'))
  t.match(out, '<linearGradient id="g" href="#h">')
  t.match(out, 'fill="url(#g)" clip-path="url(#c)" style="stroke:url(#g);opacity:0.5"')
  t.match(out, '<use href="#c"></use>')
})

t.test('text is kept where it is text, escaped', async (t) => {
  const out = sanitiseSvg(svg('<title>A &amp; B &lt;script&gt;</title><text x="1" y="9" xml:space="preserve">x<tspan>&lt;y&gt;</tspan></text>loose text'))
  t.match(out, '<title>A &amp; B &lt;script&gt;</title>')
  t.match(out, '<text x="1" y="9" xml:space="preserve">x<tspan>&lt;y&gt;</tspan></text>')
  t.notMatch(out, 'loose text', 'text outside text elements is not drawn: dropped')
})

t.test('what is refused', async (t) => {
  const refused: Array<[string, string]> = [
    ['not XML', 'hello'],
    ['unclosed', '<svg xmlns="http://www.w3.org/2000/svg"><g>'],
    ['a DOCTYPE', '<!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg"/>'],
    ['billion laughs', '<!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>'],
    ['an undefined entity', '<svg xmlns="http://www.w3.org/2000/svg"><text>&nbsp;</text></svg>'],
    ['no SVG namespace', '<svg><rect/></svg>'],
    ['another root', '<html xmlns="http://www.w3.org/1999/xhtml"/>'],
    ['too deep', `<svg xmlns="http://www.w3.org/2000/svg">${'<g>'.repeat(100)}${'</g>'.repeat(100)}</svg>`],
  ]
  for (const [what, source] of refused) {
    t.throws(() => sanitiseSvg(source), { name: 'SvgRefused' }, what)
    t.ok((() => {
      try {
        sanitiseSvg(source)
      } catch (error) {
        return error instanceof SvgRefused
      }
      return false
    })(), `${what}: an SvgRefused`)
  }
})

t.test('the srcset widths: those not wider than the upload, or its own alone', async (t) => {
  t.same(screenshotWidths(2000), [280, 560, 840, 1120, 1400, 1680])
  t.same(screenshotWidths(1680), [280, 560, 840, 1120, 1400, 1680])
  t.same(screenshotWidths(1000), [280, 560, 840])
  t.same(screenshotWidths(280), [280])
  t.same(screenshotWidths(100), [100])
})
