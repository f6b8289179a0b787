import { dictionary } from '@zxcvbn-ts/language-common'
import { PASSWORD_ERRORS } from '../../../shared/auth/sign-up.ts'

// SECURITY.md "Sign-in abuse": the 3000 most common passwords are refused, whatever their case.
// The ranked list is zxcvbn-ts's (passwords seen most often in breaches, most common first).

export const COMMON_PASSWORDS_REFUSED = 3000

const common = new Set((dictionary['passwords-common'] as string[]).slice(0, COMMON_PASSWORDS_REFUSED).map((password) => password.toLowerCase()))

export function commonPasswordProblem(password: string): string | undefined {
  return common.has(password.toLowerCase()) ? PASSWORD_ERRORS.common : undefined
}
