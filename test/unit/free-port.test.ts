import { randomInt } from 'node:crypto'
import net from 'node:net'
import t from 'tap'
import { ephemeralPortsStart, freePort, freePortIn } from '../helpers.ts'

// Servers a test starts as processes of their own get ports from freePort. A port from the
// kernel's ephemeral range could be taken by a neighbour's outgoing connection before the server
// listens (the cluster test's auth core: EADDRINUSE); freePort picks below that range.

t.test('a free port below the ephemeral range, never the same one twice', async (t) => {
  const low = ephemeralPortsStart()
  const ports: number[] = []
  for (let index = 0; index < 100; index += 1) ports.push(await freePort())
  t.equal(new Set(ports).size, ports.length, 'each port once')
  t.ok(
    ports.every((port) => port >= 10_000 && port < low),
    `every port in 10000–${low - 1}`,
  )
  // Free indeed: a server listens on it.
  const server = net.createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port: ports[0], host: '127.0.0.1', exclusive: true }, resolve)
  })
  t.equal((server.address() as net.AddressInfo).port, ports[0])
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

t.test('a port something listens on is not picked, nor one handed out before', async (t) => {
  // Ten ports, nine of them held by servers: the tenth is the one; asked again, there is none.
  const low = ephemeralPortsStart()
  const from = 20_000 + randomInt(Math.max(1, Math.min(low, 30_000) - 20_010))
  const held: net.Server[] = []
  t.teardown(() => Promise.all(held.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))))
  let open: number | undefined
  for (let port = from; port < from + 10; port += 1) {
    const server = net.createServer()
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(true))
    })
    if (listening && open === undefined && port >= from + 5) {
      open = port
      await new Promise<void>((resolve) => server.close(() => resolve()))
    } else if (listening) held.push(server)
  }
  t.ok(open !== undefined && from + 10 <= low, 'one port of the ten left free')
  t.equal(await freePortIn(from, from + 10), open, 'the free one')
  t.equal(await freePortIn(from, from + 10), undefined, 'not twice')
})
