import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import S3rver from 's3rver'

// A real S3-compatible server on loopback (s3rver, files in a temporary folder) for the drive's
// S3 storage: the tests talk to it with the same SDK and settings as production talks to a bucket.
// s3rver knows one key pair and refuses another access key id (403) as S3 does; it does not check
// version 4 signatures, so a wrong secret passes here where S3 would refuse it.

/** s3rver's built-in key pair (it knows no other). */
export const S3RVER_ACCESS_KEY_ID = 'S3RVER'
export const S3RVER_SECRET_ACCESS_KEY = 'S3RVER'

/** Whoever owns the server's lifetime: a tap test, or a script. */
interface Owner {
  teardown(fn: () => unknown): void
}

export interface S3TestServer {
  /** The endpoint, S3_URL. */
  url: string
  bucket: string
  /** The S3_* variables that point the app at this server. */
  env: Record<string, string>
  /** What S3Storage takes, for tests that build one directly. */
  options: { url: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string }
  /** Stops it now (a bucket that goes away); teardown does it otherwise. */
  stop(): Promise<void>
}

export async function startS3Server(owner: Owner, bucket = 'softshelf-test'): Promise<S3TestServer> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-s3-'))
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] })
  const { port } = (await server.run()) as AddressInfo
  let stopped: Promise<void> | undefined
  const stop = () =>
    (stopped ??= (async () => {
      // The SDK keeps connections alive; close them, or close() waits for them to idle out.
      server.httpServer?.closeAllConnections()
      await server.close()
      fs.rmSync(directory, { recursive: true, force: true })
    })())
  owner.teardown(stop)
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    bucket,
    env: { S3_URL: url, S3_BUCKET: bucket, S3_ACCESS_KEY_ID: S3RVER_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: S3RVER_SECRET_ACCESS_KEY },
    options: { url, bucket, region: 'us-east-1', accessKeyId: S3RVER_ACCESS_KEY_ID, secretAccessKey: S3RVER_SECRET_ACCESS_KEY },
    stop,
  }
}
