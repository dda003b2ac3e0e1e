// Import rules of the server's layers (docs/architecture.md), checked by `npm run lint`.
// Layers, bottom up: contract (pure TypeBox) → platform (kernel) → events (outbox) → delivery (engine)
// and, beside it, stream (the live event stream hub) → modules (features) → app (composition) → cli.
// A layer imports only those below it (delivery and stream not each other); a layer or feature module
// is reached only through its index.ts; no import cycle crosses a folder. The outbox knows no
// delivery: events/ imports nothing of delivery/, which subscribes to it through events/index.ts alone.
const SRC = '^packages/server/src/'

/**
 * `from` may import nothing under src/ but the listed folders, and the listed files of others
 * (`doors`, paths under src/; npm packages are not restricted here).
 */
function onlyImports(name, from, allowed, doors = []) {
  const reached = [...allowed, ...doors]
  return {
    name,
    severity: 'error',
    comment: `${from} may import only ${reached.join(', ')}`,
    from: { path: `${SRC}${from}/` },
    to: {
      path: SRC,
      pathNot: [
        ...allowed.map((folder) => `${SRC}${folder}/`),
        ...doors.map((file) => `${SRC}${file.replaceAll('.', '\\.')}$`),
      ],
    },
  }
}

module.exports = {
  forbidden: [
    {
      name: 'contract-is-pure',
      severity: 'error',
      comment:
        'contract/ is pure TypeBox: it imports nothing of ours outside contract/, no Node built-in and no package but typebox',
      from: { path: `${SRC}contract/` },
      // typebox ships ESM only, which the resolver leaves unresolved: it is matched by name then.
      to: { pathNot: [`${SRC}contract/`, '^node_modules/typebox/', '^typebox$'] },
    },
    onlyImports('platform-below-features', 'platform', ['platform', 'contract']),
    onlyImports('events-layer', 'events', ['events', 'platform', 'contract']),
    onlyImports('delivery-layer', 'delivery', ['delivery', 'platform', 'contract'], ['events/index.ts']),
    // events/ and delivery/ never import stream/ (their rules above leave it out): the hub reads what
    // the outbox wrote, and emitEvent wakes it through a port of events/ (stream-log.ts).
    onlyImports('stream-layer', 'stream', ['stream', 'events', 'platform', 'contract']),
    {
      name: 'nothing-below-imports-app',
      severity: 'error',
      comment:
        'app/ (composition) and cli/ sit on top: contract, platform, events, delivery, stream and modules never import them',
      from: { path: `${SRC}(contract|platform|events|delivery|stream|modules)/` },
      to: { path: `${SRC}(app|cli)/` },
    },
    onlyImports('app-below-cli', 'app', [
      'app',
      'modules',
      'stream',
      'delivery',
      'events',
      'platform',
      'contract',
    ]),
    {
      name: 'modules-through-index',
      severity: 'error',
      comment: 'a feature module imports another module only through its index.ts',
      from: { path: `${SRC}modules/([^/]+)/` },
      to: { path: `${SRC}modules/`, pathNot: [`${SRC}modules/$1/`, `${SRC}modules/[^/]+/index\\.ts$`] },
    },
    {
      name: 'app-through-index',
      severity: 'error',
      comment: 'code outside modules/ reaches a module only through its index.ts',
      from: { path: SRC, pathNot: `${SRC}modules/` },
      to: { path: `${SRC}modules/`, pathNot: `${SRC}modules/[^/]+/index\\.ts$` },
    },
    {
      name: 'layers-through-index',
      severity: 'error',
      comment: 'events/, delivery/ and stream/ are reached from outside them only through their index.ts',
      // $1: the folder (or file) directly under src/ that imports; inside its own layer anything goes.
      from: { path: `${SRC}([^/]+)` },
      to: {
        path: `${SRC}(events|delivery|stream)/`,
        pathNot: [`${SRC}$1/`, `${SRC}(events|delivery|stream)/index\\.ts$`],
      },
    },
    {
      name: 'no-cycle-between-folders',
      severity: 'error',
      comment: 'an import cycle may stay inside one folder (a module, a layer), never cross folders',
      from: { path: `${SRC}(modules/[^/]+|[^/]+)/` },
      to: { circular: true, via: { pathNot: `${SRC}$1/` } },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API, so the sources are parsed with swc.
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.json'],
      conditionNames: ['import', 'node', 'default'],
    },
  },
}
