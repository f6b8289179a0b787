// The raw cost of one server-rendered page: the built SSR entry's render() in a loop, no HTTP, no
// headers, no compression, no template. Runs in its own process (forked by bench.ts) so it has an
// event loop to itself. `bench-render <apiPort> <pagePath> <seconds>`: the API answers the page's
// requests once; the loop then replays them from memory. Sends the figures to the parent over IPC.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadLocaleCatalog } from '../server/bff/locales.ts'
import { catalogueLogos } from '../server/bff/logos/logo-set.ts'
import { projectRoot } from '../server/build-info.ts'
import { loadConfig, publicConfig } from '../server/config.ts'
import type { ClientConfig, RenderInput, RenderResult, ServerApi } from '../shared/web/ssr-contract.ts'

export interface RenderFigures {
  renders: number
  seconds: number
  perSecond: number
  meanMs: number
  p99Ms: number
  htmlBytes: number
  status: number
  apiPaths: string[]
}

const [apiPort, pagePath = '/library', secondsArg = '5'] = process.argv.slice(2)
const root = projectRoot()
const { render } = (await import(pathToFileURL(path.join(root, 'dist', 'ssr', 'entry-server.js')).href)) as {
  render: (input: RenderInput) => Promise<RenderResult>
}
const catalog = loadLocaleCatalog(root)
const config = loadConfig({ NODE_ENV: 'production' })
const clientConfig: ClientConfig = { ...publicConfig(config), localesHash: catalog.hash, logosVersion: catalogueLogos().version }

// The first render records each API answer as text; later renders parse it again, as the BFF
// parses every upstream body, so only the network is left out.
const recorded = new Map<string, { status: number; text: string }>()
const live: ServerApi = {
  async get(apiPath) {
    const response = await fetch(`http://127.0.0.1:${apiPort}${apiPath}`, { headers: { accept: 'application/json', 'accept-language': 'en' } })
    const text = await response.text()
    recorded.set(apiPath, { status: response.status, text })
    return { status: response.status, body: JSON.parse(text) }
  },
}
const replay: ServerApi = {
  async get(apiPath) {
    const hit = recorded.get(apiPath)
    if (!hit) throw new Error(`render asked for ${apiPath}, which the first render did not`)
    return { status: hit.status, body: JSON.parse(hit.text) }
  },
}

function input(api: ServerApi): RenderInput {
  return {
    url: `${config.appUrl}${pagePath}`,
    headers: { host: new URL(config.appUrl).host, accept: 'text/html', 'user-agent': 'softshelf-bench' },
    locale: 'en',
    resources: catalog.resources.en,
    nonce: '0123456789abcdef0123456789abcdef',
    api,
    session: { state: 'LOGGED_OUT' },
    consent: null,
    config: clientConfig,
  }
}

const first = await render(input(live))
if (first.kind !== 'page') throw new Error(`${pagePath} redirected to ${first.location}`)

async function loop(ms: number): Promise<number[]> {
  const times: number[] = []
  const end = performance.now() + ms
  while (performance.now() < end) {
    const start = performance.now()
    await render(input(replay))
    times.push(performance.now() - start)
  }
  return times
}

await loop(2_000)
const seconds = Number(secondsArg)
const times = await loop(seconds * 1000)
times.sort((a, b) => a - b)
const total = times.reduce((sum, t) => sum + t, 0)
const figures: RenderFigures = {
  renders: times.length,
  seconds,
  perSecond: times.length / seconds,
  meanMs: total / times.length,
  p99Ms: times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)] ?? 0,
  htmlBytes: Buffer.byteLength(first.html) + Buffer.byteLength(first.head) + Buffer.byteLength(first.scripts),
  status: first.status,
  apiPaths: [...recorded.keys()],
}
if (process.send) process.send(figures, () => process.exit(0))
else console.log(figures)
