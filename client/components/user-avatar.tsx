import type { UserRecord } from '../../shared/types.ts'

/**
 * The account's picture (issue 11), or its initial on a coloured disc when there is none. The
 * picture is decorative next to the name or email it accompanies, so its text alternative is empty.
 */
export function UserAvatar({ user, size }: { user: Pick<UserRecord, 'avatarUrl' | 'name' | 'email'>; size: number }) {
  if (user.avatarUrl) return <img className="user-avatar" src={user.avatarUrl} alt="" width={size} height={size} decoding="async" />
  const initial = Array.from((user.name ?? user.email).trim())[0]?.toLocaleUpperCase() ?? '?'
  return (
    <span className="user-avatar user-avatar-initial" aria-hidden="true" style={{ width: size, height: size, fontSize: Math.round(size * 0.45) }}>
      {initial}
    </span>
  )
}
