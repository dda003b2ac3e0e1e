// Conversions bounded in real memory: inputs whose headers declare far more data than they hold
// are refused before anything is allocated from those numbers (glTF accessors, PLY element counts,
// binary STL triangle counts), quickly and with a clear reason; and a conversion child whose
// resident set passes TESSERA_CONVERSION_MAX_MEMORY is killed and fails with a clear reason, however
// the memory was taken (typed arrays and wasm memories are outside V8's heap limit).
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { after, before, describe, test } from 'node:test'
import { crc32, createDeflate } from 'node:zlib'
import { convertModel } from '../../src/modules/conversion/pipeline/convert.ts'
import { ConversionError } from '../../src/modules/conversion/pipeline/types.ts'
import { ConversionRun, type RunOutcome } from '../../src/modules/conversion/runner.ts'
import { type BlobStore, openBlobStore } from '../../src/platform/blobs/index.ts'
import { signedIn } from '../support/api.ts'
import { terrainStl } from '../support/big-models.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp } from '../support/harness.ts'
import { until } from '../support/receiver.ts'

const MiB = 1024 ** 2
/** A conversion of these tiny files, child start included, ends well within this. */
const QUICK_MS = 10_000
/** Any conversion below ends long before; before the checks some ran to this budget. */
const BUDGET_MS = 60_000

/** A GLB of JSON only: `accessors` and `bufferViews` as given, one mesh drawing accessor 0. */
function glbOf(gltf: Record<string, unknown>, bin?: Uint8Array): Buffer {
  const json = {
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    ...gltf,
  }
  const text = Buffer.from(JSON.stringify(json))
  const jsonChunk = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)])
  const chunks = [chunk(jsonChunk, 0x4e4f534a)]
  if (bin) chunks.push(chunk(Buffer.concat([bin, Buffer.alloc((4 - (bin.length % 4)) % 4)]), 0x004e4942))
  const header = Buffer.alloc(12)
  header.writeUInt32LE(0x46546c67, 0)
  header.writeUInt32LE(2, 4)
  header.writeUInt32LE(12 + chunks.reduce((sum, c) => sum + c.length, 0), 8)
  return Buffer.concat([header, ...chunks])
}

function chunk(data: Buffer, type: number): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32LE(data.length, 0)
  head.writeUInt32LE(type, 4)
  return Buffer.concat([head, data])
}

/** The attacker's file: 30 M zero-filled vertices declared by a POSITION accessor without bufferView. */
function zeroFilledGlb(): Buffer {
  return glbOf({
    accessors: [{ componentType: 5126, count: 30_000_000, type: 'VEC3', min: [0, 0, 0], max: [0, 0, 0] }],
  })
}

function plyHeader(format: string, properties: string[]): string {
  const lines = properties.map((p) => `property ${p}\n`).join('')
  return `ply\nformat ${format} 1.0\nelement vertex 2147483648\n${lines}end_header\n`
}

/** A binary STL of `bytes` whose header declares `triangles`. */
function binaryStl(triangles: number, facets: number): Buffer {
  const stl = Buffer.alloc(84 + 50 * facets)
  stl.write('binary STL', 0)
  stl.writeUInt32LE(triangles, 80)
  return stl
}

/** An OBJ grid of side × side vertices, two triangles per cell. */
function objGrid(side: number): Buffer {
  const lines: string[] = ['o grid']
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) lines.push(`v ${x} ${Math.sin(x * 0.3) * Math.cos(y * 0.2)} ${y}`)
  }
  for (let y = 0; y < side - 1; y++) {
    for (let x = 0; x < side - 1; x++) {
      const a = y * side + x + 1
      lines.push(`f ${a} ${a + 1} ${a + side}`, `f ${a + 1} ${a + side + 1} ${a + side}`)
    }
  }
  return Buffer.from(`${lines.join('\n')}\n`)
}

/** The fixture house with points appended up to about `bytes`: a valid IFC of that size. */
function paddedIfc(bytes: number): Buffer {
  const house = readFileSync(new URL('../fixtures/conversion/small-house.ifc', import.meta.url), 'utf8')
  const cut = house.lastIndexOf('ENDSEC;')
  const points: string[] = []
  let size = house.length
  for (let id = 900_000; size < bytes; id++) {
    const line = `#${id}=IFCCARTESIANPOINT((${id}.,0.,0.));\n`
    points.push(line)
    size += line.length
  }
  return Buffer.from(house.slice(0, cut) + points.join('') + house.slice(cut))
}

