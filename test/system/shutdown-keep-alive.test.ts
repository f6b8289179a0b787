import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import t from 'tap'
import { root, tempDir } from '../helpers.ts'
import { exited, startApp } from './support.ts'

// Shutdown: clients that keep their connections alive across a SIGTERM. Before, a
// request sent on an open connection after the signal got Fastify's bare
// {"error":"Service Unavailable",…} (no code, no request id), answers in flight kept the
// connection open, and requests written on idle connections were reset. Now every request is
// answered — normally if it was in flight, else 503 in the service's error shape with
// Retry-After and Connection: close — or its connection was closed cleanly (FIN, no byte of an
// answer) before the service read it, which a client may retry elsewhere; never a reset.
// Raw sockets, so every byte and the order of FIN and write are seen. Needs dist/.

/** Events of every connection, numbered in the order this process saw them. */
let sequence = 0

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

/** The complete answers at the start of `bytes` (1xx skipped); a body without a length ends at the FIN. */
function parseAnswers(bytes: Buffer, ended: boolean): Answer[] {
  const answers: Answer[] = []
  let offset = 0
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', offset)
    if (headEnd === -1) return answers
    const [statusLine, ...fields] = bytes.subarray(offset, headEnd).toString('latin1').split('\r\n')
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)?.[1])
    const headers: Record<string, string> = {}
    for (const field of fields) {
      const colon = field.indexOf(':')
      headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim()
    }
    let bodyStart = headEnd + 4
    if (status >= 100 && status < 200) {
      offset = bodyStart
      continue
    }
    let body: Buffer
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length'])
      if (bytes.length < bodyStart + length) return answers
      body = bytes.subarray(bodyStart, bodyStart + length)
      offset = bodyStart + length
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const chunks: Buffer[] = []
      for (;;) {
        const lineEnd = bytes.indexOf('\r\n', bodyStart)
        if (lineEnd === -1) return answers
        const size = parseInt(bytes.subarray(bodyStart, lineEnd).toString('latin1'), 16)
        if (bytes.length < lineEnd + 2 + size + 2) return answers
        chunks.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size))
        bodyStart = lineEnd + 2 + size + 2
        if (size === 0) break
      }
      body = Buffer.concat(chunks)
      offset = bodyStart
    } else {
      if (!ended) return answers
      body = bytes.subarray(bodyStart)
      offset = bytes.length
    }
    answers.push({ status, headers, body: body.toString('utf8') })
  }
}

/** One HTTP/1.1 connection over a raw socket, kept alive; what happened on it, in order. */
class Connection {
  private bytes = Buffer.alloc(0)
  private readonly changed = new Set<() => void>()
  /** When the peer's FIN arrived (a sequence number). */
  finAt: number | undefined
  /** When this side last wrote. */
  sentAt: number | undefined
  /** A socket error: ECONNRESET, EPIPE … — what must never happen. */
  error: string | undefined
  closed = false

  private constructor(
    readonly name: string,
    private readonly socket: net.Socket,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.bytes = Buffer.concat([this.bytes, chunk])
      this.notify()
    })
    socket.on('end', () => {
      this.finAt = ++sequence
      this.notify()
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.error = error.code ?? error.message
      this.notify()
    })
    socket.on('close', () => {
      this.closed = true
      this.notify()
    })
  }

  static open(name: string, port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port })
      socket.once('connect', () => resolve(new Connection(name, socket)))
      socket.once('error', reject)
    })
  }

  get answers(): Answer[] {
    return parseAnswers(this.bytes, this.finAt !== undefined)
  }

  send(text: string): void {
    this.sentAt = ++sequence
    this.socket.write(text)
  }

  /** Resolves with what `check` finds, re-checked at each event of the socket; rejects after `ms`. */
  until<T>(what: string, check: () => T | undefined, ms = 15_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const found = check()
        if (found === undefined) return
        done()
        resolve(found)
      }
      const timer = setTimeout(() => {
        done()
        reject(new Error(`${this.name}: ${what} within ${ms} ms (fin ${this.finAt ?? 'none'}, error ${this.error ?? 'none'}, ${this.bytes.length} bytes)`))
      }, ms)
      const done = () => {
        clearTimeout(timer)
        this.changed.delete(attempt)
      }
      this.changed.add(attempt)
      attempt()
    })
  }

  async answer(index: number): Promise<Answer> {
    const found = await this.until(`answer ${index + 1}`, () => this.answers[index] ?? (this.closed ? null : undefined))
    if (found === null) throw new Error(`${this.name}: closed before answer ${index + 1} (error ${this.error ?? 'none'})`)
    return found
  }

  fin(): Promise<number> {
    return this.until('a FIN', () => this.finAt)
  }

  gone(): Promise<true> {
    return this.until('closed', () => (this.closed ? true : undefined))
  }

  destroy(): void {
    this.socket.destroy()
  }

  private notify(): void {
    for (const listener of [...this.changed]) listener()
  }
}

