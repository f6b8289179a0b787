import { randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import nodemailer, { type Transporter } from 'nodemailer'

// Outgoing email (DESIGN.md §4.10): SMTP through nodemailer when SMTP_URL is set; otherwise a
// local mailbox folder under DATA_DIR that /dev/mail shows, so a newcomer can follow a
// verification link without a mail server. A deployment on a real database must set SMTP_URL
// (config.ts mailProblem; decision 007).

export interface OutgoingMail {
  to: string
  subject: string
  text: string
  html: string
  /**
   * The outbox's id of this mail (a UUID): every try of one mail carries it, as the Message-ID
   * and as the mailbox file's name, so a mail sent twice (delivery is at least once) is
   * recognisable as one.
   */
  messageId?: string
  /** Headers of its own (a notification mail's List-Unsubscribe, RFC 8058); the mailbox keeps them too. */
  headers?: Record<string, string>
}

export interface StoredMail extends OutgoingMail {
  id: string
  from: string
  sentAt: string
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>
  /** Throws when mail cannot go out now (the SMTP server does not answer). */
  check(): Promise<void>
  close(): Promise<void>
}

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    // Bounded waits: a dead mail server must not hold a sign-up for minutes.
    this.transport = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never)
  }

  async send(mail: OutgoingMail): Promise<void> {
    const { messageId, ...message } = mail
    await this.transport.sendMail({ from: this.from, ...message, ...(messageId ? { messageId: `<${messageId}@${messageIdDomain(this.from)}>` } : {}) })
  }

  async check(): Promise<void> {
    await this.transport.verify()
  }

  async close(): Promise<void> {
    this.transport.close()
  }
}

/** The sender's domain, the right-hand side of our Message-IDs. */
export function messageIdDomain(from: string): string {
  const address = /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from
  const domain = address.slice(address.lastIndexOf('@') + 1).trim()
  return /^[A-Za-z0-9.-]+$/.test(domain) ? domain : 'softshelf.invalid'
}

const MAIL_ID = /^[0-9]{13}-[0-9a-f-]{36}$/

/** One JSON file per message, newest last by name; kept until the folder is cleaned by hand. */
export class MailboxMailer implements Mailer {
  constructor(
    readonly folder: string,
    private readonly from: string,
  ) {}

  /**
   * Writes and removes a probe message: the folder can take one (a full or read-only disk says
   * no), and a request that sends nothing costs what one that sends does.
   */
  async check(): Promise<void> {
    await fs.mkdir(this.folder, { recursive: true, mode: 0o700 })
    const probe = path.join(this.folder, `probe-${Date.now()}-${randomUUID()}.json.tmp`)
    await fs.writeFile(probe, JSON.stringify({ id: 'probe', from: this.from, sentAt: new Date().toISOString(), to: '', subject: '', text: '', html: '' }), { mode: 0o600 })
    await fs.rename(probe, `${probe}.check`)
    await fs.rm(`${probe}.check`, { force: true })
  }

  async send(mail: OutgoingMail): Promise<void> {
    await fs.mkdir(this.folder, { recursive: true, mode: 0o700 })
    const { messageId, ...message } = mail
    // A mail tried again after a try that did write it (at-least-once) is not written twice.
    if (messageId && (await fs.readdir(this.folder)).some((name) => name.endsWith(`-${messageId}.json`))) return
    const id = `${Date.now()}-${messageId ?? randomUUID()}`
    const stored: StoredMail = { id, from: this.from, sentAt: new Date().toISOString(), ...message }
    // Written under a temporary name and renamed: a reader never sees half a message.
    const file = path.join(this.folder, `${id}.json`)
    await fs.writeFile(`${file}.tmp`, JSON.stringify(stored), { mode: 0o600 })
    await fs.rename(`${file}.tmp`, file)
  }

  /** The newest messages first. */
  async list(limit = 100): Promise<StoredMail[]> {
    let names: string[]
    try {
      names = await fs.readdir(this.folder)
    } catch {
      return []
    }
    const ids = names
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .filter((id) => MAIL_ID.test(id))
      .sort()
      .reverse()
      .slice(0, limit)
    const mails = await Promise.all(ids.map((id) => this.read(id)))
    return mails.filter((mail): mail is StoredMail => mail !== null)
  }

  async read(id: string): Promise<StoredMail | null> {
    if (!MAIL_ID.test(id)) return null
    try {
      return JSON.parse(await fs.readFile(path.join(this.folder, `${id}.json`), 'utf8')) as StoredMail
    } catch {
      return null
    }
  }

  async close(): Promise<void> {}
}
