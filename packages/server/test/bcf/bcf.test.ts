// BCF through the API, on every dialect, with a converted IFC (the house fixture): GET /file/:id/bcf
// exports annotations (discussion, camera, node by GlobalId) and saved views (camera, selection,
// hidden parts, planes and box, thumbnail) as BCF 3.0 that follows buildingSMART's schemas
// (support/bcf-structure.ts); POST imports it into another file of the same model, and its export
// is the same topics and viewpoints (the round trip). A file's own export, or the same import twice,
// adds nothing; new comments on a topic it holds are added. Roles, bounds and Idempotency-Key.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { unzipSync, zipSync } from 'fflate'
import sharp from 'sharp'
import { readBcf } from '../../src/modules/bcf/read.ts'
import type { ImportReport } from '../../src/modules/bcf/service.ts'
import { problemOf } from '../support/api.ts'
import { bcfFixtureZip, zipFiles } from '../support/bcf-fixtures.ts'
import { checkBcf30Zip } from '../support/bcf-structure.ts'
import { shareFileRow, type Team, team } from '../support/file-rows.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { until } from '../support/receiver.ts'

const HOUSE_IFC = readFileSync(new URL('../fixtures/conversion/house-properties.ifc', import.meta.url))
/** The house with its site 512 km east and 6,100 km north, 10 m up: the conversion moves it to the origin. */
const GEOREFERENCED = Buffer.from(
  HOUSE_IFC.toString('latin1').replace(
    '#40=IFCLOCALPLACEMENT($,#23);',
    '#40=IFCLOCALPLACEMENT($,#901);\n#900=IFCCARTESIANPOINT((512000000.,6100000000.,10000.));\n#901=IFCAXIS2PLACEMENT3D(#900,$,$);',
  ),
  'latin1',
)
const WALL_A = '2O2Fr$t4X7Zf8NOew3FLOH'
const WALL_B = '0jf0rYHfX3RAB3bSIRjmxl'
const SLAB = '1Kp9a4XPX1ie8kT0Gqu2$J'

type Headers = Record<string, string>
type Report = ImportReport
interface View {
  selectedNodes: string[]
  modifiers: unknown[]
  modifiersEnabled: boolean
  enabledClippingPlanes: unknown[]
}

