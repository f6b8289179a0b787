// Copies Softshelf's stylesheet into the app before `next build`: the peer serves the same CSS.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
fs.copyFileSync(path.join(here, '..', '..', 'client', 'styles.css'), path.join(here, 'app', 'styles.css'))
