#!/usr/bin/env node
// The `tessera` command. Installed from the package: the built JavaScript in dist/. Inside the
// repository's workspace (src/ present, dist/ may be stale or absent): the TypeScript sources,
// which Node >= 22.18 runs directly.
import { existsSync } from 'node:fs'

const sources = new URL('../src/main.ts', import.meta.url)
if (existsSync(sources)) {
  if (!process.features.typescript) {
    process.stderr.write(
      `tessera: Node ${process.versions.node} cannot run TypeScript sources; use Node 22.18 or newer (or 24).\n`,
    )
    process.exit(1)
  }
  await import(sources.href)
} else {
  await import('../dist/main.js')
}
