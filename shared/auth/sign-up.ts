// The sign-up form's extra fields (spec §3): isInMailList, a JSON boolean, and utm, the UTM
// record the browser kept from the landing page. Both optional; a wrong shape is a field error
// with a message a person understands, never a silent drop.

export interface UtmRecord {
  timestamp?: number | string
  utmParams?: Partial<Record<'utm_source' | 'utm_medium' | 'utm_campaign' | 'utm_term' | 'utm_content', string>>
  gclidParams?: Partial<Record<'gclid' | 'gad_source', string>>
  additionalInfo?: {
    referrer?: string
    userAgent?: string
    language?: string
    landingPageUrl?: string
    screenWidth?: number
    screenHeight?: number
  }
  sessionId?: string
}

const MAX_TEXT = 2048
const MAX_UTM_JSON = 16 * 1024

const SHAPE: Record<string, 'string' | 'number' | 'time' | Record<string, 'string' | 'number'>> = {
  timestamp: 'time',
  sessionId: 'string',
  utmParams: { utm_source: 'string', utm_medium: 'string', utm_campaign: 'string', utm_term: 'string', utm_content: 'string' },
  gclidParams: { gclid: 'string', gad_source: 'string' },
  additionalInfo: { referrer: 'string', userAgent: 'string', language: 'string', landingPageUrl: 'string', screenWidth: 'number', screenHeight: 'number' },
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

function checkLeaf(value: unknown, kind: 'string' | 'number' | 'time'): boolean {
  if (value === null || value === undefined) return true
  if (kind === 'string') return typeof value === 'string' && value.length <= MAX_TEXT
  if (kind === 'number') return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 100_000
  return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.length <= 64 && !Number.isNaN(Date.parse(value)))
}

/** Long passphrases are welcome (SECURITY.md: 64 and more accepted); beyond this it is not a password. */
export const PASSWORD_MAX_LENGTH = 256
export const PASSWORD_MIN_LENGTH = 8

/**
 * The password field's errors, as the sign-up and reset answers carry them (English, the SDK's
 * language); the pages translate them by these very texts (client/lib/account/auth-errors.ts).
 */
export const PASSWORD_ERRORS = {
  notText: 'Password must be text',
  tooShort: `Password must be at least ${PASSWORD_MIN_LENGTH} characters long`,
  tooLong: `Password must be at most ${PASSWORD_MAX_LENGTH} characters long`,
  common: 'This password is one of the most common ones and easy to guess. Please choose another.',
  /** The reset form's repeated password (checked by the page, and by the BFF for a form sent without JavaScript). */
  mismatch: 'The two passwords are not the same.',
} as const

/** SECURITY.md "Sign-in abuse": a length rule only, no composition rules. */
export function validatePassword(value: unknown): string | undefined {
  if (typeof value !== 'string') return PASSWORD_ERRORS.notText
  const length = [...value].length
  if (length < PASSWORD_MIN_LENGTH) return PASSWORD_ERRORS.tooShort
  if (length > PASSWORD_MAX_LENGTH) return PASSWORD_ERRORS.tooLong
  return undefined
}

export const validateSignUpExtras = {
  isInMailList(value: unknown): string | undefined {
    return value === undefined || typeof value === 'boolean' ? undefined : 'isInMailList must be true or false'
  },

  utm(value: unknown): string | undefined {
    if (value === undefined || value === null) return undefined
    const invalid = 'utm must be the UTM record: an object with timestamp, utmParams, gclidParams, additionalInfo and sessionId'
    if (!isObject(value) || JSON.stringify(value).length > MAX_UTM_JSON) return invalid
    for (const [key, field] of Object.entries(value)) {
      const kind = SHAPE[key]
      if (kind === undefined) return invalid
      if (typeof kind === 'string') {
        if (!checkLeaf(field, kind)) return invalid
        continue
      }
      if (field === null || field === undefined) continue
      if (!isObject(field)) return invalid
      for (const [inner, leaf] of Object.entries(field)) {
        const leafKind = kind[inner]
        if (leafKind === undefined || !checkLeaf(leaf, leafKind)) return invalid
      }
    }
    return undefined
  },
}

/** RFC 5321: a longer address cannot be delivered. */
export const EMAIL_MAX_LENGTH = 254

/** Characters a local part cannot hold unquoted (supertokens-node's sign-up check refuses them too). */
const LOCAL_PART_FORBIDDEN = /[\s<>()[\]\\,;:@"]/

/**
 * The address shape the sign-up accepts (supertokens-node's default email check): a local part of
 * dot-separated words without spaces, quotes, brackets, commas or semicolons; one @; a domain of
 * dot-separated labels of letters, digits and hyphens ending in a label of two letters or more.
 * The exotic forms the SDK also takes (a quoted local part, an IP literal) are not offered for an
 * email change. Checked on the trimmed value, as the SDK trims.
 */
export function validateEmail(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'Email must be text'
  const email = value.trim()
  if (email.length > EMAIL_MAX_LENGTH) return `Email must be at most ${EMAIL_MAX_LENGTH} characters long`
  const parts = email.split('@')
  if (parts.length !== 2) return 'Email is invalid'
  const [local, domain] = parts as [string, string]
  if (local.split('.').some((word) => word === '' || LOCAL_PART_FORBIDDEN.test(word))) return 'Email is invalid'
  const labels = domain.split('.')
  if (labels.length < 2 || labels.some((label) => !/^[A-Za-z0-9-]+$/.test(label)) || !/^[A-Za-z]{2,}$/.test(labels.at(-1)!)) return 'Email is invalid'
  return undefined
}

/** An address as the auth core stores and compares it: trimmed and lowercased. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}
