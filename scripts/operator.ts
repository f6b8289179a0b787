// What the operator commands share: reading the config, and asking the running API through its
// /internal endpoints (PGlite cannot be opened by two processes) before touching the database.
import { ConfigError, loadConfig, type Config } from '../server/config.ts'
import { readEmbeddedOperatorToken } from '../server/operator-token.ts'

export function fail(message: string, code = 1): never {
  console.error(message)
  process.exit(code)
}

export function operatorConfig(): Config {
  try {
    return loadConfig(process.env)
  } catch (error) {
    fail(error instanceof ConfigError ? error.message : String(error))
  }
}

export function apiBase(config: Config): string {
  return `http://${config.apiHost === '0.0.0.0' ? '127.0.0.1' : config.apiHost}:${config.apiPort}`
}

export function operatorToken(config: Config): string | undefined {
  return config.operatorToken ?? readEmbeddedOperatorToken(config.dataDir) ?? undefined
}

/**
 * Calls an /internal endpoint of the running API with the operator token. Answers undefined when
 * no API listens (the caller opens the database itself); a refusal ends the command.
 */
export async function internalCall<T>(config: Config, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, timeoutMs = 5_000): Promise<T | undefined> {
  const token = operatorToken(config)
  let response: Response
  try {
    if (!token) {
      await fetch(`${apiBase(config)}/api/version`, { signal: AbortSignal.timeout(5_000) })
      // A running API and no token to change it with: say so rather than touch its database.
      fail('No operator token: set OPERATOR_TOKEN, or run this on the machine whose DATA_DIR the server uses.')
    }
    response = await fetch(`${apiBase(config)}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') return undefined
    throw error
  }
  const answer = (await response.json().catch(() => ({}))) as T & { message?: string }
  if (!response.ok) fail(`The API refused: ${answer.message ?? `HTTP ${response.status}`}`)
  return answer
}
