import net from 'node:net'
import pg from 'pg'
import t, { type Test } from 'tap'
import type { Database } from '../../../server/db/database.ts'
import { DatabaseTimeoutError } from '../../../server/db/guard.ts'
import { databaseUnreachable, DatabaseUnreachableError, isDatabaseUnreachable, watchReachability } from '../../../server/db/reachability.ts'

// "the database cannot be reached" decided in one place for both drivers, from the
// errors they really throw: node-postgres against a port nobody listens on, a server that hangs
// up, a pool that gets no connection in time; PostgreSQL's own shutdown codes; PGlite closed.

/** A loopback server doing `onConnection` to each client; closed at teardown. */
async function server(t: Test, onConnection: (socket: net.Socket) => void): Promise<number> {
  const sockets = new Set<net.Socket>()
  const listener = net.createServer((socket) => {
    sockets.add(socket)
    onConnection(socket)
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    listener.close()
  })
  return (listener.address() as net.AddressInfo).port
}

async function closedPort(): Promise<number> {
  const listener = net.createServer()
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  const { port } = listener.address() as net.AddressInfo
  await new Promise<void>((resolve) => listener.close(() => resolve()))
  return port
}

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work()
  } catch (error) {
    return error
  }
  throw new Error('expected a failure')
}

t.test('node-postgres: refused, hung up on, no connection from the pool in time', async (t) => {
  const refusedPort = await closedPort()
  const refused = await failureOf(() => new pg.Pool({ connectionString: `postgres://x@127.0.0.1:${refusedPort}/x` }).query('SELECT 1'))
  t.equal(databaseUnreachable(refused), 'ECONNREFUSED', String(refused))

  const hangUpPort = await server(t, (socket) => socket.destroy())
  const hungUp = await failureOf(async () => {
    const client = new pg.Client({ connectionString: `postgres://x@127.0.0.1:${hangUpPort}/x` })
    await client.connect()
  })
  t.match(databaseUnreachable(hungUp), /^(CONNECTION_TERMINATED|ECONNRESET)$/, String(hungUp))

  // A server that accepts and never answers: the connecting client gives up, and a caller waiting
  // for the pool's only place gives up too.
  const silentPort = await server(t, () => {})
  const pool = new pg.Pool({ connectionString: `postgres://x@127.0.0.1:${silentPort}/x`, connectionTimeoutMillis: 50, max: 1 })
  t.teardown(() => pool.end().catch(() => {}))
  const [connecting, waiting] = await Promise.all([failureOf(() => pool.query('SELECT 1')), failureOf(() => pool.query('SELECT 2'))])
  t.equal(databaseUnreachable(connecting), 'CONNECTION_TERMINATED', String(connecting))
  t.equal(databaseUnreachable(waiting), 'CONNECT_TIMEOUT', String(waiting))
  t.equal(databaseUnreachable(new DatabaseTimeoutError('a transaction', 50, waiting)), 'CONNECT_TIMEOUT', 'also inside the adapter\'s timeout error')
})

t.test('PostgreSQL going away or not there yet; the closed handles of both drivers', async (t) => {
  const serverError = (code: string, message: string) => Object.assign(new pg.DatabaseError(message, message.length, 'error'), { code })
  t.equal(databaseUnreachable(serverError('57P01', 'terminating connection due to administrator command')), '57P01')
  t.equal(databaseUnreachable(serverError('57P02', 'terminating connection because of crash of another server process')), '57P02')
  t.equal(databaseUnreachable(serverError('57P03', 'the database system is starting up')), '57P03')
  t.equal(databaseUnreachable(serverError('08006', 'connection failure')), '08006')
  t.equal(databaseUnreachable(serverError('08P01', 'protocol violation')), '08P01')
  t.equal(databaseUnreachable(serverError('53300', 'sorry, too many clients already')), '53300')
  t.equal(databaseUnreachable(new Error('Connection terminated unexpectedly')), 'CONNECTION_TERMINATED')
  t.equal(databaseUnreachable(new Error('Client has encountered a connection error and is not queryable')), 'CONNECTION_LOST')
  t.equal(databaseUnreachable(new Error('Cannot use a pool after calling end on the pool')), 'CLOSED')
  t.equal(databaseUnreachable(new Error('PGlite is closed')), 'CLOSED')
})

