import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// One config for the browser bundle (dist/client) and the server-rendering bundle (dist/ssr,
// built with --ssr). In development the BFF runs Vite in middleware mode.
export default defineConfig(({ isSsrBuild }) => ({
  plugins: [react()],
  publicDir: 'public',
  build: isSsrBuild
    ? { outDir: 'dist/ssr', emptyOutDir: true, target: 'node20', sourcemap: true, copyPublicDir: false }
    : { outDir: 'dist/client', emptyOutDir: true, manifest: true, sourcemap: false, target: 'es2022', assetsInlineLimit: 0 },
  ssr: { noExternal: [] },
  server: { middlewareMode: true },
  appType: 'custom',
}))
