import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
// @ts-expect-error a plain .mjs module of the test runner, without types
import { BUNDLE_DIR, bundleOf, bundleTests, testFiles } from '../../scripts/test-bundle.mjs'
import { root } from '../helpers.ts'

// npm test runs every tap file as a bundle on plain Node (scripts/test-bundle.mjs): a bundle must
// see what its sources see — their own import.meta, packages from node_modules, class names — and
// its stack traces must lead back to the sources.

t.test('a bundle sees its sources\' own locations, packages and names; its stack leads to the source', async (t) => {
  // Below the project, as the real bundles are, so that packages resolve from node_modules.
  const fixture = fs.mkdtempSync(path.join(root, 'node_modules', '.cache', 'bundle-test-'))
  t.teardown(() => fs.rmSync(fixture, { recursive: true, force: true }))
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(fixture, file)), { recursive: true })
    fs.writeFileSync(path.join(fixture, file), text)
  }
  write('lib/one.ts', 'export class Thing {}\nexport const where = { url: import.meta.url, dirname: import.meta.dirname, filename: import.meta.filename }\n')
  write('lib/two.ts', 'export class Thing {}\n')
  write(
    'test/unit/a.test.ts',
    [
      "import { parse } from 'yaml'",
      "import { Type } from 'typebox'",
      "import { Thing as One, where } from '../../lib/one.ts'",
      "import { Thing as Two } from '../../lib/two.ts'",
      'const own: string = import.meta.url',
      "console.log(JSON.stringify({ where, own, names: [One.name, Two.name], parsed: parse('a: 1'), schema: Type.String(), stack: new Error('here').stack }))",
      '',
    ].join('\n'),
  )
  write('test/unit/b.test.ts', "import { Type } from 'typebox'\nimport { Thing } from '../../lib/two.ts'\nconsole.log(JSON.stringify({ name: Thing.name, schema: Type.Number() }))\n")
  t.same(testFiles(fixture, ['test/unit', 'test/missing']), ['test/unit/a.test.ts', 'test/unit/b.test.ts'], 'the test files, from the folders that exist')
  const [bundle, other] = (await bundleTests(fixture, ['test/unit/a.test.ts', 'test/unit/b.test.ts'])) as string[]
  t.equal(bundle, bundleOf('test/unit/a.test.ts'))

  const run = spawnSync(process.execPath, ['--enable-source-maps', path.join(fixture, bundle!)], { encoding: 'utf8', timeout: 30_000 })
  t.equal(run.status, 0, run.stderr)
  const seen = JSON.parse(run.stdout) as { where: Record<string, string>; own: string; names: string[]; parsed: unknown; stack: string }
  const one = path.join(fixture, 'lib', 'one.ts')
  t.same(seen.where, { url: pathToFileURL(one).href, dirname: path.dirname(one), filename: one }, 'import.meta is the source\'s, not the bundle\'s')
  t.equal(seen.own, pathToFileURL(path.join(fixture, 'test', 'unit', 'a.test.ts')).href)
  t.same(seen.names, ['Thing', 'Thing'], 'two classes of one name keep it')
  t.same(seen.parsed, { a: 1 }, 'a package resolves from node_modules')
  t.match(seen.stack, /a\.test\.ts:6:/, 'a stack trace points at the source line')
  t.match(seen, { schema: { type: 'string' } }, 'an inlined package works')

  // typebox is compiled in, into a chunk both files share; yaml stays an import from node_modules.
  const out = path.join(fixture, BUNDLE_DIR as string)
  const written = fs.readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.mjs'))
  const text = written.map((file) => fs.readFileSync(path.join(out, file), 'utf8')).join('\n')
  t.match(text, /from "yaml"/, 'a package outside the list stays an import')
  t.notMatch(text, /from "typebox"/, 'an inlined package is not imported from node_modules')
  t.ok(written.some((file) => /^chunk-/.test(path.basename(file))), 'shared code is in a chunk of its own')
  const second = spawnSync(process.execPath, ['--enable-source-maps', path.join(fixture, other!)], { encoding: 'utf8', timeout: 30_000 })
  t.equal(second.status, 0, second.stderr)
  t.same(JSON.parse(second.stdout), { name: 'Thing', schema: { type: 'number' } }, 'the second file runs on the shared chunks')
})