t.test('wrapped: a cause chain, several addresses that all refused', async (t) => {
  const refused = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })
  t.equal(databaseUnreachable(new Error('loading the catalogue failed', { cause: refused })), 'ECONNREFUSED')
  const both = new AggregateError([Object.assign(new Error('connect EHOSTUNREACH 10.0.0.9:5432'), { code: 'EHOSTUNREACH' }), refused])
  t.equal(databaseUnreachable(both), 'EHOSTUNREACH')
  const cyclic: Error & { cause?: unknown } = new Error('a loop')
  cyclic.cause = cyclic
  t.equal(databaseUnreachable(cyclic), null, 'a cause that loops ends')
})

t.test('everything else is not an outage: the server answered', async (t) => {
  const serverError = (code: string, message: string) => Object.assign(new pg.DatabaseError(message, message.length, 'error'), { code })
  t.equal(databaseUnreachable(serverError('23505', 'duplicate key value violates unique constraint')), null)
  t.equal(databaseUnreachable(serverError('42P01', 'relation "x" does not exist')), null)
  t.equal(databaseUnreachable(new DatabaseTimeoutError('a statement', 5_000, serverError('57014', 'canceling statement due to statement timeout'))), null, 'a statement past its bound is a timeout')
  t.equal(databaseUnreachable(new DatabaseTimeoutError('a query', 5_000)), null)
  t.equal(databaseUnreachable(new Error('Something else')), null)
  for (const value of [null, undefined, 'ECONNREFUSED', 57, {}]) t.equal(databaseUnreachable(value), null, String(value))
})

t.test('an outage wrapped by the code that met it is still one; an answer a service decided is not', async (t) => {
  const outage = new DatabaseUnreachableError('ECONNREFUSED', new Error('connect ECONNREFUSED 127.0.0.1:5432'))
  t.ok(isDatabaseUnreachable(new Error('loading the catalogue failed', { cause: outage })))
  const decided = Object.assign(new Error('Your account is being deleted'), { statusCode: 503, code: 'API_DELETION_PENDING', cause: outage })
  t.notOk(isDatabaseUnreachable(decided), 'a catalogued error keeps its own answer')
  t.notOk(isDatabaseUnreachable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3567'), { code: 'ECONNREFUSED' })), 'a refused connection to something else is not the database\'s')
  t.notOk(isDatabaseUnreachable(null))
})

t.test('a service\'s database handle reports which calls reached the database and which could not', async (t) => {
  const events: string[] = []
  let failure: unknown = null
  const rows = { rows: [{ one: 1 }], rowCount: 1 }
  const answer = async () => {
    if (failure) throw failure
    return rows
  }
  // The adapters' interface, answering like a driver whose server is up or down as the test says.
  const driver: Database = {
    kind: 'postgres',
    query: answer as Database['query'],
    exec: async () => {
      await answer()
    },
    transaction: async (fn) => fn({ query: answer as Database['query'], exec: async () => {} }),
    close: async () => {},
    poolStats: () => ({ total: 3, idle: 1, waiting: 0 }),
  }
  const db = watchReachability(driver, { unreachable: (cause) => events.push(`unreachable ${cause}`), reached: () => events.push('reached') })
  t.same(await db.query('SELECT 1'), rows)
  await db.transaction(async (tx) => tx.query('SELECT 1'))
  t.same(events, ['reached', 'reached'])

  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
  failure = refused
  const error = await failureOf(() => db.query('SELECT 1'))
  t.ok(error instanceof DatabaseUnreachableError, 'the caller gets the outage as such')
  t.match(error, { statusCode: 503, reason: 'ECONNREFUSED', cause: refused })
  t.ok(isDatabaseUnreachable(error))
  await t.rejects(db.exec('ANALYZE'), DatabaseUnreachableError)
  await t.rejects(db.transaction(async (tx) => tx.query('SELECT 1')), DatabaseUnreachableError)
  t.same(events.slice(2), ['unreachable ECONNREFUSED', 'unreachable ECONNREFUSED', 'unreachable ECONNREFUSED'])

  const duplicate = Object.assign(new Error('duplicate key'), { code: '23505' })
  failure = duplicate
  await t.rejects(db.query('INSERT …'), duplicate, 'another failure is passed on as it is')
  failure = null
  await t.rejects(db.transaction(async () => Promise.reject(new Error('the caller\'s own mistake'))), /own mistake/)
  t.equal(events.length, 5, 'a failure for another reason says nothing either way')
  t.equal(db.kind, 'postgres')
  t.same(db.poolStats?.(), { total: 3, idle: 1, waiting: 0 })
})
