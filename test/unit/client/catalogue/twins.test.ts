import { matchRoutes } from 'react-router'
import t from 'tap'
import { routes } from '../../../../client/routes.tsx'
import { SIGNED_IN_TWINS, routeName, signedInHome, signedInLink, signedInTwin } from '../../../../client/lib/catalogue/twins.ts'

// Every public catalogue page has a signed-in twin under /@ carrying path and query, and
// the mapping agrees with the router for every spelling the router accepts — checked against the
// whole route table (guards, layouts and all) with React Router's matcher.

const APP = 'http://app.test'

/** The deepest route React Router renders for a path, and its parameters. */
function leaf(pathname: string): { path: string | undefined; id: string | undefined; group: string[]; params: Record<string, string | undefined> } | null {
  const matches = matchRoutes(routes, pathname)
  if (!matches) return null
  const last = matches.at(-1)!
  return { path: last.route.path, id: last.route.id, group: matches.map((match) => match.route.id ?? ''), params: last.params }
}

const spellings = [
  '/library',
  '/library/',
  '/library//',
  '/LIBRARY',
  '/Library/',
  '/%6Cibrary',
  '/programs/blender',
  '/programs/blender/',
  '/Programs/Blender',
  '/programs/a%2Fb',
  '/programs/%E2%9C%93',
  '/programs/%E0',
  '/category/3d',
  '/CATEGORY/3d/',
  '/developer/blender-foundation',
  '/developer/blender%20foundation',
  '/publisher/blender-foundation',
  '/Publisher/blender-foundation//',
  '/license-type/open-source',
  '/LICENSE-TYPE/freeware/',
  '/files',
  '/Files/',
  // Spellings the router does not take as catalogue pages: never a twin.
  '/',
  '//library',
  '/library/x',
  '/library%2F',
  '/library/..%2F..',
  '/programs',
  '/programs/',
  '/programs//blender',
  '/programs/a/b',
  '/files/x',
  '/publisher',
  '/welcome',
  '/terms',
  '/sharing/abc',
  '/@/programs',
  '//evil.com',
  '//evil.com/library',
  '/\\evil.com',
]

t.test('the twin of every spelling the router matches as a public catalogue page is that page under /@, with the same parameters', async (t) => {
  const publicPaths = new Set(SIGNED_IN_TWINS.map((page) => page.path))
  let twins = 0
  for (const spelling of spellings) {
    const route = leaf(spelling)
    const twin = signedInTwin(spelling, '?q=x&sort=nameAsc')
    if (route?.path !== undefined && publicPaths.has(route.path) && route.group.includes('public')) {
      twins++
      const page = SIGNED_IN_TWINS.find((entry) => entry.path === route.path)!
      t.ok(twin, `${spelling} has a twin`)
      const url = new URL(twin!, APP)
      t.equal(url.origin, APP, `${spelling}: on this origin`)
      t.equal(url.search, '?q=x&sort=nameAsc', `${spelling}: the query goes along`)
      const twinRoute = leaf(url.pathname)
      t.equal(twinRoute?.path, page.twin, `${spelling} → ${twin}: the router renders the twin`)
      t.ok(twinRoute?.group.includes('signed-in'), `${spelling}: the twin is a protected page`)
      t.same(twinRoute?.params, route.params, `${spelling}: with the same parameters`)
    } else {
      t.equal(twin, null, `${spelling}: not a public catalogue page, no twin`)
    }
  }
  t.ok(twins >= 22, 'the spellings above reach every page')
})

t.test('the route table has a public page and a named twin for every entry of the list', async (t) => {
  for (const page of SIGNED_IN_TWINS) {
    const example = (pattern: string) => `/${pattern.replace(/:[A-Za-z]+/g, 'x')}`
    const publicRoute = leaf(example(page.path))
    t.equal(publicRoute?.path, page.path, page.path)
    t.ok(publicRoute?.group.includes('public'), `${page.path}: public, so the guard sends a signed-in user on`)
    const twinRoute = leaf(example(page.twin))
    t.equal(twinRoute?.path, page.twin, page.twin)
    t.equal(twinRoute?.id, routeName(page.twin), `${page.twin}: named like spec §2's routes`)
  }
  t.same(
    SIGNED_IN_TWINS.map((page) => routeName(page.twin)),
    ['@-programs', '@-programs-programId', '@-category-categoryId', '@-developer-developerId', '@-publisher-publisherId', '@-license-type-licenseType', '@-files', '@-compare'],
  )
})

