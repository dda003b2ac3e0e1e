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
  // The workspace's @tessera/client is used from its sources too: its `@tessera/source` export
  // condition (what `node --conditions=@tessera/source` sets). A synchronous in-thread resolve
  // hook, not a loader: it costs nothing measurable at start.
  const { registerHooks } = await import('node:module')
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const conditions = context.conditions.includes('@tessera/source')
        ? context.conditions
        : [...context.conditions, '@tessera/source']
      return nextResolve(specifier, { ...context, conditions })
    },
  })
  await import(sources.href)
} else {
  await import('../dist/main.js')
}
