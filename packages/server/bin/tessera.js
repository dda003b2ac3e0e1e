#!/usr/bin/env node
// The `tessera` command: runs the TypeScript sources directly (Node >= 22.18 strips the types;
// no build step, no loader).
if (!process.features.typescript) {
  process.stderr.write(
    `tessera: Node ${process.versions.node} cannot run TypeScript sources; use Node 22.18 or newer (or 24).\n`,
  )
  process.exit(1)
}
// The workspace's @tessera/client is used from its sources too: its `@tessera/source` export
// condition (packages/client/package.json; what `node --conditions=@tessera/source` sets). A
// synchronous in-thread resolve hook, not a loader: it costs nothing measurable at start.
const { registerHooks } = await import('node:module')
registerHooks({
  resolve(specifier, context, nextResolve) {
    const conditions = context.conditions.includes('@tessera/source')
      ? context.conditions
      : [...context.conditions, '@tessera/source']
    return nextResolve(specifier, { ...context, conditions })
  },
})
await import('../src/cli/main.ts')
