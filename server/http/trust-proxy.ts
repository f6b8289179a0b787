import net from 'node:net'
import proxyAddr from '@fastify/proxy-addr'

// TRUST_PROXY: which hops in front of the BFF may say who the visitor is
// (X-Forwarded-For, -Proto, -Host). Fastify 5.12 answers a numeric `trustProxy` by trusting no
// hop at all (it cannot check the nearest peer's address, so it fails closed), which left a hop
// count — compose.yaml's default — counting every visitor as the load balancer: one set of rate
// limits for the whole site. A hop count is therefore handed to Fastify as the function
// Express and proxy-addr give it: the `count` addresses nearest the BFF are proxies. As there, a
// client reaching the BFF directly would be believed too, so the README keeps hop counts to BFFs
// only their proxies can reach (compose.yaml's); addresses are the form safe everywhere.

/** What TRUST_PROXY says, read once at boot (config.ts). */
export type TrustProxySetting = boolean | number | string

/** The names proxy-addr knows for address ranges, accepted in the list form. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/** Hop counts beyond this are a typo, not a chain of proxies. */
export const MAX_TRUSTED_HOPS = 10

/**
 * TRUST_PROXY as the BFF uses it, or the problem that stops it from starting: `false`, `true`,
 * a hop count (0 is `false`), or a comma-separated list of addresses, CIDR ranges and the names
 * loopback, linklocal, uniquelocal — each checked as proxy-addr will read it.
 */
export function parseTrustProxy(value: string | undefined): { setting: TrustProxySetting } | { problem: string } {
  const expected = `TRUST_PROXY must be false, true, a hop count from 0 to ${MAX_TRUSTED_HOPS}, or a comma-separated list of addresses, CIDR ranges and loopback/linklocal/uniquelocal`
  if (value === undefined || value === 'false') return { setting: false }
  if (value === 'true') return { setting: true }
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    if (hops > MAX_TRUSTED_HOPS) return { problem: `${expected} (got "${value}")` }
    return { setting: hops === 0 ? false : hops }
  }
  const entries = value.split(',').map((entry) => entry.trim())
  if (entries.some((entry) => entry === '')) return { problem: `${expected}: an entry is empty (got "${value}")` }
  for (const entry of entries) {
    if (!RANGE_NAMES.has(entry) && !isAddressOrRange(entry)) return { problem: `${expected}: "${entry}" is not an address or CIDR range (got "${value}")` }
  }
  return { setting: entries.join(',') }
}

/**
 * An IPv4 or IPv6 address, with a prefix length or netmask, as proxy-addr reads it. The address
 * itself must be written out (net.isIP): proxy-addr would also take "10.1" as 10.0.0.1.
 */
function isAddressOrRange(entry: string): boolean {
  const [address = '', range, ...rest] = entry.split('/')
  if (rest.length > 0 || net.isIP(address) === 0) return false
  if (range !== undefined && !/^\d+$/.test(range) && net.isIP(range) === 0) return false
  try {
    proxyAddr.compile(entry)
    return true
  } catch {
    return false
  }
}

/** Fastify's `trustProxy` for a setting: a hop count becomes "the nearest `count` hops are proxies". */
export function fastifyTrustProxy(setting: TrustProxySetting): boolean | string | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting
  const count = setting
  return (_address, hop) => hop < count
}