t.test('a signed-in user on a public page goes to its twin, path and query (issue 15 item 2)', async (t) => {
  t.equal(signedInHome('/library', '?q=x&sort=nameAsc'), '/@/programs?q=x&sort=nameAsc')
  t.equal(signedInHome('/library/', '?q=gimp'), '/@/programs?q=gimp')
  t.equal(signedInHome('/LIBRARY', '?q=gimp'), '/@/programs?q=gimp')
  t.equal(signedInHome('/programs/x'), '/@/programs/x')
  t.equal(signedInHome('/category/c', '?page=2'), '/@/category/c?page=2')
  t.equal(signedInHome('/developer/d'), '/@/developer/d')
  t.equal(signedInHome('/publisher/p', '?price=free'), '/@/publisher/p?price=free')
  t.equal(signedInHome('/license-type/l'), '/@/license-type/l')
  t.equal(signedInHome('/files'), '/@/files')
  // A comparison's twin keeps its programs.
  t.equal(signedInHome('/compare', '?programs=a,b'), '/@/compare?programs=a,b')
  t.equal(signedInHome('/files/'), '/@/files', 'issue 12: the drive is the twin of its public page')
  t.equal(signedInHome('/developer/adobe/'), '/@/developer/adobe')
  t.equal(signedInHome('/Publisher/P/'), '/@/publisher/P', 'literals as the router writes them, the parameter as it came')
  t.equal(signedInHome('/developer/a%2Fb'), '/@/developer/a%2Fb', 'an encoded slash stays inside its segment')
  for (const path of ['/', '/welcome', '/check-email', '/programs', '/library/x', '/sharing/abc']) t.equal(signedInHome(path, '?q=1'), '/@', path)
})

t.test('never an open redirect, whatever the path holds', async (t) => {
  const hostile = ['//evil.com', '/\\evil.com', '/\\/evil.com', '//evil.com/library', '/library/..%2F..', '/programs/%2F%2Fevil.com', '/programs/\\evil.com', '/developer/%5C%5Cevil.com', '/publisher/..', '/files/..%2f..%2fevil.com', 'https://evil.com/library', 'evil.com/library', '/%2F%2Fevil.com/library']
  for (const path of hostile) {
    for (const search of ['', '?q=//evil.com', '?next=https://evil.com']) {
      const target = signedInHome(path, search)
      t.ok(target === '/@' || target.startsWith('/@/') || target.startsWith('/@?'), `${path}${search} → ${target}`)
      t.equal(new URL(target, APP).origin, APP, `${path}${search}: stays on this origin`)
      t.notOk(/\\/.test(target), `${path}: no backslash, which a browser reads as a slash`)
    }
  }
  t.equal(signedInTwin('/programs/\\evil.com'), '/@/programs/%5Cevil.com')
})

t.test('links on a signed-in page: public catalogue paths become their twins, everything else stays', async (t) => {
  t.equal(signedInLink('/programs/blender'), '/@/programs/blender')
  t.equal(signedInLink('/publisher/blender-foundation'), '/@/publisher/blender-foundation')
  t.equal(signedInLink('/license-type/open-source'), '/@/license-type/open-source')
  t.equal(signedInLink('/library?q=gimp&sort=nameAsc'), '/@/programs?q=gimp&sort=nameAsc')
  t.equal(signedInLink('/category/3d#top'), '/@/category/3d#top')
  t.equal(signedInLink('/'), '/@', 'home is the signed-in home')
  for (const to of ['/terms', '/privacy', '/cookie', '/streaming', '/@/library', '/@/programs/blender', '/login']) t.equal(signedInLink(to), to, to)
})
