import { createHash, randomUUID } from 'node:crypto'
import type { Locale } from '../../../shared/locales.ts'
import { programLogoFilePath, screenshotPath, type ProgramScreenshot } from '../../../shared/catalogue/media.ts'
import type { Queryable } from '../../db/database.ts'
import type { EncodedLogo, EncodedScreenshot } from './media-images.ts'

// Programs' uploaded logos and screenshots (migration 019). Writes take a handle inside
// the caller's transaction, so the change and its audit entry are one.

export interface StoredLogo {
  hash: string
  contentType: string
  /** Where the API serves the file (by its hash: cached for ever). */
  url: string
}

/** A screenshot as editors see it: every language's alternative text. */
export interface OperatorScreenshot {
  id: string
  position: number
  width: number
  height: number
  alt: Partial<Record<Locale, string>>
  srcset: Array<{ url: string; width: number }>
}

interface ScreenshotRow {
  id: string
  position: number
  width: number
  height: number
  alt: Partial<Record<Locale, string>>
  files: Array<{ hash: string; width: number }> | null
}

/** Whether the program exists; inside a transaction, its row stays locked until the end (so two uploads count screenshots one after the other). */
export async function lockProgram(tx: Queryable, programId: string): Promise<boolean> {
  const { rows } = await tx.query('SELECT id FROM api.programs WHERE id = $1 FOR UPDATE', [programId])
  return rows.length > 0
}

export async function programExists(db: Queryable, programId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM api.programs WHERE id = $1', [programId])
  return rows.length > 0
}

const toLogo = (row: { hash: string; content_type: string }): StoredLogo => ({ hash: row.hash, contentType: row.content_type, url: programLogoFilePath(row.hash, row.content_type) })

export async function uploadedLogo(db: Queryable, programId: string): Promise<StoredLogo | null> {
  const { rows } = await db.query<{ hash: string; content_type: string }>('SELECT hash, content_type FROM api.program_logos WHERE program_id = $1', [programId])
  return rows[0] ? toLogo(rows[0]) : null
}

/** Stores the program's logo in place of the one it had; answers the one it had. */
export async function setLogo(tx: Queryable, programId: string, logo: EncodedLogo): Promise<StoredLogo | null> {
  const before = await uploadedLogo(tx, programId)
  // The same picture for another program is another row: the hash covers the program too.
  const hash = createHash('sha256').update(programId).update('\0').update(logo.hash).digest('hex').slice(0, 32)
  await tx.query(
    `INSERT INTO api.program_logos (program_id, hash, content_type, image) VALUES ($1, $2, $3, $4)
     ON CONFLICT (program_id) DO UPDATE SET hash = EXCLUDED.hash, content_type = EXCLUDED.content_type, image = EXCLUDED.image, updated_at = now()`,
    [programId, hash, logo.contentType, logo.image],
  )
  return before
}

/** Removes the program's uploaded logo; answers it, or null when it had none. */
export async function removeLogo(tx: Queryable, programId: string): Promise<StoredLogo | null> {
  const { rows } = await tx.query<{ hash: string; content_type: string }>('DELETE FROM api.program_logos WHERE program_id = $1 RETURNING hash, content_type', [programId])
  return rows[0] ? toLogo(rows[0]) : null
}

/** Every uploaded logo, by program: what the BFF serves instead of the generated marks. */
export async function uploadedLogoIndex(db: Queryable): Promise<Array<{ programId: string } & StoredLogo>> {
  const { rows } = await db.query<{ program_id: string; hash: string; content_type: string }>('SELECT program_id, hash, content_type FROM api.program_logos ORDER BY program_id')
  return rows.map((row) => ({ programId: row.program_id, ...toLogo(row) }))
}

export async function logoFile(db: Queryable, hash: string): Promise<{ contentType: string; image: Uint8Array } | null> {
  const { rows } = await db.query<{ content_type: string; image: Uint8Array }>('SELECT content_type, image FROM api.program_logos WHERE hash = $1', [hash])
  return rows[0] ? { contentType: rows[0].content_type, image: rows[0].image } : null
}

const SELECT_SCREENSHOTS = `
  SELECT s.id, s.position, s.width, s.height, s.alt,
         (SELECT json_agg(json_build_object('hash', f.hash, 'width', f.width) ORDER BY f.width) FROM api.program_screenshot_files f WHERE f.screenshot_id = s.id) AS files
  FROM api.program_screenshots s`

function toOperatorScreenshot(row: ScreenshotRow): OperatorScreenshot {
  return {
    id: row.id,
    position: row.position,
    width: row.width,
    height: row.height,
    alt: row.alt,
    srcset: (row.files ?? []).map((file) => ({ url: screenshotPath(file.hash), width: file.width })),
  }
}

