#!/usr/bin/env node
// The `tessera-server` command (serve, worker, migrate, backup, …): runs the TypeScript sources
// directly (Node >= 22.18 strips the types; no build step, no loader). @tessera/cli's `tessera`
// runs it for these commands when both are installed.
if (!process.features.typescript) {
  process.stderr.write(
    `tessera-server: Node ${process.versions.node} cannot run TypeScript sources; use Node 22.18 or newer (or 24).\n`,
  )
  process.exit(1)
}
await import('../src/cli/main.ts')