for (const dialect of dialects()) {
  describe(`BCF on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    let fileA: string
    let fileB: string
    let nodesA: Map<string, string>
    let nodesB: Map<string, string>
    let exported: Buffer

    const get = (url: string, headers: Headers = m.owner.headers) =>
      t.app.inject({ method: 'GET', url, headers })
    const post = (url: string, payload: unknown, headers: Headers = m.owner.headers) =>
      t.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> })
    const postZip = (fileId: string, body: Uint8Array, headers: Headers = m.owner.headers) =>
      t.app.inject({
        method: 'POST',
        url: `/file/${fileId}/bcf`,
        headers: { ...headers, 'content-type': 'application/zip' },
        payload: Buffer.from(body),
      })

    async function converted(name: string, data = HOUSE_IFC): Promise<string> {
      const file = await uploadFile(t.app, m.owner.headers, { name, data })
      await until(
        `${name} ready`,
        async () => {
          const { file: f } = (await get(`/file/${file._id}`)).json() as { file: { state: string } }
          assert.notEqual(f.state, 'error')
          return f.state === 'ready' ? true : undefined
        },
        60_000,
      )
      await shareFileRow(t.app, file._id, m.editor.account.id, 'editor')
      await shareFileRow(t.app, file._id, m.viewer.account.id, 'viewer')
      return file._id
    }

    /** GlobalId → node ID of a converted file. */
    async function nodesByGlobalId(fileId: string): Promise<Map<string, string>> {
      const res = await get(`/scene/properties?file=${fileId}`)
      const body = res.json() as { nodeIdToProperties: Record<string, { IFC?: { GlobalId?: string } }> }
      const out = new Map<string, string>()
      for (const [node, groups] of Object.entries(body.nodeIdToProperties)) {
        if (groups.IFC?.GlobalId) out.set(groups.IFC.GlobalId, node)
      }
      return out
    }

    const node = (nodes: Map<string, string>, guid: string) => nodes.get(guid) ?? assert.fail(`no ${guid}`)

    async function seed(): Promise<void> {
      const wall = node(nodesA, WALL_A)
      const created = await post('/annotation/create/', {
        file: fileA,
        name: 'Crack in the wall',
        content: 'Seen on site.\nTwo metres long.',
        tags: ['structure', 'urgent'],
        cameraX: 8,
        cameraY: 5,
        cameraZ: 9,
        targets: [{ type: 'point', position: [1, 1.5, 0], node: wall, cameraTarget: [1, 1, -1] }],
      })
      assert.equal(created.statusCode, 200, created.body)
      const annotation = (created.json() as { annotation: { _id: string } }).annotation._id
      const reply = await post(
        '/annotation/reply/create/',
        { annotation, text: 'Checked: it is a crack.' },
        m.editor.headers,
      )
      assert.equal(reply.statusCode, 200, reply.body)
      const replyId = (reply.json() as { reply: { _id: string } }).reply._id
      const edit = await post(
        '/annotation/reply/update/',
        { _id: replyId, text: 'Checked: it is a crack (5 mm).' },
        m.editor.headers,
      )
      assert.equal(edit.statusCode, 200, edit.body)
      const plain = await post('/annotation/create/', { file: fileA, name: 'No place yet' })
      assert.equal(plain.statusCode, 200, plain.body)
      const view = await post('/file/configuration/', {
        file: fileA,
        name: 'Ground floor cut',
        cameraPosition: [12, 6, 14, 0.5, 1, -0.5],
        cameraType: 'orthographic',
        cameraFoVIndex: 2,
        selectedNodes: [wall, node(nodesA, SLAB)],
        rememberSelection: true,
        modifiers: [{ type: 'hidden', nodes: [node(nodesA, WALL_B)] }],
        modifiersEnabled: true,
        enabledClippingPlanes: [
          { type: 'plane', id: 'p1', normal: [0, -1, 0], constant: 2.5, enabled: true },
          { type: 'box', id: 'box', min: [-1, -0.5, -6], max: [6, 3, 1], enabled: true },
        ],
        clippingPlanesEnabled: true,
      })
      assert.equal(view.statusCode, 200, view.body)
      const viewId = (view.json() as { configuration: { _id: string } }).configuration._id
      const png = await sharp({ create: { width: 64, height: 40, channels: 3, background: '#3366cc' } })
        .png()
        .toBuffer()
      const put = await t.app.inject({
        method: 'PUT',
        url: `/file/configuration/${viewId}/thumbnail`,
        headers: { ...m.owner.headers, 'content-type': 'image/png' },
        payload: png,
      })
      assert.equal(put.statusCode, 200, put.body)
    }

    before(async () => {
      t = await startApp(dialect, { licenses: 1000 }, { conversions: true })
      m = await team(t.app)
      fileA = await converted('house-a.ifc')
      fileB = await converted('house-b.ifc')
      nodesA = await nodesByGlobalId(fileA)
      nodesB = await nodesByGlobalId(fileB)
      await seed()
    })
    after(async () => t.close())

    test('the export is BCF 3.0 as buildingSMART’s schemas describe it', async () => {
      const res = await get(`/file/${fileA}/bcf`)
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.headers['content-type'], 'application/zip')
      assert.match(String(res.headers['content-disposition']), /filename="house-a\.bcfzip"/)
      exported = res.rawPayload
      const entries = new Map(Object.entries(unzipSync(exported)))
      assert.deepEqual(checkBcf30Zip(entries), [])
      const { bcf } = readBcf(exported)
      assert.equal(bcf.topics.length, 3)
      const crack = bcf.topics.find((topic) => topic.title === 'Crack in the wall') ?? assert.fail('no crack')
      assert.equal(crack.type, 'Issue')
      assert.deepEqual(crack.labels, ['structure', 'urgent'])
      assert.equal(crack.description, 'Seen on site.\nTwo metres long.')
      assert.equal(crack.creationAuthor, m.owner.account.email)
      assert.deepEqual(
        crack.comments.map((c) => [c.author, c.text, c.modifiedAuthor]),
        [[m.editor.account.email, 'Checked: it is a crack (5 mm).', m.editor.account.email]],
      )
      const camera = crack.viewpoints[0]?.camera ?? assert.fail('no camera')
      // Y-up (8, 5, 9) is Z-up (8, -9, 5); looking at (1, 1, -1): direction (-7, -4, -10) turned.
      assert.deepEqual(camera.position, [8, -9, 5])
      assert.deepEqual(camera.direction, [-7, 10, -4])
      assert.deepEqual(crack.viewpoints[0]?.selection, [{ ifcGuid: WALL_A }])
      const view = bcf.topics.find((topic) => topic.type === 'View') ?? assert.fail('no view')
      const viewpoint = view.viewpoints[0] ?? assert.fail('no viewpoint')
      assert.equal(viewpoint.camera?.kind, 'orthographic')
      assert.deepEqual(viewpoint.selection.map((c) => c.ifcGuid).sort(), [SLAB, WALL_A].sort())
      assert.deepEqual(viewpoint.exceptions, [{ ifcGuid: WALL_B }])
      assert.equal(viewpoint.planes.length, 7)
      assert.equal(viewpoint.snapshot?.type, 'png')
      const again = await get(`/file/${fileA}/bcf`, {
        ...m.owner.headers,
        'if-none-match': String(res.headers.etag),
      })
      assert.equal(again.statusCode, 304)
    })

    test('import into another file of the same model, then export: the same topics and viewpoints', async () => {
      const res = await postZip(fileB, exported, m.editor.headers)
      assert.equal(res.statusCode, 200, res.body)
      const report = res.json() as {
        annotations: string[]
        configurations: string[]
        comments: number
        unknownComponents: string[]
        version: string
      }
      assert.equal(report.version, '3.0')
      assert.equal(report.annotations.length, 2)
      assert.equal(report.configurations.length, 1)
      assert.equal(report.comments, 1)
      assert.deepEqual(report.unknownComponents, [])
      const views = (await get(`/file/configuration/?file=${fileB}`)).json() as {
        configurations: { selectedNodes: string[]; modifiers: unknown; enabledClippingPlanes: unknown[] }[]
      }
      const view = views.configurations[0] ?? assert.fail('no view')
      assert.deepEqual(view.selectedNodes.sort(), [node(nodesB, WALL_A), node(nodesB, SLAB)].sort())
      assert.deepEqual(view.modifiers, [{ type: 'hidden', nodes: [node(nodesB, WALL_B)] }])
      assert.equal(view.enabledClippingPlanes.length, 2)
      const back = await get(`/file/${fileB}/bcf`)
      assert.equal(back.statusCode, 200)
      assert.deepEqual(checkBcf30Zip(new Map(Object.entries(unzipSync(back.rawPayload)))), [])
      assert.deepEqual(
        comparable(readBcf(back.rawPayload).bcf.topics),
        comparable(readBcf(exported).bcf.topics),
      )
    })

    test('importing what the file holds adds nothing; a new comment on a held topic is added', async () => {
      for (const fileId of [fileA, fileB]) {
        const res = await postZip(fileId, exported)
        assert.equal(res.statusCode, 200, res.body)
        const report = res.json() as {
          annotations: string[]
          configurations: string[]
          unchanged: number
          comments: number
        }
        assert.deepEqual(
          [report.annotations, report.configurations, report.unchanged, report.comments],
          [[], [], 3, 0],
        )
      }
      const withComment = addComment(exported, 'Crack in the wall', 'Fixed on Monday.')
      const res = await postZip(fileB, withComment)
      const report = res.json() as { comments: number; unchanged: number }
      assert.deepEqual([report.comments, report.unchanged], [1, 2])
    })

    test('BCF 2.1 and 3.0 files of other tools: topics, comments, views, GlobalIds; unknown ones reported', async () => {
      const fileC = await converted('house-c.ifc')
      const nodesC = await nodesByGlobalId(fileC)
      const v21 = await postZip(fileC, bcfFixtureZip('v21'))
      assert.equal(v21.statusCode, 200, v21.body)
      const r21 = v21.json() as Report
      assert.deepEqual([r21.version, r21.topics, r21.annotations.length, r21.comments], ['2.1', 2, 2, 3])
      assert.deepEqual(r21.unknownComponents, ['3ZzzzzzzzzzzzzzzzzzzzZ'])
      assert.ok(
        r21.notes.some((n) => /Priority \(2 topics\)/.test(n)),
        JSON.stringify(r21.notes),
      )
      const v30 = await postZip(fileC, bcfFixtureZip('v30'))
      assert.equal(v30.statusCode, 200, v30.body)
      const r30 = v30.json() as Report
      assert.deepEqual([r30.version, r30.topics, r30.annotations.length, r30.comments], ['3.0', 3, 3, 5])
      const views = (await get(`/file/configuration/?file=${fileC}`)).json() as { configurations: View[] }
      const boxed = views.configurations.find((v) =>
        JSON.stringify(v.enabledClippingPlanes).includes('"box"'),
      )
      // The six planes of the 3.0 box (IFC x 1–4, y 0.5–3.5, z −0.5–2) read back as Tessera's box, Y up.
      assert.deepEqual(boxed?.enabledClippingPlanes, [
        { type: 'box', id: 'box', min: [1, -0.5, -3.5], max: [4, 2, -0.5], enabled: true },
      ])
      const isolated = views.configurations.filter(
        (v) => v.modifiersEnabled && !v.selectedNodes.includes(node(nodesC, WALL_A)),
      )
      const slab = node(nodesC, SLAB)
      for (const view of isolated) {
        const hidden = (view.modifiers[0] as { nodes: string[] }).nodes
        assert.ok(!hidden.includes(slab) && hidden.includes(node(nodesC, WALL_A)), JSON.stringify(view))
      }
      assert.ok(isolated.length >= 2)
      const thumbnails = (await get(`/file/configuration/thumbnails/?file=${fileC}`)).json() as {
        thumbnails: unknown[]
      }
      assert.equal(thumbnails.thumbnails.length, 2)
      const again = (await postZip(fileC, bcfFixtureZip('v30'))).json() as Report
      assert.deepEqual([again.annotations.length, again.configurations.length, again.unchanged], [0, 0, 3])
    })

    test('a model moved to the origin at conversion: BCF positions are in the file’s own coordinates', async () => {
      const [geoA, geoB] = [
        await converted('geo-a.ifc', GEOREFERENCED),
        await converted('geo-b.ifc', GEOREFERENCED),
      ]
      const props = (await get(`/scene/properties?file=${geoA}`)).json() as {
        nodeIdToProperties: Record<string, { IFC?: Record<string, unknown> }>
      }
      const project = Object.values(props.nodeIdToProperties).find(
        (groups) => groups.IFC?.class === 'IfcProject',
      )
      assert.deepEqual(
        ['x', 'y', 'z'].map((axis) => project?.IFC?.[`originShift.${axis}`]),
        [512000, 6100000, 10],
      )
      const created = await post('/annotation/create/', {
        file: geoA,
        name: 'On site',
        cameraX: 8,
        cameraY: 5,
        cameraZ: 9,
        targets: [{ type: 'point', position: [1, 1, -1], node: null, cameraTarget: [1, 1, -1] }],
      })
      assert.equal(created.statusCode, 200, created.body)
      const zip = (await get(`/file/${geoA}/bcf`)).rawPayload
      const camera = readBcf(zip).bcf.topics[0]?.viewpoints[0]?.camera ?? assert.fail('no camera')
      assert.deepEqual(camera.position, [512008, 6099991, 15])
      assert.equal((await postZip(geoB, zip)).statusCode, 200)
      const imported = (await get(`/annotation/?file=${geoB}`)).json() as {
        annotations: { cameraX: number; cameraY: number; cameraZ: number }[]
      }
      const a = imported.annotations[0] ?? assert.fail('no annotation')
      assert.deepEqual([a.cameraX, a.cameraY, a.cameraZ], [8, 5, 9])
    })

    test('one GUID for a topic, its comments and its viewpoint: imported, never a 500', async () => {
      const guid = 'abcdefab-cdef-4abc-8def-abcdefabcdef'
      const comment = `<Comment Guid="${guid}"><Date>2026-01-02T00:00:00Z</Date><Author>x</Author><Comment>once</Comment></Comment>`
      const markup = `<Markup><Topic Guid="${guid}" TopicType="Issue" TopicStatus="Open"><Title>Same GUID</Title><CreationDate>2026-01-01T00:00:00Z</CreationDate><CreationAuthor>${'a'.repeat(5000)}</CreationAuthor><Comments>${comment}${comment}</Comments><Viewpoints><ViewPoint Guid="${guid}"><Viewpoint>v.bcfv</Viewpoint></ViewPoint></Viewpoints></Topic></Markup>`
      const viewpoint = `<VisualizationInfo Guid="${guid}"><Components><Visibility DefaultVisibility="false"><Exceptions><Component IfcGuid="${SLAB}"/></Exceptions></Visibility></Components><PerspectiveCamera><CameraViewPoint><X>10</X><Y>-10</Y><Z>6</Z></CameraViewPoint><CameraDirection><X>-8</X><Y>12</Y><Z>-5</Z></CameraDirection><CameraUpVector><X>0</X><Y>0</Y><Z>1</Z></CameraUpVector><FieldOfView>60</FieldOfView><AspectRatio>1.5</AspectRatio></PerspectiveCamera></VisualizationInfo>`
      const zip = zipFiles({
        'bcf.version': '<Version VersionId="3.0"/>',
        [`${guid}/markup.bcf`]: markup,
        [`${guid}/v.bcfv`]: viewpoint,
      })
      const res = await postZip(fileB, zip)
      assert.equal(res.statusCode, 200, res.body)
      const report = res.json() as Report
      assert.deepEqual([report.annotations.length, report.configurations.length, report.comments], [1, 1, 1])
    })

    test('roles: viewers export what they may see, only owners and editors import; strangers get 404 (guests: links/link-writes)', async () => {
      const hidden = await post('/annotation/create/', {
        file: fileA,
        name: 'Owner only',
        readPermissions: [m.owner.account.email],
      })
      assert.equal(hidden.statusCode, 200, hidden.body)
      const seen = await get(`/file/${fileA}/bcf`, m.viewer.headers)
      assert.equal(seen.statusCode, 200)
      const titles = readBcf(seen.rawPayload).bcf.topics.map((topic) => topic.title)
      assert.deepEqual(titles.sort(), ['Crack in the wall', 'Ground floor cut', 'No place yet'])
      const owner = readBcf((await get(`/file/${fileA}/bcf`)).rawPayload).bcf.topics
      assert.ok(owner.some((topic) => topic.title === 'Owner only'))
      assert.equal((await get(`/file/${fileA}/bcf`, m.stranger.headers)).statusCode, 404)
      const viewer = await postZip(fileA, exported, m.viewer.headers)
      assert.equal(viewer.statusCode, 403, viewer.body)
      assert.equal((await postZip(fileA, exported, m.stranger.headers)).statusCode, 404)
    })

    test('bad bodies: 400 BCF_INVALID, 413 past the size, 415 for another type', async () => {
      const bad = async (body: Uint8Array, pattern: RegExp) => {
        const res = await postZip(fileB, body)
        assert.equal(res.statusCode, 400, res.body)
        assert.equal(problemOf(res).code, 'BCF_INVALID')
        assert.match(problemOf(res).detail ?? '', pattern)
      }
      await bad(Buffer.from('not a zip at all'), /not a readable zip/)
      await bad(zipSync({ 'x.txt': new Uint8Array(1) }), /no bcf\.version/)
      const doctype =
        '<?xml version="1.0"?><!DOCTYPE Version [<!ENTITY x SYSTEM "file:///etc/passwd">]><Version VersionId="3.0">&x;</Version>'
      await bad(zipSync({ 'bcf.version': new TextEncoder().encode(doctype) }), /DOCTYPE/)
      const deep = `<Version VersionId="3.0">${'<a>'.repeat(100)}${'</a>'.repeat(100)}</Version>`
      await bad(zipSync({ 'bcf.version': new TextEncoder().encode(deep) }), /nested/i)
      await bad(
        zipSync({ 'bcf.version': new TextEncoder().encode('<Version VersionId="1.0"/>') }),
        /BCF 1\.0/,
      )
      const big = await postZip(fileB, new Uint8Array(33 * 1024 * 1024))
      assert.equal(big.statusCode, 413)
      const text = await t.app.inject({
        method: 'POST',
        url: `/file/${fileB}/bcf`,
        headers: { ...m.owner.headers, 'content-type': 'text/plain' },
        payload: 'hello',
      })
      assert.equal(text.statusCode, 415, text.body)
    })

    test('an Idempotency-Key replays the answer and adds nothing', async () => {
      const withKey = { ...m.owner.headers, 'idempotency-key': `bcf-${dialect.name}` }
      const body = addComment(exported, 'No place yet', 'Where is it?')
      const first = await postZip(fileA, body, withKey)
      assert.equal(first.statusCode, 200, first.body)
      const second = await postZip(fileA, body, withKey)
      assert.equal(second.headers['idempotent-replayed'], 'true')
      assert.equal(second.body, first.body)
      const threads = (await get(`/annotation/discussion/?file=${fileA}`)).json() as {
        discussions: { replies: number }[]
      }
      assert.equal(
        threads.discussions.reduce((n, d) => n + d.replies, 0),
        2,
      )
    })
  })
}

/** What a round trip must keep of each topic, in GUID order. */
function comparable(topics: ReturnType<typeof readBcf>['bcf']['topics']) {
  const round = (v: number[]) => v.map((n) => Math.round(n * 1e9) / 1e9)
  return [...topics]
    .sort((a, b) => a.guid.localeCompare(b.guid))
    .map((topic) => ({
      ...topic,
      viewpoints: topic.viewpoints.map((v) => ({
        ...v,
        camera: v.camera && {
          ...v.camera,
          position: round(v.camera.position),
          direction: round(v.camera.direction),
          up: round(v.camera.up),
        },
        selection: [...v.selection].sort((a, b) => String(a.ifcGuid).localeCompare(String(b.ifcGuid))),
        planes: v.planes.map((p) => ({ location: round(p.location), direction: round(p.direction) })),
        snapshot: v.snapshot ? v.snapshot.type : undefined,
      })),
    }))
}

/** `zip` with one more comment on the topic titled `title`. */
function addComment(zip: Uint8Array, title: string, text: string): Uint8Array {
  const files = unzipSync(zip)
  const decoder = new TextDecoder()
  for (const [name, bytes] of Object.entries(files)) {
    const xml = decoder.decode(bytes)
    if (!name.endsWith('markup.bcf') || !xml.includes(`<Title>${title}</Title>`)) continue
    const comment = `<Comment Guid="aaaaaaaa-bbbb-4ccc-8ddd-${Date.now().toString(16).padStart(12, '0').slice(-12)}"><Date>2026-11-28T10:00:00.000Z</Date><Author>site@example.com</Author><Comment>${text}</Comment></Comment>`
    const withComments = xml.includes('<Comments>')
      ? xml.replace('<Comments>', `<Comments>${comment}`)
      : xml.replace(
          /(<\/Description>|<\/CreationAuthor>|<\/ModifiedAuthor>)(?![\s\S]*(<\/Description>|<\/ModifiedAuthor>))/,
          `$1<Comments>${comment}</Comments>`,
        )
    files[name] = new TextEncoder().encode(withComments)
  }
  return zipSync(files)
}
