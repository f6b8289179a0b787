import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { DELETION_REASONS } from '../../../shared/account/profile.ts'
import { ACCOUNT_DELETION_REASONS, BREAKPOINTS, FRONTEND_VERSION } from '../../../shared/constants.ts'
import { root } from '../../helpers.ts'

// The spec's constants (§9) that no code reads at run time, held to what does: the package's
// version, the stylesheet's media queries, the deletion form's reasons.

t.test("the frontend version is the package's, which the running build reports (with its build id)", async (t) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }
  t.equal(pkg.version, FRONTEND_VERSION)
})

t.test("every media query of the stylesheet is at one of the spec's breakpoints", async (t) => {
  const css = fs.readFileSync(path.join(root, 'client', 'styles.css'), 'utf8')
  const queries = [...css.matchAll(/@media\s*\(\s*(min|max)-width:\s*(\d+)px\s*\)/g)].map(([, side, px]) => ({ side: side as 'min' | 'max', px: Number(px) }))
  t.ok(queries.length > 10, `${queries.length} width queries read`)
  const at = new Set<number>(Object.values(BREAKPOINTS))
  // The one query below the smallest breakpoint: phones narrower than 360 px (320 px ones) squeeze the header.
  const SMALLEST_PHONES = 359
  for (const { side, px } of queries) {
    const ok = side === 'min' ? at.has(px) : at.has(px + 1) || px === SMALLEST_PHONES
    t.ok(ok, `${side}-width: ${px}px ${side === 'min' ? 'is a breakpoint' : 'ends just below a breakpoint'}`)
  }
})

t.test("the deletion form offers the spec's reasons, in its order, under their English labels", async (t) => {
  const profile = JSON.parse(fs.readFileSync(path.join(root, 'locales', 'en', 'profile.json'), 'utf8')) as { deletion: { reasons: Record<string, string> } }
  t.same(
    DELETION_REASONS.map((id) => profile.deletion.reasons[id]?.toLowerCase()),
    [...ACCOUNT_DELETION_REASONS],
  )
})
