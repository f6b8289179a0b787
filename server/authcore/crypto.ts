import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto'

// Small crypto helpers of the auth core. Tokens handed out are random; what is stored is a hash
// or, where the core must read the value back (signing keys, TOTP secrets, refresh tokens' inner
// data), AES-256-GCM ciphertext under a key derived from AUTH_CORE_SECRET.

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}

export function uuid(): string {
  return randomUUID()
}

/** URL-safe random token of `bytes` random bytes. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url')
}

/** Authenticated encryption with keys derived per purpose from one secret. */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>()

  constructor(private readonly secret: string) {
    if (secret.length < 32) throw new Error('AUTH_CORE_SECRET must be at least 32 characters')
  }

  private key(purpose: string): Buffer {
    let key = this.keys.get(purpose)
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.secret, 'softshelf-authcore', purpose, 32))
      this.keys.set(purpose, key)
    }
    return key
  }

  seal(purpose: string, plain: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key(purpose), iv)
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
  }

  /** null when the text was not sealed by us for this purpose (tampered, foreign, garbage). */
  open(purpose: string, sealed: string): string | null {
    try {
      const raw = Buffer.from(sealed, 'base64url')
      if (raw.length < 29) return null
      const decipher = createDecipheriv('aes-256-gcm', this.key(purpose), raw.subarray(0, 12))
      decipher.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    } catch {
      return null
    }
  }
}
