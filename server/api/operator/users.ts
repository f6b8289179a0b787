import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { purchasesOfUser } from '../checkout/purchases.ts'
import { ApiUserNotFound, ApiAlreadyVerified, ApiCannotDisableSelf, ApiValidation, USER_NOT_FOUND } from '../errors.ts'
import { changeDisabled, disabledOf, operatorRecord, type DisabledChange } from '../users/repository.ts'
import type { coreAccounts } from '../users/core-accounts.ts'
import type { Database } from '../../db/database.ts'
import { recordAudit, type AuditActor } from './audit-log.ts'
import type { OperatorRoutesOptions } from './options.ts'

// Accounts: find accounts by email with the auth core's search, look at one (the core's
// account, authenticator, roles and sessions with the product's record: library, purchases,
// disabled and why), disable it with a reason and enable it again, end its sessions. Every action
// is written to the audit log with the change, in the same transaction.

/** Accounts per page of the search. */
export const ACCOUNT_SEARCH_PAGE = 20
export const DISABLE_REASON_MAX = 500

type Core = ReturnType<typeof coreAccounts>

const Actor = Type.Object({ id: Type.String(), email: Type.String() })
const AccountRow = Type.Object({
  id: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  joined: Type.Union([Type.String(), Type.Null()], { description: 'ISO time the account was made.' }),
  verified: Type.Boolean({ description: 'Its email address is verified.' }),
  disabled: Type.Boolean(),
})
const Purchase = Type.Object({
  programId: Type.String(),
  purchasedAt: Type.String(),
  period: Type.String(),
  status: Type.String(),
  cancelAtPeriodEnd: Type.Boolean(),
  currentPeriodEnd: Type.Union([Type.String(), Type.Null()]),
  kind: Type.String({ description: 'payment (one-time) or subscription.' }),
  amount: Type.String({ description: 'As charged, formatted, e.g. "€12.00".' }),
  checkoutSessionId: Type.String(),
  endedAt: Type.Union([Type.String(), Type.Null()]),
})
const Disabled = Type.Union(
  [
    Type.Object({
      at: Type.String({ description: 'ISO time it was disabled.' }),
      reason: Type.Union([Type.String(), Type.Null()], { description: 'Null when disabled by a command without one.' }),
      by: Type.Union([Actor, Type.Null()]),
    }),
    Type.Null(),
  ],
  { description: 'Null while the account is enabled.' },
)
const AccountDetail = Type.Object({
  id: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  joined: Type.Union([Type.String(), Type.Null()]),
  verified: Type.Boolean(),
  authenticator: Type.Boolean({ description: 'A confirmed authenticator app (TOTP) is on.' }),
  roles: Type.Array(Type.String()),
  sessions: Type.Object({
    count: Type.Integer(),
    list: Type.Array(
      Type.Object({ createdAt: Type.String(), lastUsedAt: Type.String(), userAgent: Type.Union([Type.String(), Type.Null()]) }),
      { description: 'Oldest first.' },
    ),
  }),
  librarySize: Type.Integer(),
  purchases: Type.Array(Purchase),
  disabled: Disabled,
})
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) })
const DisableBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: DISABLE_REASON_MAX, description: `Why, for the record and the next operator: 1 to ${DISABLE_REASON_MAX} characters.` }) },
  { additionalProperties: false },
)

