import type { UserRecord } from '../../shared/types.ts'

/** The two sizes in use, in CSS pixels: the header's and the profile's. */
const SIZES = { small: 28, large: 96 } as const

/**
 * The account's picture, or its initial on a coloured disc when there is none. The
 * picture is decorative next to the name or email it accompanies, so its text alternative is empty.
 * Sized by class, never by a style attribute: the pages' CSP refuses inline styles, and a server-
 * rendered one stays refused after hydration.
 */
export function UserAvatar({ user, size }: { user: Pick<UserRecord, 'avatarUrl' | 'name' | 'email'>; size: keyof typeof SIZES }) {
  const pixels = SIZES[size]
  if (user.avatarUrl) return <img className={`user-avatar user-avatar-${size}`} src={user.avatarUrl} alt="" width={pixels} height={pixels} decoding="async" />
  const initial = Array.from((user.name ?? user.email).trim())[0]?.toLocaleUpperCase() ?? '?'
  return (
    <span className={`user-avatar user-avatar-initial user-avatar-${size}`} aria-hidden="true">
      {initial}
    </span>
  )
}
