import type { OpenApiOperation, OpenApiPathItem } from '../../http/openapi.ts'

// The /auth operations the browser app makes through supertokens-web-js (client/lib/session/auth.ts and
// the pages that use it), described by hand: supertokens-node answers them inside one catch-all
// route, so there is no route schema to generate them from. Shapes follow the SDK's frontend
// driver interface (FDI 4.x) as our overrides answer it. test/integration/bff/openapi.test.ts
// checks that the SDK really answers every one of them.

const TAG = 'auth'

type Schema = Record<string, unknown>

const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) })
const obj = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({ type: 'object', required, properties })
const status = (...values: string[]): Schema => (values.length === 1 ? { const: values[0] } : { enum: values })
const oneOf = (...schemas: Schema[]): Schema => ({ oneOf: schemas })

const formFields = (description: string): Schema => ({
  type: 'array',
  description,
  items: obj({ id: str(), value: {} }),
})

const user: Schema = {
  type: 'object',
  description: 'The account (supertokens-node User).',
  required: ['id', 'emails'],
  properties: {
    id: str(),
    emails: { type: 'array', items: str() },
    timeJoined: { type: 'integer' },
    isPrimaryUser: { type: 'boolean' },
    loginMethods: { type: 'array', items: { type: 'object' } },
  },
}

const fieldError = obj({ status: status('FIELD_ERROR'), formFields: { type: 'array', items: obj({ id: str(), error: str() }) } })
const generalError = obj({ status: status('GENERAL_ERROR'), message: str() })
const invalidTotp = obj({ status: status('INVALID_TOTP_ERROR'), currentNumberOfFailedAttempts: { type: 'integer' }, maxNumberOfFailedAttempts: { type: 'integer' } })
const limitReached = obj({ status: status('LIMIT_REACHED_ERROR'), retryAfterMs: { type: 'integer' } })

function json(description: string, schema: Schema) {
  return { description, content: { 'application/json': { schema } } }
}

/** The SDK's own errors: 401 (no session, or refresh it), 403 (a claim such as the second factor is missing). */
const sessionErrors = {
  '401': json('No session, or its access token has expired: POST /auth/session/refresh, then retry.', obj({ message: str() })),
  '403': json('The session lacks a claim this call needs (e.g. a verified email, the second factor).', obj({ message: str(), claimValidationErrors: { type: 'array', items: { type: 'object' } } }, ['message'])),
}

function operation(operationId: string, summary: string, fields: { session?: boolean; write?: boolean; body?: Schema; query?: Array<{ name: string; required?: boolean; description?: string }>; ok: Schema; extra?: Record<string, unknown> }): OpenApiOperation {
  const parameters: unknown[] = []
  // DESIGN.md §4.4: every write needs the custom header (supertokens-web-js sends rid: anti-csrf).
  if (fields.write !== false) parameters.push({ name: 'rid', in: 'header', required: true, description: 'Any non-empty value (the SDK sends "anti-csrf"); a write without it is refused.', schema: str() })
  for (const query of fields.query ?? []) parameters.push({ name: query.name, in: 'query', required: query.required ?? true, ...(query.description ? { description: query.description } : {}), schema: str() })
  return {
    operationId,
    summary,
    tags: [TAG],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(fields.body ? { requestBody: { required: true, content: { 'application/json': { schema: fields.body } } } } : {}),
    ...(fields.session ? { security: [{ session: [] }] } : {}),
    responses: {
      '200': json('The SDK answers 200 for every outcome its `status` names.', fields.ok),
      ...(fields.session ? sessionErrors : {}),
      ...fields.extra,
    },
  }
}

/** Where the mailed link leads back to after signing in (checked: a path on this site only). */
const carriedTarget = [
  { name: 'redirectToPath', required: false, description: 'A path on this site the emailed link carries on (the account pages come back to it after signing in); anything else is dropped.' },
  { name: 'action', required: false, description: '"add": with a /@/programs/{id} target, the program is added to the library once the user is signed in.' },
]

