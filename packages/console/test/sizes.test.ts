// scripts/sizes.ts on a small project made here: it must name a function of 81 real lines, and
// must not name one of 80 real lines that also holds blank lines, comments, a JSX comment and
// `//` inside strings, templates and JSX text.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'

const SCRIPT = path.resolve(import.meta.dirname, '../scripts/sizes.ts')

function body(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `  const v${i} = ${i}`).join('\n')
}

// 80 real lines: 70 statements and 10 lines of code around them (3 whose `//` is no comment: a
// string, a template, JSX text), with 5 lines that are blank or only comments, which must not count.
const ok = `export function Fits() {
  // a comment line
${body(35)}

  /* a block
     comment */
  const url = 'https://example.com/a' // a trailing comment
  const t = \`
// inside a template\`
${body(35)}
  return (
    <p>
      {/* a JSX comment */}
      http://in-jsx-text
    </p>
  )
}
`

const over = `export const TooLong = () => {
${body(79)}
}
`

test('sizes.ts names the function over 80 real lines and only it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sizes-'))
  try {
    mkdirSync(path.join(dir, 'src'))
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { jsx: 'react-jsx', jsxImportSource: 'preact', noEmit: true },
        include: ['src'],
      }),
    )
    writeFileSync(path.join(dir, 'src/fits.tsx'), ok)
    writeFileSync(path.join(dir, 'src/over.ts'), over)
    const run = promisify(execFile)
    const all = await run(process.execPath, [SCRIPT, '--project', dir, '--all'])
    assert.match(all.stdout, /src\/fits\.tsx:1 Fits 80\n/)
    assert.match(all.stdout, /src\/over\.ts:1 TooLong 81\n/)
    const failed = await run(process.execPath, [SCRIPT, '--project', dir]).then(
      () => assert.fail('sizes.ts passed with a function over the limit'),
      (e: { code: number; stdout: string }) => e,
    )
    assert.equal(failed.code, 1)
    assert.equal(failed.stdout, 'src/over.ts:1 TooLong 81\n')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
