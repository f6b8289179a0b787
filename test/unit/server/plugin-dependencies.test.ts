import cookie from '@fastify/cookie'
import Fastify from 'fastify'
import t from 'tap'
import { rateLimitPlugin } from '../../../server/bff/plugins/rate-limit.ts'
import { ssrRoutes } from '../../../server/bff/plugins/ssr.ts'
import apiProxyRoutes, { versionEarlyAnswer } from '../../../server/bff/routes/api-proxy.ts'
import mailUnsubscribeRoutes from '../../../server/bff/routes/mail-unsubscribe.ts'
import catalogueRoutes from '../../../server/api/catalogue/routes.ts'
import { requestBasics } from '../../../server/http/errors.ts'
import { BffNotFound } from '../../../server/bff/errors.ts'

// The services' plugins name what they need registered before them (fastify-plugin's `dependencies`):
// a route with a rate limit registered before the rate-limit plugin would have had no limit, and
// said nothing. Now the start stops, naming the missing plugin.

t.test('a plugin registered before what it depends on stops the start, naming both', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(async () => void (await app.register(rateLimitPlugin, {} as never)), { code: 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED', message: "The dependency '@fastify/cookie' of plugin 'rate-limit' is not registered" })
})

t.test('each route plugin with rate-limited routes needs the rate limit before it', async (t) => {
  for (const [name, plugin] of [
    ['api-proxy-routes', apiProxyRoutes],
    ['mail-unsubscribe-routes', mailUnsubscribeRoutes],
    ['ssr', ssrRoutes],
  ] as const) {
    const app = Fastify()
    await app.register(cookie)
    await t.rejects(async () => void (await app.register(plugin as never, {} as never)), { code: 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED', message: `The dependency 'rate-limit' of plugin '${name}' is not registered` }, name)
    await app.close()
  }
})

t.test("the API's route plugins name the decorators they read, and a start without them stops", async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(async () => void (await app.register(catalogueRoutes, { forSale: false })), {
    code: 'FST_ERR_PLUGIN_NOT_PRESENT_IN_INSTANCE',
    message: "The decorator 'catalogue' required by 'catalogue-routes' is not present in Fastify",
  })
})

t.test("the polled version's early answer needs the request id's hook before it, so its answer carries the id", async (t) => {
  const bare = Fastify()
  t.teardown(() => bare.close())
  await t.rejects(async () => void (await bare.register(versionEarlyAnswer, { headers: {} })), {
    code: 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED',
    message: "The dependency 'request-basics' of plugin 'version-early-answer' is not registered",
  })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(requestBasics, { prefix: 'BFF', notFound: BffNotFound })
  await t.resolves(async () => void (await app.register(versionEarlyAnswer, { headers: {} })), 'after request-basics it registers')
})
