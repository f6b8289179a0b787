import http from 'node:http'
import type { AddressInfo } from 'node:net'

// A local stand-in for the error tracker's ingest endpoint, on loopback: it accepts envelopes at
// POST /api/<project>/envelope/ as Sentry does, keeps them, and answers GET /envelopes with what it
// got (the browser tests read it there). The tap tests and the browser tests point SENTRY_DSN at it:
// http://<key>@127.0.0.1:<port>/<project>. Nothing reaches sentry.io.

export interface EnvelopeItem {
  header: Record<string, unknown>
  payload: unknown
}

export interface ReceivedEnvelope {
  path: string
  header: Record<string, unknown>
  items: EnvelopeItem[]
  /** The bytes as received, for canary checks. */
  raw: string
}

/** The payload of a Sentry error event, as far as the tests read it. */
export interface SinkEvent {
  event_id?: string
  release?: string
  environment?: string
  tags?: Record<string, string>
  exception?: { values?: Array<{ type?: string; value?: string }> }
  request?: { url?: string; method?: string; headers?: Record<string, string> }
}

/** An envelope: a JSON header line, then item header and payload pairs. */
export function parseEnvelope(path: string, raw: string): ReceivedEnvelope {
  const lines = raw.split('\n')
  const header = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>
  const items: EnvelopeItem[] = []
  for (let i = 1; i < lines.length && lines[i]; i += 2) {
    const itemHeader = JSON.parse(lines[i]!) as Record<string, unknown>
    const body = lines[i + 1] ?? ''
    let payload: unknown = body
    try {
      payload = JSON.parse(body)
    } catch {
      // Attachments need not be JSON.
    }
    items.push({ header: itemHeader, payload })
  }
  return { path, header, items, raw }
}

export interface SentrySink {
  port: number
  /** A DSN for this sink; another key or project makes a foreign one. */
  dsn(key?: string, project?: number): string
  envelopes: ReceivedEnvelope[]
  /** The error events received so far. */
  events(): SinkEvent[]
  /** Resolves with the first event (received or still to come) that matches. */
  waitForEvent(match: (event: SinkEvent) => boolean): Promise<SinkEvent>
  close(): Promise<void>
}

export function eventsOf(envelopes: ReceivedEnvelope[]): SinkEvent[] {
  return envelopes.flatMap((envelope) => envelope.items.filter((item) => item.header.type === 'event').map((item) => item.payload as SinkEvent))
}

export async function startSentrySink(port = 0): Promise<SentrySink> {
  const envelopes: ReceivedEnvelope[] = []
  const waiters = new Set<() => void>()
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (request.method === 'GET' && url.pathname === '/healthz') return response.end('ok')
    if (request.method === 'GET' && url.pathname === '/envelopes') {
      response.setHeader('content-type', 'application/json')
      return response.end(JSON.stringify(envelopes))
    }
    if (request.method !== 'POST' || !/^\/api\/\d+\/envelope\/$/.test(url.pathname)) return response.writeHead(404).end()
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      envelopes.push(parseEnvelope(url.pathname, Buffer.concat(chunks).toString('utf8')))
      for (const waiter of waiters) waiter()
      response.setHeader('content-type', 'application/json')
      response.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const actualPort = (server.address() as AddressInfo).port
  return {
    port: actualPort,
    dsn: (key = 'sinkpublickey', project = 1) => `http://${key}@127.0.0.1:${actualPort}/${project}`,
    envelopes,
    events: () => eventsOf(envelopes),
    waitForEvent(match) {
      return new Promise((resolve) => {
        const check = () => {
          const found = eventsOf(envelopes).find(match)
          if (!found) return
          waiters.delete(check)
          resolve(found)
        }
        waiters.add(check)
        check()
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
