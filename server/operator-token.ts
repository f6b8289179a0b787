import { randomBytes, timingSafeEqual } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/**
 * A secret of embedded mode, generated once and kept under DATA_DIR, readable by the owner only.
 * With a real database (DATABASE_URL) secrets come from the environment instead.
 */
export function embeddedSecret(dataDir: string, name: string, encoding: 'base64url' | 'hex' = 'base64url'): string {
  const file = path.join(dataDir, name)
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim()
  fs.mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32).toString(encoding)
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 })
  return secret
}

/** The token operator commands present to the API's /internal endpoints. OPERATOR_TOKEN wins. */
export function embeddedOperatorToken(dataDir: string): string {
  return embeddedSecret(dataDir, 'operator-token')
}

export function readEmbeddedOperatorToken(dataDir: string): string | undefined {
  const file = path.join(dataDir, 'operator-token')
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined
}

/** Whether an `Authorization` header is `Bearer <expected>`, compared in constant time. */
export function bearerMatches(expected: string | undefined, header: string | undefined): boolean {
  if (!expected || !header?.startsWith('Bearer ')) return false
  const given = Buffer.from(header.slice(7))
  const wanted = Buffer.from(expected)
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}
