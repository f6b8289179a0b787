import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/**
 * The token operator commands present to the API's /internal endpoints. OPERATOR_TOKEN wins;
 * embedded mode keeps a generated one under DATA_DIR, readable by the owner only.
 */
export function embeddedOperatorToken(dataDir: string): string {
  const file = path.join(dataDir, 'operator-token')
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim()
  fs.mkdirSync(dataDir, { recursive: true })
  const token = randomBytes(32).toString('base64url')
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 })
  return token
}

export function readEmbeddedOperatorToken(dataDir: string): string | undefined {
  const file = path.join(dataDir, 'operator-token')
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined
}
