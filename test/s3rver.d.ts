// s3rver ships no types; the little the tests use of it.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net'
  import type { Server } from 'node:http'

  interface S3rverOptions {
    address?: string
    port?: number
    silent?: boolean
    directory: string
    resetOnClose?: boolean
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>
  }

  export default class S3rver {
    constructor(options: S3rverOptions)
    httpServer: Server | undefined
    run(): Promise<AddressInfo | string | null>
    close(): Promise<void>
  }
}
