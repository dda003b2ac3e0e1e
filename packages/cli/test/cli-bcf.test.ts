// `tessera bcf export` and `tessera bcf import` as child processes against a real `tessera serve`
// (SQLite), on two uploads of the same IFC: the export under the file's name, to OUT, into a
// directory and to stdout; the import's summary, --json, stdin, and what a second import says; the
// failures (no zip, a viewer, a missing file) and usage errors. Then the summary's lines on their own.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Tessera } from '@tessera/client'
import { summary } from '../src/bcf-commands.ts'
import { BIN, firstAdmin, type Server, startServer, tempDir } from './support/server.ts'

const IFC = path.resolve(import.meta.dirname, '../../server/test/fixtures/conversion/house-properties.ifc')
const WALL = '2O2Fr$t4X7Zf8NOew3FLOH'
const VIEWER = { username: 'bcfviewer', password: 'a long password for the viewer' }

interface Ran {
  code: number
  stdout: Buffer
  stderr: string
}

describe('tessera bcf on sqlite', () => {
  const dataDir = tempDir()
  const work = tempDir('tessera-cli-bcf-')
  let server: Server
  let env: Record<string, string>
  let fileA = ''
  let fileB = ''

  /** `tessera ARGS` in `work` (where a default export lands), stdout as bytes (a zip on `-`). */
  function cli(
    args: string[],
    input: Buffer | string = '',
    extraEnv: Record<string, string> = {},
  ): Promise<Ran> {
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [BIN, ...args],
        { cwd: work, env: { ...process.env, ...env, ...extraEnv }, encoding: 'buffer', timeout: 120_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr: stderr.toString() }),
      )
      child.stdin?.end(input)
    })
  }

  before(async () => {
    server = await startServer({ TESSERA_DATA_DIR: dataDir })
    const admin = firstAdmin(server)
    env = {
      XDG_CONFIG_HOME: tempDir('tessera-cli-config-'),
      TESSERA_URL: server.baseUrl,
      TESSERA_USERNAME: admin.username,
      TESSERA_PASSWORD: admin.password,
    }
    const tessera = await Tessera.connect({ url: server.baseUrl, ...admin })
    try {
      const upload = async (name: string) => {
        const file = await tessera.files.upload(new Blob([await readFile(IFC)]), { name, parent: '/bcf' })
        await tessera.files.waitUntilReady(file._id, { timeoutMs: 120_000 })
        return file._id
      }
      fileA = await upload('house-a.ifc')
      fileB = await upload('house-b.ifc')
      const { nodeIdToProperties } = await tessera.files.properties(fileA)
      const wall = Object.entries(nodeIdToProperties).find(([, groups]) => groups.IFC?.GlobalId === WALL)?.[0]
      assert.ok(wall)
      const note = await tessera.annotations.create({
        file: fileA,
        name: 'Crack in the wall',
        targets: [{ type: 'point', position: [1, 1.5, 0], node: wall, cameraTarget: [1, 1, -1] }],
      })
      await tessera.discussions.reply(note._id, 'Checked: it is a crack.')
      await tessera.configurations.save({ file: fileA, name: 'The wall', selectedNodes: [wall] })
      const created = await tessera.api.POST('/admin/accounts', {
        body: { email: `${VIEWER.username}@example.com`, ...VIEWER },
      })
      assert.equal(created.response.status, 200)
      await tessera.files.share(fileB, `${VIEWER.username}@example.com`, 'viewer')
    } finally {
      await tessera.close()
    }
  })
  after(() => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL')
    for (const dir of [dataDir, work, env?.XDG_CONFIG_HOME ?? ''])
      if (dir) rmSync(dir, { recursive: true, force: true })
  })

  test('export: under the file’s name, to OUT, into a directory, to stdout', async () => {
    const named = await cli(['bcf', 'export', fileA])
    assert.equal(named.code, 0, named.stderr)
    assert.match(named.stderr, /^saved house-a\.bcfzip \(\d+(\.\d)? KiB\)$/m)
    const zip = await readFile(path.join(work, 'house-a.bcfzip'))
    assert.equal(zip.subarray(0, 4).toString('latin1'), 'PK\x03\x04')
    assert.ok(!existsSync(path.join(work, 'house-a.bcfzip.part')))

    assert.equal((await cli(['bcf', 'export', fileA, 'out.bcfzip'])).code, 0)
    assert.equal((await readFile(path.join(work, 'out.bcfzip'))).subarray(0, 2).toString(), 'PK')
    await mkdir(path.join(work, 'exports'))
    assert.equal((await cli(['bcf', 'export', fileA, 'exports'])).code, 0)
    assert.ok(existsSync(path.join(work, 'exports', 'house-a.bcfzip')))
    const piped = await cli(['bcf', 'export', fileA, '-'])
    assert.equal(piped.code, 0, piped.stderr)
    assert.equal(piped.stdout.subarray(0, 4).toString('latin1'), 'PK\x03\x04')
    assert.doesNotMatch(piped.stderr, /saved/)
  })

  test('import: the summary; again from stdin, nothing new; --json', async () => {
    const zip = path.join(work, 'house-a.bcfzip')
    const run = await cli(['bcf', 'import', fileB, zip])
    assert.equal(run.code, 0, run.stderr)
    assert.equal(
      run.stdout.toString(),
      'BCF 3.0: 2 topics → 1 annotation, 1 saved view, 1 comment added; 0 unchanged (held already, nothing new)\n',
    )
    const again = await cli(['bcf', 'import', fileB, '-'], await readFile(zip))
    assert.equal(again.code, 0, again.stderr)
    assert.match(
      again.stdout.toString(),
      /^BCF 3\.0: 2 topics → 0 annotations, 0 saved views, 0 comments added; 2 unchanged/,
    )
    const json = await cli(['bcf', 'import', fileB, zip, '--json'])
    assert.equal(json.code, 0, json.stderr)
    assert.deepEqual(JSON.parse(json.stdout.toString()), {
      version: '3.0',
      topics: 2,
      annotations: [],
      configurations: [],
      comments: 0,
      unchanged: 2,
      unknownComponents: [],
      notes: [],
    })
  })

  test('failures exit 1 with the code; usage errors exit 2 with the help', async () => {
    await writeFile(path.join(work, 'notes.txt'), 'not a zip at all')
    const invalid = await cli(['bcf', 'import', fileB, 'notes.txt'])
    assert.equal(invalid.code, 1)
    assert.match(invalid.stderr, /^tessera: BCF_INVALID: .+ \(HTTP 400\)$/m)
    const viewer = await cli(['bcf', 'import', fileB, 'house-a.bcfzip'], '', {
      TESSERA_USERNAME: VIEWER.username,
      TESSERA_PASSWORD: VIEWER.password,
    })
    assert.equal(viewer.code, 1)
    assert.match(viewer.stderr, /^tessera: FORBIDDEN: .*\(HTTP 403\)$/m)
    const missing = await cli(['bcf', 'import', fileB, 'nowhere.bcfzip'])
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /^tessera: cannot read nowhere\.bcfzip: ENOENT/m)
    const unknown = await cli(['bcf', 'export', '000000000000000000000000'])
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /NOT_FOUND/)

    for (const args of [
      ['bcf'],
      ['bcf', 'send', fileA],
      ['bcf', 'export'],
      ['bcf', 'import', fileB],
      ['bcf', 'export', fileA, '--json'],
    ]) {
      const run = await cli(args)
      assert.equal(run.code, 2, args.join(' '))
      assert.match(run.stderr, /^Usage: tessera bcf export FILE/m)
    }
    const help = await cli(['bcf', '--help'])
    assert.equal(help.code, 0)
    assert.match(help.stdout.toString(), /^Usage: tessera bcf export FILE \[OUT\]/)
  })
})

describe('the import summary', () => {
  test('unknown GlobalIds: the first five and how many more; each note on its line', () => {
    const unknownComponents = Array.from({ length: 7 }, (_, i) => `3Zzzzzzzzzzzzzzzzzzzz${i}`)
    const lines = summary({
      version: '2.1',
      topics: 1,
      annotations: ['a'],
      configurations: [],
      comments: 3,
      unchanged: 0,
      unknownComponents,
      notes: ['topic x: a viewpoint without a camera was left out'],
    })
    assert.deepEqual(lines, [
      'BCF 2.1: 1 topic → 1 annotation, 0 saved views, 3 comments added; 0 unchanged (held already, nothing new)',
      `7 GlobalIds not in this model: ${unknownComponents.slice(0, 5).join(', ')} and 2 more`,
      'note: topic x: a viewpoint without a camera was left out',
    ])
  })
})