/** A program's screenshots in their order, as editors see them. */
export async function operatorScreenshots(db: Queryable, programId: string): Promise<OperatorScreenshot[]> {
  const { rows } = await db.query<ScreenshotRow>(`${SELECT_SCREENSHOTS} WHERE s.program_id = $1 ORDER BY s.position, s.created_at, s.id`, [programId])
  return rows.map(toOperatorScreenshot)
}

/** A program's screenshots in their order, the alternative text in `locale` (else English, else none). */
export async function publicScreenshots(db: Queryable, programId: string, locale: Locale): Promise<ProgramScreenshot[]> {
  return (await operatorScreenshots(db, programId)).map((shot) => ({
    id: shot.id,
    width: shot.width,
    height: shot.height,
    alt: shot.alt[locale] ?? shot.alt.en ?? '',
    srcset: shot.srcset,
  }))
}

export async function countScreenshots(tx: Queryable, programId: string): Promise<number> {
  const { rows } = await tx.query<{ count: number }>('SELECT count(*)::int AS count FROM api.program_screenshots WHERE program_id = $1', [programId])
  return rows[0]?.count ?? 0
}

/** Adds a screenshot after the program's others. The caller has locked the program and counted. */
export async function addScreenshot(tx: Queryable, programId: string, encoded: EncodedScreenshot, alt: Partial<Record<Locale, string>>): Promise<OperatorScreenshot> {
  const id = randomUUID()
  const { rows } = await tx.query<{ position: number }>('SELECT COALESCE(max(position) + 1, 0)::int AS position FROM api.program_screenshots WHERE program_id = $1', [programId])
  await tx.query('INSERT INTO api.program_screenshots (id, program_id, position, width, height, alt) VALUES ($1, $2, $3, $4, $5, $6::jsonb)', [
    id,
    programId,
    rows[0]!.position,
    encoded.width,
    encoded.height,
    JSON.stringify(alt),
  ])
  for (const file of encoded.files) {
    // By content and screenshot: a new upload is a new URL even for the same picture.
    const hash = createHash('sha256').update(id).update('\0').update(file.image).digest('hex').slice(0, 32)
    await tx.query('INSERT INTO api.program_screenshot_files (hash, screenshot_id, width, height, image) VALUES ($1, $2, $3, $4, $5)', [hash, id, file.width, file.height, file.image])
  }
  return (await operatorScreenshots(tx, programId)).find((shot) => shot.id === id)!
}

/** Changes a screenshot's alternative texts (a null removes one language's) and/or moves it to `position` (0 first; past the end: last). */
export async function updateScreenshot(
  tx: Queryable,
  programId: string,
  screenshotId: string,
  change: { alt?: Partial<Record<Locale, string | null>>; position?: number },
): Promise<{ before: OperatorScreenshot; after: OperatorScreenshot } | null> {
  const shots = await operatorScreenshots(tx, programId)
  const index = shots.findIndex((shot) => shot.id === screenshotId)
  if (index < 0) return null
  const before = shots[index]!
  if (change.alt) {
    const alt: Partial<Record<Locale, string>> = { ...before.alt }
    for (const [language, text] of Object.entries(change.alt) as Array<[Locale, string | null]>) {
      if (text === null || text.trim() === '') delete alt[language]
      else alt[language] = text.trim()
    }
    await tx.query('UPDATE api.program_screenshots SET alt = $2::jsonb WHERE id = $1', [screenshotId, JSON.stringify(alt)])
  }
  if (change.position !== undefined) {
    const order = shots.filter((shot) => shot.id !== screenshotId)
    order.splice(Math.min(change.position, order.length), 0, before)
    for (const [position, shot] of order.entries()) {
      if (shot.position !== position) await tx.query('UPDATE api.program_screenshots SET position = $2 WHERE id = $1', [shot.id, position])
    }
  }
  const after = (await operatorScreenshots(tx, programId)).find((shot) => shot.id === screenshotId)!
  return { before, after }
}

/** Removes a screenshot and its files; the others close the gap. Answers it, or null when the program has no such one. */
export async function removeScreenshot(tx: Queryable, programId: string, screenshotId: string): Promise<OperatorScreenshot | null> {
  const shots = await operatorScreenshots(tx, programId)
  const gone = shots.find((shot) => shot.id === screenshotId)
  if (!gone) return null
  await tx.query('DELETE FROM api.program_screenshots WHERE id = $1', [screenshotId])
  for (const [position, shot] of shots.filter((shot) => shot.id !== screenshotId).entries()) {
    if (shot.position !== position) await tx.query('UPDATE api.program_screenshots SET position = $2 WHERE id = $1', [shot.id, position])
  }
  return gone
}

export async function screenshotFile(db: Queryable, hash: string): Promise<Uint8Array | null> {
  const { rows } = await db.query<{ image: Uint8Array }>('SELECT image FROM api.program_screenshot_files WHERE hash = $1', [hash])
  return rows[0]?.image ?? null
}
