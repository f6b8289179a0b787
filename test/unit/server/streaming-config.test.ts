import t from 'tap'
import { ConfigError, loadConfig } from '../../../server/config.ts'

// STREAMING_CLUSTERS: checked at start, every problem named with the entry it is in.

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n')
    throw error
  }
  return ''
}

const cluster = { id: 'fra-1', region: 'eu-central', url: 'https://fra-1.stream.example.com', capacity: 20 }
const clusters = (...entries: unknown[]) => ({ STREAMING_CLUSTERS: JSON.stringify(entries) })

t.test('unset or empty: streaming is off', async (t) => {
  t.same(loadConfig({}).streaming, { clusters: [], assignmentMinutes: 15 })
  t.same(loadConfig({ STREAMING_CLUSTERS: '[]' }).streaming.clusters, [])
})

t.test('valid clusters are read as given; http only on loopback', async (t) => {
  const local = { id: 'dev', region: 'local', url: 'http://127.0.0.1:4000/play', capacity: 1 }
  const config = loadConfig({ ...clusters(cluster, local), STREAMING_ASSIGNMENT_MINUTES: '30' })
  t.same(config.streaming.clusters, [{ ...cluster, url: 'https://fra-1.stream.example.com/' }, local])
  t.equal(config.streaming.assignmentMinutes, 30)
})

t.test('each mistake is reported with its entry', async (t) => {
  t.match(problems({ STREAMING_CLUSTERS: '{not json' }), /STREAMING_CLUSTERS must be a JSON array .* \(it is not valid JSON\)/)
  t.match(problems({ STREAMING_CLUSTERS: '{"id":"a"}' }), /STREAMING_CLUSTERS must be a JSON array/)
  t.match(problems(clusters(cluster, { ...cluster, url: 'https://other.example.com' })), /STREAMING_CLUSTERS\[1\]\.id "fra-1" is used by another cluster/)
  t.match(problems(clusters({ ...cluster, url: 'http://stream.example.com' })), /STREAMING_CLUSTERS\[0\]\.url must be an https:\/\/ URL \(http:\/\/ only on this machine/)
  t.match(problems(clusters({ ...cluster, url: 'https://user:secret@stream.example.com' })), /STREAMING_CLUSTERS\[0\]\.url must be .*user:\*\*\*@/)
  t.notMatch(problems(clusters({ ...cluster, url: 'https://user:secret@stream.example.com' })), /secret/, 'a password is never echoed')
  t.match(problems(clusters({ ...cluster, capacity: 0 })), /STREAMING_CLUSTERS\[0\]\.capacity must be a whole number of at least 1 \(got 0\)/)
  t.match(problems(clusters({ ...cluster, capacity: 2.5 })), /capacity must be a whole number/)
  t.match(problems(clusters({ ...cluster, region: 'Europe Central and more' })), /STREAMING_CLUSTERS\[0\]\.region must be a short region id/)
  t.match(problems(clusters({ ...cluster, id: '' })), /STREAMING_CLUSTERS\[0\]\.id must be 1 to 64/)
  t.match(problems(clusters({ ...cluster, weight: 2 })), /STREAMING_CLUSTERS\[0\] has unknown fields: weight/)
  t.match(problems(clusters('fra-1')), /STREAMING_CLUSTERS\[0\] must be an object/)
  t.match(problems({ STREAMING_ASSIGNMENT_MINUTES: '0' }), /STREAMING_ASSIGNMENT_MINUTES must be a whole number from 1 to 1440/)
})
