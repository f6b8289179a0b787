import { SaxesParser, type SaxesTag } from 'saxes'
import { compareVersions } from '../releases.ts'
import { FeedProblem } from './fetch.ts'

// What a feed says of a program (decision 029), read from its two formats:
// - an AppStream catalog (the XML Flathub and the distributions publish), parsed as a stream with
//   saxes: only the components whose id is wanted are kept, so memory stays bounded whatever the
//   catalog's size;
// - Homebrew's cask JSON (`[{ token, version, homepage, name, desc }]`), parsed whole once its
//   size is known to be under the limit.
// Malformed input is a FeedProblem: the feed then changes nothing.

export interface FeedEntry {
  /** The program's id in that catalogue: the AppStream component id, the Homebrew cask token. */
  id: string
  /** The newest version the feed knows, and its day ("YYYY-MM-DD") when the feed says. */
  version?: string
  date?: string
  name?: string
  summary?: string
  homepage?: string
}

const DAY = /^(\d{4}-\d{2}-\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/

/** AppStream's `date` ("2026-11-30", or with a time) or `timestamp` (Unix seconds) as a day; undefined when neither reads. */
function releaseDay(date: string | undefined, timestamp: string | undefined): string | undefined {
  if (date !== undefined) {
    const match = DAY.exec(date.trim())
    if (match && !Number.isNaN(Date.parse(`${match[1]}T00:00:00Z`))) return match[1]
  }
  if (timestamp !== undefined && /^\d{1,12}$/.test(timestamp.trim())) return new Date(Number(timestamp.trim()) * 1000).toISOString().slice(0, 10)
  return undefined
}

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** Where a component id may also be written with the ".desktop" of older catalogs. */
function wantedId(id: string, wanted: (id: string) => boolean): string | undefined {
  if (wanted(id)) return id
  const bare = id.replace(/\.desktop$/, '')
  return bare !== id && wanted(bare) ? bare : undefined
}

/** Reads an AppStream catalog (already gunzip'd), calling `found` for each component whose id is wanted. */
export async function readAppStream(chunks: AsyncIterable<Buffer>, wanted: (id: string) => boolean, found: (entry: FeedEntry) => void): Promise<void> {
  const parser = new SaxesParser({ position: true })
  let failure: string | undefined
  let rootSeen = false
  const path: string[] = []
  // The component being read, with its untranslated texts and its releases.
  let component: { id: string; name?: string; summary?: string; homepage?: string; releases: Array<{ version: string; date?: string }> } | null = null
  let text: { into: 'id' | 'name' | 'summary' | 'homepage'; value: string } | null = null

  parser.on('error', (error) => {
    failure ??= error.message
  })
  parser.on('doctype', () => {
    failure ??= 'a DOCTYPE is not expected in an AppStream catalog'
  })
  parser.on('opentag', (tag: SaxesTag) => {
    const parent = path[path.length - 1]
    path.push(tag.name)
    const attributes = tag.attributes as Record<string, string>
    if (path.length === 1) {
      rootSeen = true
      if (tag.name !== 'components') failure ??= `its root element is <${tag.name}>, not <components>`
      return
    }
    if (path.length === 2 && tag.name === 'component') {
      component = { id: '', releases: [] }
      return
    }
    if (!component) return
    const untranslated = attributes['xml:lang'] === undefined
    if (parent === 'component' && path.length === 3) {
      if (tag.name === 'id') text = { into: 'id', value: '' }
      else if (tag.name === 'name' && untranslated) text = { into: 'name', value: '' }
      else if (tag.name === 'summary' && untranslated) text = { into: 'summary', value: '' }
      else if (tag.name === 'url' && attributes.type === 'homepage') text = { into: 'homepage', value: '' }
    } else if (parent === 'releases' && tag.name === 'release' && path.length === 4) {
      const version = attributes.version?.trim()
      // A development snapshot is not a release people get.
      if (version && attributes.type !== 'development' && attributes.type !== 'snapshot') {
        const date = releaseDay(attributes.date, attributes.timestamp)
        component.releases.push(date ? { version, date } : { version })
      }
    }
  })
  const onText = (value: string) => {
    if (text) text.value += value
  }
  parser.on('text', onText)
  parser.on('cdata', onText)
  parser.on('closetag', () => {
    path.pop()
    if (text && path.length === 2) {
      if (component) component[text.into] = clean(text.value)
      text = null
    }
    if (path.length === 1 && component) {
      const id = component.id ? wantedId(component.id, wanted) : undefined
      if (id) {
        const newest = component.releases.reduce<{ version: string; date?: string } | undefined>((best, r) => (!best || compareVersions(r.version, best.version) > 0 ? r : best), undefined)
        const entry: FeedEntry = { id }
        if (newest) {
          entry.version = newest.version
          if (newest.date) entry.date = newest.date
        }
        if (component.name) entry.name = component.name
        if (component.summary) entry.summary = component.summary
        if (component.homepage) entry.homepage = component.homepage
        found(entry)
      }
      component = null
    }
  })

  const decoder = new TextDecoder('utf-8', { fatal: true })
  try {
    for await (const chunk of chunks) {
      parser.write(decoder.decode(chunk, { stream: true }))
      if (failure !== undefined) break
    }
    if (failure === undefined) parser.write(decoder.decode()).close()
  } catch (error) {
    if (error instanceof FeedProblem) throw error
    if (error instanceof TypeError) failure ??= 'it is not UTF-8 text'
    else failure ??= (error as Error).message
  }
  if (failure === undefined && !rootSeen) failure = 'it is empty'
  if (failure !== undefined) throw new FeedProblem('malformed', `the feed is not a well-formed AppStream catalog: ${failure}`)
}

/** Reads Homebrew's cask JSON (at most the limit, already checked), calling `found` for each wanted token. */
export async function readHomebrew(chunks: AsyncIterable<Buffer>, wanted: (id: string) => boolean, found: (entry: FeedEntry) => void): Promise<void> {
  const parts: Buffer[] = []
  for await (const chunk of chunks) parts.push(chunk)
  let casks: unknown
  try {
    casks = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(parts)))
  } catch (error) {
    throw new FeedProblem('malformed', `the feed is not valid JSON: ${error instanceof SyntaxError ? error.message : 'it is not UTF-8 text'}`)
  }
  if (!Array.isArray(casks)) throw new FeedProblem('malformed', 'the feed is not Homebrew cask JSON: it is not a list of casks')
  for (const cask of casks) {
    if (typeof cask !== 'object' || cask === null) continue
    const { token, version, homepage, name, desc } = cask as Record<string, unknown>
    if (typeof token !== 'string' || !wanted(token)) continue
    const entry: FeedEntry = { id: token }
    // "latest" is a cask without versions; "1.2.3,4567" carries a build after the comma.
    if (typeof version === 'string' && version.trim() !== '' && version.trim() !== 'latest') entry.version = version.split(',')[0]!.trim()
    const firstName = Array.isArray(name) ? name.find((n) => typeof n === 'string') : name
    if (typeof firstName === 'string' && clean(firstName) !== '') entry.name = clean(firstName)
    if (typeof desc === 'string' && clean(desc) !== '') entry.summary = clean(desc)
    if (typeof homepage === 'string' && homepage.trim() !== '') entry.homepage = homepage.trim()
    found(entry)
  }
}
