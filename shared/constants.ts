// Constants of the product specification (spec §9 unless noted), named as the spec names them.
// One place: components and servers import from here instead of repeating numbers.

/** Spec §1: the page title stays in English in every language. */
export const PRODUCT_NAME = 'Softshelf'
export const PAGE_TITLE = 'Softshelf — all must-have programs in one place'

/** Spec §9 "Frontend version". The running build reports package version + build id. */
export const FRONTEND_VERSION = '1.0.716'

/** Spec §9 "Version poll": every 6 s (0.1 minutes). */
export const VERSION_POLL_INTERVAL_MS = 6_000
/** Spec §9 "Maintenance imminent": a stored time earlier than 6 s from now. */
export const MAINTENANCE_IMMINENT_MS = 6_000
/** Spec §3: sessionStorage key of the announced maintenance time (an ISO date string). */
export const MAINTENANCE_STORAGE_KEY = 'maintenanceTime'
/** Spec §2: maintenance and version polling does not run on these paths. */
export const POLLING_EXCLUDED_PREFIXES = ['/streaming', '/sharing'] as const

/** Spec §9 "Toasts": default timeout 5000 ms, at most 20, top-right; no close-on-click. */
export const TOAST_DEFAULT_TIMEOUT_MS = 5_000
export const TOAST_MAX = 20
/** Spec §9: maintenance and version toasts have no timeout, close on click, bottom-right. */
export const TOAST_DEFAULT_BUTTON_TEXT = 'Close'

/** Spec §9 "Chunk-error reload": at most once per 10 s. */
export const CHUNK_RELOAD_MIN_INTERVAL_MS = 10_000
export const CHUNK_RELOAD_STORAGE_KEY = 'chunkReloadAt'

/** Spec §9 "Locale cookie": 365 days. */
/** A display name's longest form, in characters. */
export const DISPLAY_NAME_MAX_LENGTH = 60
/** The longest comment on an account deletion, in characters. */
export const DELETION_COMMENT_MAX_LENGTH = 1000

export const LOCALE_COOKIE_NAME = 'lang'
export const LOCALE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60
/** Spec §9 "Locale message cache": 24 hours. */
export const LOCALE_MESSAGES_MAX_AGE_S = 24 * 60 * 60

/** Spec §9 "Breakpoints" in px. */
export const BREAKPOINTS = { sm: 640, md: 768, lg: 1024, xl: 1280, '2xl': 1536 } as const

/** Spec §9 "Avatar max": 5*1024*1024 bytes; image/png, image/jpeg, image/webp. */
export const AVATAR_MAX_BYTES = 5 * 1024 * 1024
export const AVATAR_MIME_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const

/** Spec §9 "Chat widget start and reload delay": 500 ms each. */
export const CHAT_WIDGET_DELAY_MS = 500

/** Spec §9 "Refresh retry limit"; "Session-expired / invalid-claim status". */
export const SESSION_REFRESH_RETRY_LIMIT = 10
export const SESSION_EXPIRED_STATUS = 401
export const INVALID_CLAIM_STATUS = 403

/** Spec §9 "Account-deletion reasons". */
export const ACCOUNT_DELETION_REASONS = [
  'negative service experience',
  'found alternative',
  'too expensive',
  'cannot find a program',
  'other',
] as const

/** Spec §2: the error page's defaults. */
export const ERROR_PAGE_DEFAULT_STATUS_MESSAGE = 'Page not found'
export const ERROR_PAGE_DEFAULT_CAUSE = 'The page you are trying to access does not exist'
/** Spec §2: an invalid route's error message is "Page Not Found" followed by the path. */
export function notFoundMessage(path: string): string {
  return `Page Not Found: ${path}`
}

/** The terms of service in force; a user who accepted an older version is asked again (/tos). */
export const TOS_VERSION = '2026-11-22'

/** Spec §8: the disabled-account page's message. */
export const ACCOUNT_DISABLED_MESSAGE = 'Your account has been disabled. If you believe this is an error, please contact support'

/** Spec §9 "Login warning threshold": warn when this many attempts or fewer remain. */
export const LOGIN_WARNING_THRESHOLD = 2

/** Spec §9 "Email verification recheck": 10 s. */
export const EMAIL_VERIFICATION_RECHECK_MS = 10_000

/** Spec §3 "TOTP device": deviceName is a fixed product name. */
export const TOTP_DEVICE_NAME = PRODUCT_NAME

/**
 * Against mail flooding (25 reset requests could send 20 mails in a minute): at most this many reset
 * or verification mails to one recipient (trimmed, lowercased) in any hour; past it nothing is
 * sent and the answer is unchanged.
 */
export const MAIL_PER_RECIPIENT_PER_HOUR = 5
export const MAIL_QUOTA_WINDOW_MS = 60 * 60_000

/**
 * The TOTP factor's attempt limit (AUTH-CORE.md §5.7, the real core's `totp_max_attempts` and
 * `totp_rate_limit_cooldown_sec` defaults): this many wrong codes in a row lock the factor for the
 * cool-down. The auth core's default app uses them, and recovery codes keep the same.
 */
export const TOTP_MAX_ATTEMPTS = 5
export const TOTP_COOLDOWN_S = 900

/** Recovery codes issued at a time; each is 16 base32 characters (80 bits), shown as xxxx-xxxx-xxxx-xxxx. */
export const RECOVERY_CODE_COUNT = 10

/**
 * Changing the email: the link that confirms a new address works this long, once; the
 * account keeps its address until then.
 */
export const EMAIL_CHANGE_LINK_VALIDITY_MS = 24 * 60 * 60_000

/**
 * Spec §9 "Ignored files folder name": the Windows recycle-bin folder that comes along when a whole
 * disk or folder is dragged in. Never created, listed, counted or shared, in any letter case.
 */
export const FILES_IGNORED_FOLDER_NAME = '$RECYCLE.BIN'
/** A file or folder name's longest form, in UTF-8 bytes (what common file systems allow). */
export const FILE_NAME_MAX_BYTES = 255
/** Items in the trash longer than this are purged for good. */
export const FILES_TRASH_RETENTION_DAYS = 30
/** FILES_QUOTA_BYTES and FILES_MAX_FILE_BYTES when unset (5 GiB and 2 GiB). */
export const FILES_DEFAULT_QUOTA_BYTES = 5 * 1024 ** 3
export const FILES_DEFAULT_MAX_FILE_BYTES = 2 * 1024 ** 3
/**
 * A share link without "allow download" previews a file in the page only
 * up to these sizes — images and PDFs as a browser shows them, plain text as text — so a preview
 * is never a download in disguise of anything large. Larger files show their name and size only.
 */
export const SHARE_PREVIEW_MAX_BYTES = { image: 20 * 1024 ** 2, pdf: 20 * 1024 ** 2, text: 1024 ** 2 } as const
