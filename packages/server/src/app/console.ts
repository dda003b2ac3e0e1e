// The console (packages/console, docs/console.md): its built files served at `/`, with a
// Content-Security-Policy of its own and a single-page-app fallback. API routes are untouched: the
// fallback is a wildcard route, which the router only picks when no API route matches, and it
// answers index.html only to a GET that accepts HTML; anything else gets the usual 404 problem.
// The build writes brotli and gzip copies beside each compressible file (x.js.br, x.js.gz;
// packages/console/scripts/precompress.ts); @fastify/static's `preCompressed` sends the one the
// request's Accept-Encoding prefers (q-values honoured, q=0 refused), else the file itself.
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** Where `npm run build -w @tessera/console` writes (a sibling workspace; not imported, only served). */
const CONSOLE_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../console/dist')

/**
 * What the console needs and nothing else: its own scripts, styles and API calls; WebAssembly
 * compilation for the meshopt and Draco decoders ('wasm-unsafe-eval' allows compiling wasm, not
 * eval of JS); workers from 'self' (the viewer's bounds-tree worker, a file of the build) and blob:
 * (three's DRACOLoader starts its workers from a blob URL); data:/blob: images (textures decoded
 * from the GLB). No inline script or style, no other origin, no framing.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "img-src 'self' data: blob:",
  "connect-src 'self' data: blob:",
  "style-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** First path segments that belong to the API (and operations): never answered with the console. */
const API_SEGMENTS = new Set([
  'account',
  'admin',
  'annotation',
  'docs',
  'events',
  'file',
  'healthz',
  'metrics',
  'openapi.json',
  'readyz',
  'scene',
  'webhook',
  '.well-known',
])

/** A browser navigating to one of the console's own paths (a bookmark, a reload). */
function wantsConsolePage(request: FastifyRequest): boolean {
  if (!(request.headers.accept ?? '').includes('text/html')) return false
  const first = request.url.split('?')[0]?.split('/')[1] ?? ''
  return !API_SEGMENTS.has(first)
}

/**
 * Registers the console when it has been built (dist/index.html exists); otherwise `/` keeps
 * answering 404 and a warning says how to build it. Returns whether it is served.
 */
export async function consoleRoutes(app: FastifyInstance, dist = CONSOLE_DIST): Promise<boolean> {
  if (!existsSync(path.join(dist, 'index.html'))) {
    app.log.warn({ dist }, 'console not built (npm run build -w @tessera/console): / is not served')
    return false
  }
  await app.register(async (scope) => {
    await scope.register(fastifyStatic, {
      root: dist,
      prefix: '/',
      // Only the files present at start get routes: no wildcard that would shadow API 404s.
      wildcard: false,
      // The compressed copies are representations of their file, not files of their own.
      globIgnore: ['**/*.br', '**/*.gz'],
      preCompressed: true,
      index: false,
      // reply.sendFile (below, for index.html) stays inside this scope.
      decorateReply: true,
      // Cache-Control is set per file below (the plugin's own would override it).
      cacheControl: false,
      // Hashed asset names never change content: cache them for a year; the rest revalidates.
      // `filePath` is the file sent: x.js.br for a brotli answer, so each encoding has its own
      // ETag (size and mtime of what is sent) and Content-Length. Every answer varies with
      // Accept-Encoding, the identity one too: a shared cache must not give it to a brotli client.
      setHeaders: (res, filePath) => {
        res.setHeader('content-security-policy', CONSOLE_CSP)
        res.setHeader('x-content-type-options', 'nosniff')
        res.setHeader('referrer-policy', 'same-origin')
        res.setHeader('vary', 'accept-encoding')
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`)
        res.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      },
    })
    // index.html through the same path as the assets: its brotli/gzip copy, ETag and 304.
    const sendIndex = (reply: FastifyReply): FastifyReply => reply.sendFile('index.html')
    scope.get('/', { config: { auth: 'none' }, schema: { hide: true } }, (_request, reply) =>
      sendIndex(reply),
    )
    // The SPA fallback: only reached when no other route matches the path.
    scope.get('/*', { config: { auth: 'none' }, schema: { hide: true } }, (request, reply) => {
      if (!wantsConsolePage(request)) return reply.callNotFound()
      return sendIndex(reply)
    })
  })
  return true
}
