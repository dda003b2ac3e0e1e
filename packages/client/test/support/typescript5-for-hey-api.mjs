// Loaded with `node --import` by generator.test.ts: @hey-api/openapi-ts drives the TypeScript 5 compiler
// API, which the workspace's TypeScript 7 (a native compiler) no longer offers; its imports of
// `typescript` get the `typescript5` alias (a devDependency of @tessera/client) instead.
import { register } from 'node:module'

const hook = `
export async function resolve(specifier, context, next) {
  if (specifier === 'typescript' && context.parentURL?.includes('/@hey-api/')) return next('typescript5', context)
  return next(specifier, context)
}`
register(`data:text/javascript,${encodeURIComponent(hook)}`)
