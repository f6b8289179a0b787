/** The peer as a plain production Next.js app: no telemetry, no image optimiser in the way. */
export default {
  poweredByHeader: false,
  images: { unoptimized: true },
  typescript: { ignoreBuildErrors: true },
}