const signInBlocked = json(
  'Login-attempt blocking (spec §6): too many wrong passwords for this email (`ACCOUNT_BLOCKED`); or every allowed check for it was still under way after `LOGIN_WAIT_MS` (`SIGN_IN_IN_PROGRESS`, not a block: `Retry-After: 1`).',
  oneOf(
    obj({ status: status('ACCOUNT_BLOCKED'), message: str(), blockedUntil: { type: ['string', 'null'] }, attemptCount: { type: 'integer' } }),
    obj({ status: status('SIGN_IN_IN_PROGRESS'), message: str() }),
  ),
)

/** The /auth paths and their operations, as they go into the merged document. */
export function authPaths(): Record<string, OpenApiPathItem> {
  return {
    '/auth/signup': {
      post: operation('authSignUp', 'Sign up with email and password; starts a session (cookies).', {
        query: carriedTarget,
        body: obj({ formFields: formFields('email, password; optional isInMailList (boolean) and utm (object).') }),
        ok: oneOf(obj({ status: status('OK'), user }), fieldError, obj({ status: status('SIGN_UP_NOT_ALLOWED'), reason: str() }), generalError),
      }),
    },
    '/auth/signin': {
      post: operation('authSignIn', 'Sign in with email and password; starts a session (cookies).', {
        body: obj({ formFields: formFields('email and password.') }),
        ok: oneOf(obj({ status: status('OK'), user }), obj({ status: status('WRONG_CREDENTIALS_ERROR') }), fieldError, obj({ status: status('SIGN_IN_NOT_ALLOWED'), reason: str() }), generalError),
        extra: { '429': signInBlocked },
      }),
    },
    '/auth/signout': {
      post: operation('authSignOut', 'End the session and clear its cookies.', { session: true, ok: obj({ status: status('OK') }) }),
    },
    '/auth/session/refresh': {
      post: operation('authRefreshSession', 'New access token from the refresh cookie (sent to this path only).', {
        ok: { type: 'object', description: 'New session cookies and the front-token header.' },
        extra: { '401': json('No valid refresh token: the session has ended.', obj({ message: str() })) },
      }),
    },
    '/auth/user/email/verify': {
      get: operation('authIsEmailVerified', "Whether the session's email is verified.", { session: true, write: false, ok: obj({ status: status('OK'), isVerified: { type: 'boolean' } }) }),
      post: operation('authVerifyEmail', 'Verify an email with the token from the emailed link.', {
        body: obj({ method: status('token'), token: str() }),
        ok: oneOf(obj({ status: status('OK'), user }), obj({ status: status('EMAIL_VERIFICATION_INVALID_TOKEN_ERROR') }), generalError),
      }),
    },
    '/auth/user/email/verify/token': {
      post: operation('authSendVerificationEmail', "Email a verification link to the session's address.", {
        session: true,
        query: carriedTarget,
        ok: oneOf(obj({ status: status('OK') }), obj({ status: status('EMAIL_ALREADY_VERIFIED_ERROR') })),
      }),
    },
    '/auth/user/password/reset/token': {
      post: operation('authSendPasswordResetEmail', 'Email a password-reset link (answers OK whether or not the account exists).', {
        query: carriedTarget,
        body: obj({ formFields: formFields('email.') }),
        ok: oneOf(obj({ status: status('OK') }), fieldError, obj({ status: status('PASSWORD_RESET_NOT_ALLOWED'), reason: str() }), generalError),
      }),
    },
    '/auth/user/password/reset/token/check': {
      get: operation('authCheckPasswordResetToken', "Whether a reset link's token can still be used, without using it (the BFF's own).", {
        write: false,
        query: [{ name: 'token', description: 'The token of the emailed link.' }],
        ok: oneOf(obj({ status: status('OK') }), obj({ status: status('RESET_PASSWORD_INVALID_TOKEN_ERROR') })),
        extra: { '503': json('The auth core cannot be asked right now.', obj({ message: str() })) },
      }),
    },
    '/auth/user/password/reset': {
      post: operation('authResetPassword', 'Set a new password with the token from the emailed link.', {
        body: obj({ token: str(), formFields: formFields('password.') }),
        ok: oneOf(obj({ status: status('OK') }), obj({ status: status('RESET_PASSWORD_INVALID_TOKEN_ERROR') }), fieldError, generalError),
      }),
    },
    '/auth/authorisationurl': {
      get: operation('authGetAuthorisationUrl', "The external provider's sign-in URL to send the browser to.", {
        write: false,
        query: [
          { name: 'thirdPartyId', description: 'google, github or oidc (the ones configured).' },
          { name: 'redirectURIOnProviderDashboard', description: 'APP_URL/auth-callback/<thirdPartyId>.' },
          { name: 'clientType', required: false, description: '"web" or left out.' },
        ],
        ok: obj({ status: status('OK'), urlWithQueryParams: str(), pkceCodeVerifier: str() }, ['status', 'urlWithQueryParams']),
        extra: { '400': json('An unknown provider or client type.', obj({ message: str() })) },
      }),
    },
    '/auth/signinup': {
      post: operation('authThirdPartySignInUp', 'Finish an external sign-in with what the provider sent back; starts a session.', {
        body: obj(
          {
            thirdPartyId: str(),
            clientType: str('"web" or left out.'),
            redirectURIInfo: obj({ redirectURIOnProviderDashboard: str(), redirectURIQueryParams: { type: 'object' }, pkceCodeVerifier: str() }, ['redirectURIOnProviderDashboard', 'redirectURIQueryParams']),
            utm: { type: 'object', description: 'Optional campaign record, kept for a new account.' },
          },
          ['thirdPartyId', 'redirectURIInfo'],
        ),
        ok: oneOf(obj({ status: status('OK'), user, createdNewRecipeUser: { type: 'boolean' } }), obj({ status: status('NO_EMAIL_GIVEN_BY_PROVIDER') }), obj({ status: status('SIGN_IN_UP_NOT_ALLOWED'), reason: str() }), generalError),
      }),
    },
    '/auth/mfa/info': {
      put: operation('authMfaInfo', 'Refresh the session\'s second-factor claim and list the factors.', {
        session: true,
        ok: obj({ status: status('OK'), factors: obj({ next: { type: 'array', items: str() }, alreadySetup: { type: 'array', items: str() }, allowedToSetup: { type: 'array', items: str() } }), emails: { type: 'object' }, phoneNumbers: { type: 'object' } }, ['status', 'factors']),
      }),
    },
    '/auth/totp/device': {
      post: operation('authCreateTotpDevice', 'Create an authenticator (not yet verified): its secret and QR code string. An account with a confirmed one must prove it: a current code in `totp` or a recovery code (spent) in `recoveryCode`; else 400 BFF_TOTP_CODE_REQUIRED.', {
        session: true,
        body: obj({ deviceName: str(), totp: str(), recoveryCode: str() }, []),
        ok: oneOf(obj({ status: status('OK'), deviceName: str(), secret: str(), qrCodeString: str() }), obj({ status: status('DEVICE_ALREADY_EXISTS_ERROR') })),
      }),
    },
    '/auth/totp/device/list': {
      get: operation('authListTotpDevices', "The session user's authenticators.", {
        session: true,
        write: false,
        ok: obj({ status: status('OK'), devices: { type: 'array', items: obj({ name: str(), period: { type: 'integer' }, skew: { type: 'integer' }, verified: { type: 'boolean' } }) } }),
      }),
    },
    '/auth/totp/device/remove': {
      post: operation('authRemoveTotpDevice', 'Remove an authenticator.', { session: true, body: obj({ deviceName: str() }), ok: obj({ status: status('OK'), didDeviceExist: { type: 'boolean' } }) }),
    },
    '/auth/totp/device/verify': {
      post: operation('authVerifyTotpDevice', 'Confirm a new authenticator with a current code; completes the second factor.', {
        session: true,
        body: obj({ deviceName: str(), totp: str() }),
        ok: oneOf(obj({ status: status('OK'), wasAlreadyVerified: { type: 'boolean' } }), obj({ status: status('UNKNOWN_DEVICE_ERROR') }), invalidTotp, limitReached),
      }),
    },
    '/auth/totp/verify': {
      post: operation('authVerifyTotp', 'The second factor at sign-in: a current code from a verified authenticator.', {
        session: true,
        body: obj({ totp: str() }),
        ok: oneOf(obj({ status: status('OK') }), obj({ status: status('UNKNOWN_USER_ID_ERROR') }), invalidTotp, limitReached),
      }),
    },
  }
}