/** A real, decodable grey PNG of side × side pixels, all black: a few hundred kB for 16000². */
async function flatPng(side: number): Promise<Buffer> {
  const rows = Readable.from(
    (function* () {
      const row = Buffer.alloc(side + 1) // filter byte 0, then the pixels
      for (let y = 0; y < side; y++) yield row
    })(),
  )
  const data = await buffer(rows.pipe(createDeflate({ level: 9 })))
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(side, 0)
  ihdr.writeUInt32BE(side, 4)
  ihdr.writeUInt8(8, 8) // 8 bits, greyscale (colour type 0), deflate, no filter choice, no interlace
  const pngChunk = (type: string, body: Buffer): Buffer => {
    const head = Buffer.alloc(8)
    head.writeUInt32BE(body.length, 0)
    head.write(type, 4, 'latin1')
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0)
    return Buffer.concat([head, body, crc])
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([
    signature,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', data),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/** One textured triangle whose base colour is `png`. */
function texturedGlb(png: Buffer): Buffer {
  const geometry = Buffer.alloc(60) // 3 × VEC3 positions (0, x, y), then 3 × VEC2 UVs, all floats
  for (const [at, value] of [
    [12, 1],
    [28, 1],
    [44, 1],
    [56, 1],
  ] as const)
    geometry.writeFloatLE(value, at)
  const image = Buffer.concat([png, Buffer.alloc((4 - (png.length % 4)) % 4)])
  const bin = Buffer.concat([geometry, image])
  return glbOf(
    {
      buffers: [{ byteLength: bin.length }],
      bufferViews: [
        { buffer: 0, byteLength: 36 },
        { buffer: 0, byteOffset: 36, byteLength: 24 },
        { buffer: 0, byteOffset: 60, byteLength: png.length },
      ],
      accessors: [
        { bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] },
        { bufferView: 1, componentType: 5126, count: 3, type: 'VEC2' },
      ],
      images: [{ bufferView: 2, mimeType: 'image/png' }],
      textures: [{ source: 0 }],
      materials: [{ pbrMetallicRoughness: { baseColorTexture: { index: 0 } } }],
      meshes: [{ primitives: [{ attributes: { POSITION: 0, TEXCOORD_0: 1 }, material: 0 }] }],
    },
    bin,
  )
}

let scratch: string
let blobs: BlobStore

before(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'tessera-bounds-'))
  blobs = await openBlobStore(`file://${scratch}`)
})
after(() => rmSync(scratch, { recursive: true, force: true }))

/** One conversion as the worker runs it (child process, limits); with its time and peak RSS. */
async function runConversion(
  name: string,
  bytes: Buffer,
  maxMemoryBytes = 1024 * MiB,
): Promise<{ outcome: RunOutcome; ms: number; peakRssKb: number }> {
  const key = `in/${name}`
  await blobs.put(key, Readable.from([bytes]))
  const started = Date.now()
  const run = new ConversionRun({
    blobs,
    blobKey: key,
    fileName: name,
    timeoutMs: BUDGET_MS,
    maxMemoryBytes,
    onProgress: () => {},
  })
  try {
    const outcome = await run.outcome
    return { outcome, ms: Date.now() - started, peakRssKb: run.peakRssKb }
  } finally {
    await run.dispose()
  }
}

function assertRejected(outcome: RunOutcome, reason: RegExp): void {
  assert.equal(outcome.kind, 'rejected', JSON.stringify(outcome).slice(0, 300))
  if (outcome.kind === 'rejected') assert.match(outcome.reason, reason)
}

