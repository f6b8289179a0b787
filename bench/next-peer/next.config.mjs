import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))

/** The peer as a plain production Next.js app, its own root (the repository's lock file is not its). */
export default {
  poweredByHeader: false,
  images: { unoptimized: true },
  typescript: { ignoreBuildErrors: true },
  outputFileTracingRoot: here,
  turbopack: { root: here },
}
