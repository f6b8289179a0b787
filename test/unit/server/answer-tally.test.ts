import t from 'tap'
import { ServiceMetrics } from '../../../server/http/metrics.ts'

/** The lines of one metric in a Prometheus text, without the HELP and TYPE lines. */
const linesOf = (text: string, name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`))

t.test('the request counter and the duration histogram show every answer, as prom-client formats them', async (t) => {
  const metrics = new ServiceMetrics('bff')
  for (const seconds of [0.003, 0.02, 7, 12]) metrics.answers.record('GET', '/library', 200, seconds)
  metrics.answers.record('GET', '/library', 503, 0.001)
  metrics.answers.record('POST', '/library', 200, 0.001)
  metrics.answers.record('BREW', '/library', 200, 0.001)
  metrics.answers.record('PROPFIND', '/library', 200, 0.5)
  const text = await metrics.text()

  t.match(text, /# HELP softshelf_http_requests_total Requests answered, by method, route pattern and status\.\n# TYPE softshelf_http_requests_total counter\n/)
  t.same(
    linesOf(text, 'softshelf_http_requests_total').sort(),
    [
      'softshelf_http_requests_total{method="GET",route="/library",status="200",service="bff"} 4',
      'softshelf_http_requests_total{method="OTHER",route="/library",status="200",service="bff"} 2',
      'softshelf_http_requests_total{method="POST",route="/library",status="200",service="bff"} 1',
      'softshelf_http_requests_total{method="GET",route="/library",status="503",service="bff"} 1',
    ].sort(),
    'one series per method, route and status; unknown methods are one series, OTHER',
  )

  t.match(text, /# HELP softshelf_http_request_duration_seconds Time from the request to its answer, by method, route pattern and status\.\n# TYPE softshelf_http_request_duration_seconds histogram\n/)
  const labels = 'method="GET",route="/library",status="200",service="bff"'
  const slow = linesOf(text, 'softshelf_http_request_duration_seconds_bucket').filter((line) => line.includes(labels))
  t.same(
    slow,
    [
      ['0.005', 1],
      ['0.01', 1],
      ['0.025', 2],
      ['0.05', 2],
      ['0.1', 2],
      ['0.25', 2],
      ['0.5', 2],
      ['1', 2],
      ['2.5', 2],
      ['5', 2],
      ['10', 3],
      ['+Inf', 4],
    ].map(([le, count]) => `softshelf_http_request_duration_seconds_bucket{le="${le}",${labels}} ${count}`),
    'cumulative buckets, the last (+Inf) is every answer',
  )
  t.same(linesOf(text, 'softshelf_http_request_duration_seconds_sum').filter((line) => line.includes(labels)), [`softshelf_http_request_duration_seconds_sum{${labels}} 19.023`])
  t.same(linesOf(text, 'softshelf_http_request_duration_seconds_count').filter((line) => line.includes(labels)), [`softshelf_http_request_duration_seconds_count{${labels}} 4`])
  t.match(
    linesOf(text, 'softshelf_http_request_duration_seconds_bucket').find((line) => line.includes('method="OTHER"') && line.includes('le="0.25"')),
    / 1$/,
    'the OTHER series holds both unknown methods: one at 1 ms, one at 0.5 s',
  )

  metrics.answers.record('GET', '/library', 200, 0.004)
  const again = await metrics.text()
  t.same(linesOf(again, 'softshelf_http_requests_total').find((line) => line.includes(labels)), `softshelf_http_requests_total{${labels}} 5`, 'a later scrape counts on')
  t.match(linesOf(again, 'softshelf_http_request_duration_seconds_bucket').find((line) => line.includes(labels) && line.includes('le="0.005"')), / 2$/)
})

t.test('a boundary value falls in its own bucket (le is "at most")', async (t) => {
  const metrics = new ServiceMetrics('api')
  metrics.answers.record('GET', '/api/version', 200, 0.005)
  metrics.answers.record('GET', '/api/version', 200, 10)
  const buckets = linesOf(await metrics.text(), 'softshelf_http_request_duration_seconds_bucket')
  t.match(buckets.find((line) => line.includes('le="0.005"')), / 1$/)
  t.match(buckets.find((line) => line.includes('le="5"')), / 1$/)
  t.match(buckets.find((line) => line.includes('le="10"')), / 2$/)
  t.match(buckets.find((line) => line.includes('le="+Inf"')), / 2$/)
})