describe('declared sizes are checked before allocation', () => {
  test('a 260-byte GLB declaring 30 M zero-filled vertices fails within seconds, in bounded memory', async () => {
    const glb = zeroFilledGlb()
    assert.ok(glb.length < 300, `${glb.length} bytes`)
    const { outcome, ms, peakRssKb } = await runConversion('zeros.glb', glb)
    assertRejected(
      outcome,
      /^the model declares more data than it can hold \(accessors and buffer views: 343\.3 MiB; at most 64 MiB/,
    )
    assert.ok(ms < QUICK_MS, `${ms} ms`)
    // A child converting a cube peaks at ~140 MB; this one took 1.3 GB before the check.
    assert.ok(peakRssKb < 400 * 1024, `peak RSS ${peakRssKb} KiB`)
  })

  test('a PLY claiming 2^31 property-less vertices fails within seconds (it ran to the budget)', async () => {
    const ply = Buffer.from(`${plyHeader('binary_little_endian', [])}\0\0\0\0`)
    const { outcome, ms, peakRssKb } = await runConversion('empty.ply', ply)
    assertRejected(
      outcome,
      /^the PLY file is cut off: its header declares elements of at least 2 GiB, 4 bytes follow it$/,
    )
    assert.ok(ms < QUICK_MS, `${ms} ms`)
    assert.ok(peakRssKb < 400 * 1024, `peak RSS ${peakRssKb} KiB`)
  })

  test('a PLY claiming 2^31 vertices of x, y, z in 120 bytes fails with what it declares', async () => {
    const header = plyHeader('binary_little_endian', ['float x', 'float y', 'float z'])
    const { outcome, ms } = await runConversion(
      'xyz.ply',
      Buffer.concat([Buffer.from(header), Buffer.alloc(120)]),
    )
    assertRejected(
      outcome,
      /^the PLY file is cut off: its header declares elements of at least 24 GiB, 120 bytes/,
    )
    assert.ok(ms < QUICK_MS, `${ms} ms`)
    // An ASCII file may end without a separator after its last value; it is not refused for that.
    const ascii = `${plyHeader('ascii', ['float x', 'float y', 'float z']).replace('2147483648', '3')}0 0 0\n1 0 0\n0 1 0`
    const points = await convertModel({ name: 'points.ply', bytes: Buffer.from(ascii) })
    assert.ok(points.glb.byteLength > 0)
  })

  test('a binary STL declaring 40 M triangles in 184 bytes fails within seconds', async () => {
    const { outcome, ms, peakRssKb } = await runConversion('huge.stl', binaryStl(40_000_000, 2))
    assertRejected(outcome, /^the STL file is cut off: its header declares 40000000 triangles \(1\.9 GiB\)/)
    assert.ok(ms < QUICK_MS, `${ms} ms`)
    assert.ok(peakRssKb < 400 * 1024, `peak RSS ${peakRssKb} KiB`)
  })

  test('glTF accessors and views must lie inside the bytes they read', async () => {
    const bin = new Uint8Array(36)
    const view = { buffer: 0, byteLength: 36 }
    const base = { buffers: [{ byteLength: 36 }], bufferViews: [view] }
    const position = { bufferView: 0, componentType: 5126, type: 'VEC3', min: [0, 0, 0], max: [0, 0, 0] }
    await rejectsWith(
      glbOf({ ...base, accessors: [{ ...position, count: 30_000_000 }] }, bin),
      /^invalid glTF: accessor 0 reaches past its bufferView$/,
    )
    await rejectsWith(
      glbOf(
        {
          ...base,
          bufferViews: [{ buffer: 0, byteLength: 360_000_000 }],
          accessors: [{ ...position, count: 3 }],
        },
        bin,
      ),
      /^invalid glTF: bufferView 0 reaches past its buffer$/,
    )
    const sparse = {
      count: 30_000_000,
      indices: { bufferView: 0, componentType: 5125 },
      values: { bufferView: 0 },
    }
    await rejectsWith(
      glbOf({ ...base, accessors: [{ ...position, count: 3, sparse }] }, bin),
      /^invalid glTF: accessor 0 reaches past its bufferView$/,
    )
    // Accessors each copying the same 600 kB view: what the reader copies is summed (200 × 600 kB).
    const shared = { buffers: [{ byteLength: 600_000 }], bufferViews: [{ buffer: 0, byteLength: 600_000 }] }
    const aliases = Array.from({ length: 200 }, () => ({ ...position, count: 50_000 }))
    await rejectsWith(
      glbOf({ ...shared, accessors: aliases }, new Uint8Array(600_000)),
      /^the model declares more data than it can hold \(accessors and buffer views: 114\.4 MiB; at most 64 MiB/,
    )
    // The same file with what it declares is read as before.
    const fine = await convertModel({
      name: 'fine.glb',
      bytes: glbOf({ ...base, accessors: [{ ...position, count: 3 }] }, bin),
    })
    assert.ok(fine.glb.byteLength > 0)
  })

  test('a texture declaring 16000 × 16000 pixels in a few hundred kB fails within seconds', async () => {
    // Decoding it took 2.1 GB and about a minute (sharp decodes the whole image to resize it).
    const glb = texturedGlb(await flatPng(16_000))
    const { outcome, ms, peakRssKb } = await runConversion('texture.glb', glb)
    assertRejected(
      outcome,
      /^the model declares more data than it can hold \(a 16000 × 16000 texture: 976\.6 MiB; at most 64 MiB/,
    )
    assert.ok(ms < QUICK_MS, `${ms} ms`)
    assert.ok(peakRssKb < 400 * 1024, `peak RSS ${peakRssKb} KiB`)
    // A 1024² texture of the same kind is read and converted as before.
    const small = await convertModel({ name: 'small.glb', bytes: texturedGlb(await flatPng(1024)) })
    assert.ok(small.glb.byteLength > 0)
  })

  test('a large OBJ that holds what it declares is not refused', async () => {
    const obj = objGrid(400) // 160,000 vertices, 318,402 triangles, ~5 MB
    const result = await convertModel({ name: 'grid.obj', bytes: obj })
    assert.ok(result.stats.triangles > 100_000, `${result.stats.triangles} triangles`)
  })
})

async function rejectsWith(bytes: Uint8Array, message: RegExp): Promise<void> {
  await assert.rejects(convertModel({ name: 'model.glb', bytes }), (error: unknown) => {
    assert.ok(error instanceof ConversionError, `expected ConversionError, got ${String(error)}`)
    assert.match(error.message, message)
    return true
  })
}

describe('the child process is bounded in real memory', () => {
  test('a conversion past TESSERA_CONVERSION_MAX_MEMORY is killed and fails with a clear reason', async () => {
    // A normal model (400 k triangles, peaks at ~300 MB resident) under a 200 MiB bound. Its V8
    // heap stays far below 200 MiB: the heap limit alone lets it through.
    const stl = terrainStl(400_000)
    const { outcome, ms, peakRssKb } = await runConversion('terrain.stl', stl, 200 * MiB)
    assertRejected(outcome, /^the conversion needed more memory than allowed \(200 MiB\)$/)
    assert.ok(peakRssKb > 200 * 1024, `peak RSS ${peakRssKb} KiB`)
    // Sampled every 100 ms: the child is killed within one sample of passing the bound.
    assert.ok(peakRssKb < 200 * 1024 + 250 * 1024, `peak RSS ${peakRssKb} KiB`)
    assert.ok(ms < BUDGET_MS / 2, `${ms} ms`)
  })

  test('a file too large to convert within the limit is refused without starting a child', async () => {
    // IFC declares no counts; what can be told up front is its size: the child holds the file and
    // web-ifc copies it into its tape, so twice the file plus the child's base must fit.
    const ifc = paddedIfc(40 * MiB)
    const { outcome, ms, peakRssKb } = await runConversion('big.ifc', ifc, 200 * MiB)
    assertRejected(
      outcome,
      /^the model file \(40 MiB\) is too large to convert within the memory limit \(200 MiB\)$/,
    )
    assert.equal(peakRssKb, 0, 'no child was started')
    assert.ok(ms < QUICK_MS, `${ms} ms`)
  })

  test('the same model converts under the default bound', async () => {
    const { outcome, peakRssKb } = await runConversion('terrain.stl', terrainStl(400_000), 4096 * MiB)
    assert.equal(outcome.kind, 'converted', JSON.stringify(outcome).slice(0, 300))
    assert.ok(peakRssKb > 0, 'the watchdog sampled the child')
  })
})

for (const dialect of dialects()) {
  describe(`the file record says why (${dialect.name})`, () => {
    test('the zero-filled GLB ends in error with its reason, quickly, and its job failed', async (t) => {
      const app = await startApp(dialect, {}, { conversions: true })
      t.after(() => app.close())
      const user = await signedIn(app.app, 'bounds')
      const started = Date.now()
      const file = await uploadFile(app.app, user.headers, { name: 'zeros.glb', data: zeroFilledGlb() })
      const record = await until(
        'the conversion to end',
        async () => {
          const res = await app.app.inject({ method: 'GET', url: `/file/${file._id}`, headers: user.headers })
          const { file: body } = res.json() as { file: { state: string; error: string } }
          return body.state === 'error' || body.state === 'ready' ? body : null
        },
        BUDGET_MS,
      )
      assert.equal(record.state, 'error')
      assert.match(
        record.error,
        /^the model declares more data than it can hold \(accessors and buffer views/,
      )
      assert.ok(Date.now() - started < QUICK_MS * 2, `${Date.now() - started} ms`)
      const job = await app.db.kysely
        .selectFrom('jobs')
        .select(['state', 'last_error'])
        .where('file_id', '=', file._id)
        .executeTakeFirstOrThrow()
      assert.deepEqual(job, { state: 'failed', last_error: record.error })
    })
  })
}
