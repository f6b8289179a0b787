import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

// A real SMTP server on loopback (smtp-server) that keeps what it receives: the mail tests and the
// browser tests read the app's emails from it, as an operator's mail server would get them.

export interface ReceivedMail {
  from: string
  to: string[]
  raw: string
}

/** Whoever owns the server's lifetime: a tap test, or the browser tests' service process. */
interface Owner {
  teardown(fn: () => unknown): void
}

export interface SmtpTestServer {
  url: string
  received: ReceivedMail[]
  /** Closes the listener, as a mail server that went down: connections to its port are refused. */
  stop(): Promise<void>
  /** Listens again on the same port (the app's SMTP_URL stays right). */
  start(): Promise<void>
}

export async function startSmtpServer(owner: Owner, port = 0): Promise<SmtpTestServer> {
  const received: ReceivedMail[] = []
  const listen = async (onPort: number) => {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          })
          callback()
        })
      },
    })
    await new Promise<void>((resolve) => server.listen(onPort, '127.0.0.1', resolve))
    return server
  }
  let server: SMTPServer | undefined = await listen(port)
  const boundPort = (server.server.address() as AddressInfo).port
  const stop = async () => {
    const closing = server
    server = undefined
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()))
  }
  owner.teardown(stop)
  return {
    url: `smtp://127.0.0.1:${boundPort}`,
    received,
    stop,
    async start() {
      server ??= await listen(boundPort)
    },
  }
}

/** The quoted-printable body of a message, decoded enough to read its subject and links. */
export function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
}