async function usersRoutes(plugin: FastifyInstance, opts: OperatorRoutesOptions): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const db = app.db
  const core = opts.core

  app.get(
    '/api/operator/users',
    {
      schema: {
        description: 'Finds accounts by email, like the auth core: a term matches the start of the address or of its domain; `;` separates terms. A page at a time, oldest account first.',
        querystring: Type.Object({
          email: Type.String({ maxLength: 500, description: 'One or more terms separated by `;`.' }),
          next: Type.Optional(Type.String({ maxLength: 500, description: 'The `next` of the previous page.' })),
        }),
        response: { 200: Type.Object({ users: Type.Array(AccountRow), next: Type.Union([Type.String(), Type.Null()], { description: 'Null on the last page.' }) }) },
      },
    },
    async (request) => {
      const terms = request.query.email.split(';').map((term) => term.trim()).filter((term) => term !== '')
      if (terms.length === 0) throw new ApiValidation('email: give the start of an address or of its domain, e.g. "anna" or "example.com"; several separated by ";".')
      const page = await core.searchUsers(terms.join(';'), request.query.next, ACCOUNT_SEARCH_PAGE, request.id)
      if (page === 'invalidToken') throw new ApiValidation('next: this is not a page of this search; search again.')
      const disabled = await disabledOf(db, page.users.map((user) => user.id))
      return { users: page.users.map(({ recipeUserId: _, ...user }) => ({ ...user, disabled: disabled.get(user.id) ?? false })), next: page.next }
    },
  )

  app.get(
    '/api/operator/users/:id',
    {
      schema: {
        description: 'One account: the auth core\'s (email, verified, authenticator, roles, sessions) with the product\'s record (library, purchases, disabled and why).',
        params: IdParams,
        response: { 200: AccountDetail },
      },
    },
    async (request) => accountDetail(db, core, request.params.id, request.id),
  )

  app.post(
    '/api/operator/users/:id/disable',
    {
      schema: {
        description: 'Disables the account with a reason and ends every session of it: within 2 seconds the user sees the disabled message on every page and API_ACCOUNT_DISABLED from the API, and cannot sign in. Answers the account as it is now.',
        params: IdParams,
        body: DisableBody,
        response: { 200: AccountDetail },
      },
    },
    async (request) => {
      const reason = request.body.reason.trim()
      if (reason === '') throw new ApiValidation(`reason: say why the account is disabled (1 to ${DISABLE_REASON_MAX} characters).`)
      const operator = request.operator!
      if (request.params.id.trim().toLowerCase() === operator.id.toLowerCase()) throw new ApiCannotDisableSelf()
      await setDisabled(db, core, request, request.params.id, { disabled: true, reason, by: operator })
      return accountDetail(db, core, request.params.id, request.id)
    },
  )

  app.post(
    '/api/operator/users/:id/enable',
    {
      schema: { description: 'Enables the account again; the reason is cleared (the audit log keeps it).', params: IdParams, response: { 200: AccountDetail } },
    },
    async (request) => {
      await setDisabled(db, core, request, request.params.id, { disabled: false })
      return accountDetail(db, core, request.params.id, request.id)
    },
  )

  app.post(
    '/api/operator/users/:id/sessions/end',
    {
      schema: {
        description: 'Ends every session of the account: it is signed out everywhere within a second.',
        params: IdParams,
        response: { 200: Type.Object({ sessionsEnded: Type.Integer() }) },
      },
    },
    async (request) => {
      const { id } = request.params
      if (!(await core.user(id, request.id))) throw new ApiUserNotFound(USER_NOT_FOUND.named)
      const sessionsEnded = await core.endSessions(id, request.id)
      await recordAudit(db, { actor: request.operator!, action: 'user.sessions.end', target: `user:${id}`, before: { sessions: sessionsEnded }, after: { sessions: 0 }, requestId: request.id })
      return { sessionsEnded }
    },
  )

  // The verification mail is the BFF's to send (the SDK's email verification, in the account's
  // language, through the outbox): the BFF answers this path itself (server/bff/auth/
  // operator-verification.ts), asks here first — the permission, the account, not verified yet,
  // the audit entry — and sends the mail to what this answers.
  app.post(
    '/api/operator/users/:id/verification/resend',
    {
      schema: {
        description: 'Sends the account a new verification link (answered by the BFF, which sends the mail after this API route checked and audited it). 202 when the mail is on its way.',
        params: IdParams,
        response: {
          200: Type.Object(
            { userId: Type.String(), recipeUserId: Type.String(), email: Type.String() },
            { description: 'Only to the BFF, which sends the mail and answers the browser 202 `{ sent: true }`.' },
          ),
        },
      },
    },
    async (request) => {
      const { id } = request.params
      const account = await core.user(id, request.id)
      if (!account || account.email === null || account.recipeUserId === null) throw new ApiUserNotFound(USER_NOT_FOUND.named)
      if (account.verified) throw new ApiAlreadyVerified()
      await recordAudit(db, { actor: request.operator!, action: 'user.verification.resend', target: `user:${id}`, before: null, after: { email: account.email }, requestId: request.id })
      return { userId: account.id, recipeUserId: account.recipeUserId, email: account.email }
    },
  )
}

async function setDisabled(db: Database, core: Core, request: FastifyRequest, id: string, change: DisabledChange): Promise<void> {
  const done = await changeDisabled(db, { id }, change, { actor: request.operator!, requestId: request.id })
  if (!done) throw new ApiUserNotFound(USER_NOT_FOUND.named)
  if (change.disabled) await endSessionsOfDisabled(core, id, request)
}

/**
 * A disabled account's sessions end with it (the core's revocation list: refused within a second on
 * every instance). The account is disabled already: should the core not answer, every request of
 * its sessions is still refused (API_ACCOUNT_DISABLED), and the error says to try again.
 */
async function endSessionsOfDisabled(core: Core, id: string, request: FastifyRequest): Promise<void> {
  const ended = await core.endSessions(id, request.id)
  request.log.info({ event: 'account-disabled', sessionsEnded: ended }, 'an operator disabled an account; its sessions ended')
}

async function accountDetail(db: Database, core: Core, id: string, requestId: string) {
  const account = await core.user(id, requestId)
  if (!account) throw new ApiUserNotFound(USER_NOT_FOUND.named)
  const [authenticator, roles, sessions, record, purchases] = await Promise.all([
    core.authenticatorOn(id, requestId),
    core.userRoles(id, requestId).then((roles) => roles.sort()),
    core.sessions(id, requestId),
    operatorRecord(db, id),
    purchasesOfUser(db, id),
  ])
  const { recipeUserId: _, ...facts } = account
  return {
    ...facts,
    email: account.email ?? record?.email ?? null,
    authenticator,
    roles,
    sessions: { count: sessions.length, list: sessions },
    librarySize: record?.librarySize ?? 0,
    purchases,
    disabled: record?.disabled ? { at: record.disabledAt!, reason: record.reason, by: record.by } : null,
  }
}

/** The actor of `npm run accounts` (no person signed in: the command on the server). */
export const OPERATOR_COMMAND: AuditActor = { id: 'operator-command', email: 'npm run accounts' }

/** Disables or enables by email for the command, audited, ending the sessions like the console; false when no account uses the email. */
export async function setDisabledByCommand(db: Database, core: Core | undefined, email: string, change: { disabled: true; reason: string | null } | { disabled: false }, requestId: string): Promise<boolean> {
  const done = await changeDisabled(db, { email }, change.disabled ? { ...change, by: OPERATOR_COMMAND } : change, { actor: OPERATOR_COMMAND, requestId })
  if (!done) return false
  if (change.disabled && core) await core.endSessions(done.id, requestId)
  return true
}

export default fp(usersRoutes, { name: 'operator-users-routes', encapsulate: true, decorators: { fastify: ['db'] } })
