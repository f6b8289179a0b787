import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { build, createLogger, type InlineConfig } from 'vite'

// The build printed four INEFFECTIVE_DYNAMIC_IMPORT warnings. A dynamic import is there to
// move code out of the browser's first load and must do it; one that a static import elsewhere keeps
// in place now fails the build (vite.config.ts), and the project's two bundles build without it.
// Each build here is the real one (rolldown is quick) into a temporary directory; nothing is written
// under dist/.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

async function viteBuild(t: Test, overrides: InlineConfig['build']): Promise<{ warnings: string[] }> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-build-'))
  t.teardown(() => fs.rmSync(outDir, { recursive: true, force: true }))
  const warnings: string[] = []
  const logger = createLogger('warn', { allowClearScreen: false })
  logger.warn = (message) => void warnings.push(message)
  logger.warnOnce = (message) => void warnings.push(message)
  logger.info = () => {}
  logger.error = () => {}
  await build({ root, configFile: path.join(root, 'vite.config.ts'), customLogger: logger, logLevel: 'warn', build: { outDir, ...overrides } })
  return { warnings }
}

t.test('the browser bundle builds with no ineffective dynamic import', async (t) => {
  const { warnings } = await viteBuild(t, {})
  t.same(warnings.filter((w) => w.includes('INEFFECTIVE_DYNAMIC_IMPORT')), [])
})

t.test('the server-rendering bundle builds with no ineffective dynamic import', async (t) => {
  const { warnings } = await viteBuild(t, { ssr: 'client/entry-server.tsx' })
  t.same(warnings.filter((w) => w.includes('INEFFECTIVE_DYNAMIC_IMPORT')), [])
})

t.test('a dynamic import that a static import defeats fails the build', async (t) => {
  const fixture = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-fixture-'))
  t.teardown(() => fs.rmSync(fixture, { recursive: true, force: true }))
  fs.writeFileSync(path.join(fixture, 'late.ts'), 'export const late = 1\n')
  fs.writeFileSync(path.join(fixture, 'entry.ts'), "import { late } from './late.ts'\nexport const both = [late, import('./late.ts')]\n")
  await t.rejects(viteBuild(t, { rolldownOptions: { input: path.join(fixture, 'entry.ts') } }), /INEFFECTIVE_DYNAMIC_IMPORT|dynamic import will not move module/)
})
