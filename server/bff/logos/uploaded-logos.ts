import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { MicroCache } from '../micro-cache.ts'
import type { UpstreamApi } from '../upstream-api.ts'

// Logos editors uploaded: the API keeps them (GET /api/program-logos, the index; the
// files by content hash), the BFF serves them at /logos/<id>.svg in place of the generated mark.
// The index is asked for at most once a second per BFF (shared by concurrent requests), so an
// upload or a removal shows on every instance within that; the files, immutable by their hash,
// are kept in memory (bounded).

export interface UploadedLogo {
  programId: string
  contentType: string
  /** The API's URL of the file: /api/program-logos/<hash>.<svg|webp>. */
  url: string
}

export interface UploadedLogoIndex {
  /** Content hash of the index; '' when no program has an uploaded logo. */
  version: string
  byProgram: ReadonlyMap<string, UploadedLogo>
}

const INDEX_TTL_MS = 1_000
const MAX_FILES = 300
const EMPTY: UploadedLogoIndex = { version: '', byProgram: new Map() }

export class UploadedLogos {
  private readonly index: MicroCache<UploadedLogoIndex>
  private readonly files = new Map<string, Buffer>()
  /** The last index read: what is served while the API cannot be asked. */
  private last: UploadedLogoIndex = EMPTY

  constructor(
    private readonly api: UpstreamApi,
    private readonly log: FastifyBaseLogger,
    now: () => number = Date.now,
  ) {
    this.index = new MicroCache(INDEX_TTL_MS, now, 1)
  }

  /** The uploaded logos now (at most a second old); the last known ones while the API does not answer. */
  async current(): Promise<UploadedLogoIndex> {
    try {
      return await this.index.get('index', async () => {
        const response = await this.api.request({ method: 'GET', path: '/api/program-logos', headers: { accept: 'application/json' } })
        if (response.status !== 200) throw new Error(`GET /api/program-logos answered ${response.status}`)
        const { logos } = JSON.parse(response.body.toString('utf8')) as { logos: UploadedLogo[] }
        const version = logos.length === 0 ? '' : createHash('sha256').update(logos.map((logo) => `${logo.programId} ${logo.url}\n`).join('')).digest('hex').slice(0, 16)
        this.last = { version, byProgram: new Map(logos.map((logo) => [logo.programId, logo])) }
        return this.last
      })
    } catch (error) {
      this.log.debug({ err: error }, 'uploaded logos: the product API did not answer; serving the last known ones')
      // Asked again in a second, not by every request meanwhile.
      this.index.put('index', this.last)
      return this.last
    }
  }

  /** The bytes of an uploaded logo's file, or null when the API no longer has it. */
  async file(logo: UploadedLogo): Promise<Buffer | null> {
    const kept = this.files.get(logo.url)
    if (kept) return kept
    const response = await this.api.request({ method: 'GET', path: logo.url, headers: { accept: logo.contentType } })
    if (response.status !== 200) return null
    this.files.set(logo.url, response.body)
    if (this.files.size > MAX_FILES) this.files.delete(this.files.keys().next().value!)
    return response.body
  }
}

/** The version logo URLs carry: the generated set's, and the uploaded logos' when there are any. */
export function combinedLogosVersion(setVersion: string, uploaded: UploadedLogoIndex): string {
  return uploaded.version === '' ? setVersion : createHash('sha256').update(`${setVersion}\n${uploaded.version}`).digest('hex').slice(0, 16)
}
