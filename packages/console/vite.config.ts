// Vite build of the console. The Draco decoder files are copied from three's examples into
// dist/draco/ at build time, so the viewer never fetches anything from another origin. Then every
// compressible file gets brotli and gzip copies next to it (scripts/precompress.ts), which the
// server sends to browsers that accept them.
import { cpSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import preact from '@preact/preset-vite'
import { defaultClientConditions, defineConfig, type Plugin } from 'vite'
import { precompress } from './scripts/precompress.ts'

const require = createRequire(import.meta.url)

function dracoDecoders(): Plugin {
  return {
    name: 'tessera-draco-decoders',
    apply: 'build',
    writeBundle(options) {
      // three's exports map hides package.json; its build entry sits in <three>/build/.
      const three = path.resolve(path.dirname(require.resolve('three')), '..')
      const from = path.join(three, 'examples/jsm/libs/draco/gltf')
      cpSync(from, path.join(options.dir ?? 'dist', 'draco'), { recursive: true })
    },
  }
}

/** After every file is written (closeBundle runs after all writeBundle hooks, the Draco copy's too). */
function precompressed(): Plugin {
  let outDir = 'dist'
  let write = true
  return {
    name: 'tessera-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir)
      write = config.build.write
    },
    async closeBundle() {
      // A build that writes nothing (build.write false: analysis, tests) has nothing to compress.
      if (!write) return
      const started = Date.now()
      const files = await precompress(outDir)
      const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`
      const sum = (pick: (f: (typeof files)[number]) => number) => files.reduce((s, f) => s + pick(f), 0)
      this.info(
        `precompressed ${files.length} files in ${Date.now() - started} ms: ${kb(sum((f) => f.size))} -> ` +
          `${kb(sum((f) => f.br ?? f.size))} brotli, ${kb(sum((f) => f.gz ?? f.size))} gzip`,
      )
    },
  }
}

export default defineConfig({
  plugins: [preact(), dracoDecoders(), precompressed()],
  // @tessera/client from its TypeScript sources (its `@tessera/source` export condition), so the
  // console builds from a fresh clone with no build of the SDK first, and sees SDK edits at once.
  resolve: { conditions: ['@tessera/source', ...defaultClientConditions] },
  build: {
    target: 'es2022',
    sourcemap: false,
    // The viewer chunk (three.js) is loaded only when a model is opened; it is big by nature.
    chunkSizeWarningLimit: 900,
  },
  server: {
    proxy: Object.fromEntries(
      ['/account', '/file', '/webhook', '/scene', '/annotation', '/admin', '/events'].map((p) => [
        p,
        'http://127.0.0.1:8080',
      ]),
    ),
  },
})