/** A request as a client writes it. */
function request(method: string, target: string, host: string, headers: Record<string, string> = {}, body?: string): string {
  const head = [`${method} ${target} HTTP/1.1`, `host: ${host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)]
  if (body !== undefined) head.push(`content-length: ${Buffer.byteLength(body)}`)
  return `${head.join('\r\n')}\r\n\r\n${body ?? ''}`
}

t.test('SIGTERM with kept-alive connections: every request is answered, or its connection closed cleanly before it was read', async (t) => {
  const dataDir = tempDir(t)
  const app = await startApp(t, dataDir, { LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '10000' }, { log: true })
  const bffPort = Number(app.env.PORT)
  const apiPort = Number(app.env.API_PORT)
  const corePort = Number(app.env.AUTH_CORE_PORT)
  const bffHost = new URL(app.env.APP_URL!).host
  const signIn = (email: string) =>
    request(
      'POST',
      '/auth/signin',
      bffHost,
      { rid: 'anti-csrf', 'fdi-version': '4.2', origin: app.origin, 'content-type': 'application/json', accept: 'application/json' },
      JSON.stringify({ formFields: [{ id: 'email', value: email }, { id: 'password', value: 'not the password' }] }),
    )
  const german = JSON.parse(fs.readFileSync(path.join(root, 'locales', 'de', 'common.json'), 'utf8')) as { errors: { restarting?: { title: string } } }

  // Every connection has been used once and kept alive: a client reusing its pool.
  const opened: Connection[] = []
  const open = async (name: string, port: number, host: string, probe = '/healthz') => {
    const connection = await Connection.open(name, port)
    opened.push(connection)
    connection.send(request('GET', probe, host))
    const first = await connection.answer(0)
    t.equal(first.status, 200, `${name}: the first request is answered`)
    t.equal(first.headers.connection, 'keep-alive', `${name}: and the connection kept alive`)
    return connection
  }
  t.teardown(() => opened.forEach((connection) => connection.destroy()))

  const idle = [await open('bff idle 1', bffPort, bffHost), await open('bff idle 2', bffPort, bffHost)]
  // Idle at the signal; a request written on each as soon as the process says it is shutting down.
  const writeAfter = [
    { connection: await open('bff write after 1', bffPort, bffHost), text: signIn('after1@example.com') },
    { connection: await open('bff write after 2', bffPort, bffHost), text: signIn('after2@example.com') },
    { connection: await open('bff write after 3', bffPort, bffHost), text: request('GET', '/api/version', bffHost, { accept: 'application/json' }) },
  ]
  // A request whose head has begun to arrive (all but its last CRLF): the connection is not idle,
  // and the rest comes once the service is closing.
  const partial = [
    { connection: await open('bff partial api call', bffPort, bffHost), text: request('GET', '/api/version', bffHost, { accept: 'application/json' }), kind: 'json' },
    { connection: await open('bff partial page', bffPort, bffHost), text: request('GET', '/', bffHost, { accept: 'text/html,application/xhtml+xml', cookie: 'lang=de' }), kind: 'page' },
    { connection: await open('bff partial write', bffPort, bffHost), text: signIn('partial@example.com'), kind: 'json' },
  ]
  // In flight: the head is in, the body's last bytes come after the signal.
  const inFlight = [
    { connection: await open('bff in flight 1', bffPort, bffHost), text: signIn('flight1@example.com') },
    { connection: await open('bff in flight 2', bffPort, bffHost), text: signIn('flight2@example.com') },
  ]
  const apiHost = `127.0.0.1:${apiPort}`
  const coreHost = `127.0.0.1:${corePort}`
  const apiIdle = await open('api idle', apiPort, apiHost)
  const apiPartial = { connection: await open('api partial', apiPort, apiHost), text: request('GET', '/api/version', apiHost, { accept: 'application/json' }) }
  const coreIdle = await open('core idle', corePort, coreHost, '/hello')
  const corePartial = { connection: await open('core partial', corePort, coreHost, '/hello'), text: request('GET', '/hello', coreHost) }

  const HEAD_CUT = 2
  const BODY_CUT = 10
  for (const { connection, text } of [...partial, apiPartial, corePartial]) {
    const headEnd = text.indexOf('\r\n\r\n') + 4
    connection.send(text.slice(0, headEnd - HEAD_CUT))
  }
  for (const { connection, text } of inFlight) connection.send(text.slice(0, -BODY_CUT))
  // Everything written above has reached the services before the signal: a request on a fresh
  // connection, answered after it, was read after it (loopback delivers at once, and Node reads
  // every ready socket in one turn of its event loop before it handles a signal).
  const barrier = await Connection.open('barrier', bffPort)
  opened.push(barrier)
  barrier.send(request('GET', '/healthz', bffHost, { connection: 'close' }))
  t.equal((await barrier.answer(0)).status, 200)

  app.child.kill('SIGTERM')
  await app.logged('the process saying it is shutting down', (line) => line.msg === 'shutting down')
  const written = new Set<Connection>()
  for (const { connection, text } of writeAfter) {
    // One already closed by the service is a client's to retry elsewhere; writing on it would be its mistake.
    if (connection.finAt !== undefined) continue
    connection.send(text)
    written.add(connection)
  }
  // The BFF closes its idle connections first: from then on it is closing.
  await Promise.all(idle.map((connection) => connection.fin()))
  for (const { connection, text } of partial) connection.send(text.slice(text.indexOf('\r\n\r\n') + 4 - HEAD_CUT))
  for (const { connection, text } of inFlight) connection.send(text.slice(-BODY_CUT))

  const bff = [...idle, ...writeAfter.map((w) => w.connection), ...partial.map((p) => p.connection), ...inFlight.map((f) => f.connection)]
  await Promise.all(bff.map((connection) => connection.gone()))
  for (const connection of bff) {
    t.equal(connection.error, undefined, `${connection.name}: never reset (written ${connection.sentAt ?? 'never'}, FIN ${connection.finAt ?? 'none'})`)
    t.ok(connection.finAt !== undefined, `${connection.name}: closed with a FIN`)
  }
  for (const connection of idle) t.equal(connection.answers.length, 1, `${connection.name}: nothing written on an idle connection but its close`)

  /** The service's 503 while it shuts down: its error shape, Retry-After, Connection: close. */
  const refusal = (answer: Answer | undefined, code: string, name: string) => {
    t.equal(answer?.status, 503, `${name}: 503`)
    if (answer?.status !== 503) return
    t.equal(answer.headers.connection, 'close', `${name}: Connection: close`)
    t.equal(answer.headers['retry-after'], '5', `${name}: Retry-After`)
    t.equal(answer.headers['cache-control'], 'no-store', `${name}: not stored`)
    t.match(answer.headers['content-type'], /^application\/json; charset=utf-8$/, `${name}: JSON`)
    const body = JSON.parse(answer.body) as Record<string, unknown>
    t.match(body, { statusCode: 503, code, error: 'Service Unavailable', message: /restarting.*try again in 5 seconds/ }, `${name}: the service's error shape`)
    t.ok(typeof body.requestId === 'string' && body.requestId === answer.headers['x-request-id'], `${name}: with its request id`)
  }

  let crossed = 0
  for (const { connection } of writeAfter) {
    const answers = connection.answers
    if (!written.has(connection)) {
      t.equal(answers.length, 1, `${connection.name}: closed before its request was written, without a word`)
    } else if (answers.length === 1) {
      // The request crossed the service's FIN on the wire: the client sees the close before any
      // answer (and may retry elsewhere); the service reads it and hands it to no handler.
      crossed++
      t.ok(connection.finAt! > connection.sentAt!, `${connection.name}: its request crossed the close, no answer`)
    } else if (answers[1]!.status === 503) {
      refusal(answers[1], 'BFF_SHUTTING_DOWN', connection.name)
    } else {
      t.equal(answers[1]!.status, 200, `${connection.name}: answered before the BFF began closing`)
    }
    t.ok(answers.length <= 2, `${connection.name}: one answer at most`)
  }
  for (const { connection, kind } of partial) {
    const answer = connection.answers[1]
    if (kind === 'json') refusal(answer, 'BFF_SHUTTING_DOWN', connection.name)
    else {
      t.equal(answer?.status, 503, `${connection.name}: 503`)
      t.equal(answer?.headers.connection, 'close', `${connection.name}: Connection: close`)
      t.equal(answer?.headers['retry-after'], '5', `${connection.name}: Retry-After`)
      t.equal(answer?.headers['content-type'], 'text/html; charset=utf-8', `${connection.name}: a page for a browser`)
      t.ok(answer?.headers['x-request-id'], `${connection.name}: with its request id`)
      t.match(answer?.body, /<html lang="de">/, `${connection.name}: in the visitor's language`)
      t.match(answer?.body, `<h1>${german.errors.restarting?.title}</h1>`, `${connection.name}: saying Softshelf is restarting`)
      t.match(answer?.body, /<meta http-equiv="refresh" content="5">/, `${connection.name}: and loading again after Retry-After`)
    }
  }
  for (const { connection } of inFlight) {
    const answer = connection.answers[1]
    t.equal(answer?.status, 200, `${connection.name}: the request in flight completes normally`)
    t.match(JSON.parse(answer?.body ?? '{}'), { status: 'WRONG_CREDENTIALS_ERROR' }, `${connection.name}: with its own answer`)
    t.equal(answer?.headers.connection, 'close', `${connection.name}: and Connection: close`)
  }

  // What the BFF told its operator: what was in flight, what it refused, what it could not answer.
  const closing = await app.logged('the BFF closing', (line) => line.service === 'bff' && line.event === 'shutdown' && 'inFlight' in line)
  t.ok(Number(closing.inFlight) >= inFlight.length, `the BFF had ${String(closing.inFlight)} answers in flight`)
  t.ok(Number(closing.idleClosed) >= idle.length, `and closed ${String(closing.idleClosed)} idle connections`)
  const closed = await app.logged('the BFF closed', (line) => line.service === 'bff' && line.event === 'shutdown' && 'refused' in line)
  t.ok(Number(closed.refused) >= partial.length, `it refused ${String(closed.refused)} requests`)
  t.equal(closed.crossed, crossed, 'and handed none of the requests that crossed its close to a handler')

  // The API, then the auth core, close after the BFF: the same for their callers.
  for (const [idleOne, partialOne, code] of [
    [apiIdle, apiPartial, 'API_SHUTTING_DOWN'],
    [coreIdle, corePartial, 'AUTHCORE_SHUTTING_DOWN'],
  ] as const) {
    await idleOne.fin()
    partialOne.connection.send(partialOne.text.slice(partialOne.text.indexOf('\r\n\r\n') + 4 - HEAD_CUT))
    await Promise.all([idleOne.gone(), partialOne.connection.gone()])
    for (const connection of [idleOne, partialOne.connection]) t.equal(connection.error, undefined, `${connection.name}: never reset`)
    t.equal(idleOne.answers.length, 1, `${idleOne.name}: closed without a word`)
    refusal(partialOne.connection.answers[1], code, partialOne.connection.name)
  }

  t.equal(await exited(app.child, 20_000), 0, 'the process exits 0')
})
