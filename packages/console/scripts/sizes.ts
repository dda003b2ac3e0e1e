// `node scripts/sizes.ts` (part of `npm run typecheck`): lists every function, arrow function and
// method in src/ with more than 80 real lines (neither blank nor only a comment), and fails if any.
// Biome's noExcessiveLinesPerFunction counts comment lines and misses some nested callbacks, so the
// console measures with the TypeScript parser itself (the tsgo API of the `typescript` package).
import path from 'node:path'
import type { Node, SourceFile } from 'typescript/unstable/ast'
import { computeLineStarts } from 'typescript/unstable/ast/scanner'
import { API } from 'typescript/unstable/sync'

// `--project DIR` measures another package laid out the same way (tsconfig.json, src/): the test's.
const projectArg = process.argv.indexOf('--project')
const ROOT = path.resolve(
  projectArg > 0 ? (process.argv[projectArg + 1] ?? '.') : path.join(import.meta.dirname, '..'),
)
const LIMIT = 80
// SyntaxKind names of the function-like nodes measured (numbers differ between TypeScript versions).
const FUNCTION_KINDS = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunction',
  'MethodDeclaration',
  'Constructor',
  'GetAccessor',
  'SetAccessor',
])

// Tokens whose text may hold `//`, `/*` or quotes that are not comments.
const LITERAL_KINDS = new Set([
  'StringLiteral',
  'NoSubstitutionTemplateLiteral',
  'TemplateHead',
  'TemplateMiddle',
  'TemplateTail',
  'RegularExpressionLiteral',
  'JsxText',
])

/** [start, end) of every comment: the text scanned outside literals, plus `{/* … *\/}` in JSX. */
function commentRanges(sf: SourceFile): Array<[number, number]> {
  const literals: Array<[number, number]> = []
  const comments: Array<[number, number]> = []
  const visit = (node: Node): void => {
    const kind = kindName(node)
    if (LITERAL_KINDS.has(kind)) literals.push([node.getStart(sf), node.end])
    const jsx = node as Node & { expression?: Node }
    if (kind === 'JsxExpression' && jsx.expression === undefined) comments.push([node.getStart(sf), node.end])
    node.forEachChild(visit)
  }
  sf.forEachChild(visit)
  literals.sort((a, b) => a[0] - b[0])
  const text = sf.text
  let next = 0
  for (let pos = 0; pos < text.length; pos++) {
    while (next < literals.length && (literals[next]?.[1] ?? 0) <= pos) next++
    const literal = literals[next]
    if (literal && literal[0] <= pos) {
      pos = literal[1] - 1
      continue
    }
    if (text.startsWith('//', pos)) {
      const end = text.indexOf('\n', pos)
      comments.push([pos, end < 0 ? text.length : end])
    } else if (text.startsWith('/*', pos)) {
      const end = text.indexOf('*/', pos + 2)
      comments.push([pos, end < 0 ? text.length : end + 2])
    } else continue
    pos = (comments.at(-1)?.[1] ?? pos) - 1
  }
  return comments
}

/** Per line of the file: true where the line holds code (not blank, not only comments). */
function codeLines(sf: SourceFile): boolean[] {
  const text = sf.text
  const inComment = new Uint8Array(text.length)
  for (const [start, end] of commentRanges(sf)) inComment.fill(1, start, end)
  const starts = computeLineStarts(text)
  return starts.map((start, i) => {
    const end = starts[i + 1] ?? text.length
    for (let pos = start; pos < end; pos++) if (!inComment[pos] && /\S/.test(text[pos] ?? '')) return true
    return false
  })
}

const kindNames: Record<number, string> = {}
function kindName(node: Node): string {
  return kindNames[node.kind] ?? ''
}

function functionName(node: Node): string {
  const named = node as Node & { name?: Node }
  if (named.name) return named.name.getText()
  const parent = node.parent as Node & { name?: Node }
  if (parent && kindName(parent) === 'VariableDeclaration' && parent.name) return parent.name.getText()
  return `(${kindName(node)})`
}

function measure(sf: SourceFile): string[] {
  const lines = codeLines(sf)
  const starts = computeLineStarts(sf.text)
  const lineOf = (pos: number) => {
    let line = 0
    while (line + 1 < starts.length && (starts[line + 1] ?? Infinity) <= pos) line++
    return line
  }
  const found: string[] = []
  const visit = (node: Node): void => {
    if (FUNCTION_KINDS.has(kindName(node))) {
      const first = lineOf(node.getStart(sf))
      const last = lineOf(node.end)
      const real = lines.slice(first, last + 1).filter(Boolean).length
      if (real > LIMIT || process.argv.includes('--all'))
        found.push(`${path.relative(ROOT, sf.fileName)}:${first + 1} ${functionName(node)} ${real}`)
    }
    node.forEachChild(visit)
  }
  sf.forEachChild(visit)
  return found
}

async function main(): Promise<void> {
  const { SyntaxKind } = await import('typescript/unstable/ast')
  // The first name of each kind: later aliases (FirstTemplateToken, LastTemplateToken, …) share values.
  for (const [name, value] of Object.entries(SyntaxKind))
    if (typeof value === 'number' && !(value in kindNames)) kindNames[value] = name
  const api = new API({ cwd: ROOT })
  try {
    const snapshot = api.updateSnapshot({ openProjects: [path.join(ROOT, 'tsconfig.json')] })
    const project = snapshot.getProjects()[0]
    if (!project) throw new Error('tsconfig.json did not open')
    const files = project.program
      .getSourceFileNames()
      .filter((f) => f.startsWith(path.join(ROOT, 'src') + path.sep) && /\.tsx?$/.test(f))
    const over = files.flatMap((f) => {
      const sf = project.program.getSourceFile(f)
      return sf ? measure(sf) : []
    })
    for (const row of over) console.log(row)
    if (over.length > 0 && !process.argv.includes('--all')) {
      console.error(`${over.length} function(s) over ${LIMIT} real lines: split them.`)
      process.exitCode = 1
    }
  } finally {
    api.close()
  }
}

await main()
