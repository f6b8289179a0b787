import { Writable } from 'node:stream'
import Fastify from 'fastify'
import pino from 'pino'
import t from 'tap'
import { installErrorHandler } from '../../../server/http/errors.ts'
import { requestLoggerFactory, serviceLogging } from '../../../server/http/logger.ts'

/** A log destination that keeps each line, parsed. */
function lines() {
  const kept: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) kept.push(JSON.parse(text) as Record<string, unknown>)
      done()
    },
  })
  return { kept, stream }
}

t.test("a request's lines carry its id, its route's level and the redaction, as pino's child wrote them", async (t) => {
  const log = lines()
  const app = Fastify({ ...serviceLogging({ logLevel: 'info' }, 'bff', log.stream), genReqId: () => `id-${Math.random().toString(36).slice(2, 10)}` })
  t.teardown(() => app.close())
  app.get('/quiet', { logLevel: 'warn' }, async (request) => {
    request.log.info('not written: the route logs at warn')
    request.log.warn({ form: { password: 'hunter2' } }, 'written')
    const log = request.log as unknown as pino.Logger
    return { level: log.level, info: log.isLevelEnabled('info'), error: log.isLevelEnabled('error'), unknown: log.isLevelEnabled('loud') }
  })
  app.get('/chatty', async (request) => {
    request.log.info({ session: { token: 'abc' } }, 'hello')
    request.log.child({ part: 'checkout' }).info('from a child')
    return { level: request.log.level }
  })

  const quiet = await app.inject('/quiet')
  t.same(quiet.json(), { level: 'warn', info: false, error: true, unknown: false })
  const quietId = log.kept.find((line) => line.msg === 'written')?.reqId
  const quietLines = log.kept.filter((line) => line.reqId === quietId)
  t.same(
    quietLines.map((line) => line.msg),
    ['written'],
    'only the warning: neither the info line nor the access line of a route at warn',
  )
  t.match(quietLines[0], { level: 40, service: 'bff', reqId: /^id-/, form: { password: '[redacted]' } })

  const chatty = await app.inject('/chatty')
  t.same(chatty.json(), { level: 'info' })
  const hello = log.kept.find((line) => line.msg === 'hello')
  t.match(hello, { level: 30, service: 'bff', reqId: /^id-/, session: { token: '[redacted]' } })
  t.match(
    log.kept.find((line) => line.msg === 'from a child'),
    { reqId: hello?.reqId, part: 'checkout', service: 'bff' },
    "a child of the request's logger keeps the request id",
  )
  t.match(
    log.kept.find((line) => line.msg === 'request completed' && line.reqId === hello?.reqId),
    { res: { statusCode: 200 }, req: { method: 'GET', url: '/chatty' } },
    'the access line, with the same id',
  )
  t.not(hello?.reqId, quietLines[0]?.reqId, 'each request its own id')
})

t.test("pino's child is made at a request's first line at its level, once, and never for a request that writes none", async (t) => {
  const parent = pino({ level: 'info' }, lines().stream)
  let made = 0
  const makeChild = parent.child.bind(parent)
  parent.child = ((...args: Parameters<typeof parent.child>) => {
    made++
    return makeChild(...args)
  }) as typeof parent.child
  const app = Fastify()
  t.teardown(() => app.close())
  const make = (options: { level?: string }) => requestLoggerFactory.call(app, parent, { reqId: 'r1' }, options, undefined as never)

  const atWarn = make({ level: 'warn' })
  atWarn.info('below the level')
  atWarn.debug('below the level')
  t.equal(made, 0, 'lines below the level make nothing')
  atWarn.warn('one')
  atWarn.error('two')
  t.equal(made, 1, 'the first line made the child, the second used it')

  const atParentLevel = make({})
  t.equal(atParentLevel.level, 'info', "no level of its own: the parent's")
  atParentLevel.debug('below')
  t.equal(made, 1)
  atParentLevel.level = 'debug'
  t.equal(atParentLevel.level, 'debug')
  t.ok((atParentLevel as unknown as pino.Logger).isLevelEnabled('debug'), 'a level set on the request logger is kept')
  t.throws(() => {
    atParentLevel.level = 'loud'
  }, 'an unknown level is refused, as pino refuses it')

  const silent = make({ level: 'silent' })
  silent.fatal('never')
  t.equal(made, 2, 'silent writes nothing and makes nothing')
})

t.test('an error logged as { err } keeps its type, code and stack, its texts and fields redacted like an error report', async (t) => {
  const log = lines()
  const app = Fastify({ ...serviceLogging({ logLevel: 'info' }, 'bff', log.stream) })
  t.teardown(() => app.close())
  installErrorHandler(app, 'BFF')
  app.get('/fails', async () => {
    throw new Error('no account for carol@example.com (token=abc123)')
  })
  await app.ready()
  // What nodemailer's SMTP transport rejects a mail with: the recipient in the message and fields.
  const refusal = Object.assign(new Error("Can't send mail - all recipients were rejected: 550 5.1.1 <bob@example.com>: Recipient address rejected"), {
    code: 'EENVELOPE',
    response: '550 5.1.1 <bob@example.com>: Recipient address rejected',
    responseCode: 550,
    rejected: ['bob@example.com'],
    cause: new Error('RCPT TO:<bob@example.com> refused'),
  })
  app.log.warn({ err: refusal, event: 'mail' }, 'a mail was refused')
  const line = log.kept.find((entry) => entry.msg === 'a mail was refused')
  t.match(line, { event: 'mail', err: { type: 'Error', code: 'EENVELOPE', responseCode: 550, message: /^Can't send mail - all recipients were rejected: 550 5\.1\.1 <\[email\]>/, stack: /request-logger/ } })
  t.notMatch(JSON.stringify(line), /bob@example\.com/, 'the address is nowhere in the line: message, stack, fields, cause')
  t.same((line?.err as { rejected?: unknown }).rejected, ['[email]'])

  t.equal((await app.inject('/fails')).statusCode, 500)
  const failed = log.kept.find((entry) => entry.msg === 'request failed')
  t.match(failed, { level: 50, reqId: 'req-1', err: { type: 'Error', message: /^no account for \[email\] \(token=\[redacted\]/ } }, "the service's error handler's line")
  t.notMatch(JSON.stringify(log.kept), /carol@example\.com|abc123/, 'nor in any other line of the request')
})
