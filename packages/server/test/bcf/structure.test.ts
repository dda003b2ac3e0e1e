// The BCF structure checkers (test/support/bcf-structure.ts) can pass and can fail: a minimal valid BCF
// 3.0 archive has no violations, and each mutation of it (one broken schema or prose rule at a time)
// is reported with a specific message. The import fixtures in test/fixtures/bcf pass the checker of
// their version, so tests of the importer can trust them and tests of the exporter can trust the checker.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { bcfFixtureZip, zipEntries, zipFiles } from '../support/bcf-fixtures.ts'
import { checkBcf21Zip, checkBcf30Zip } from '../support/bcf-structure.ts'

const TOPIC = '5b0b6b55-2d3c-4c8e-9f0a-3c1d2e4f5a6b'
const VIEWPOINT = '0e6f1d2c-3b4a-4f5e-8d7c-6b5a4f3e2d1c'
const COMMENT = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d'
const SNAPSHOT = new Uint8Array(
  readFileSync(
    new URL('../fixtures/bcf/v21/dad1d686-64c6-4d9b-997d-63f376e7e612/snapshot.png', import.meta.url),
  ),
)

const xyz = (name: string, x: string, y: string, z: string) =>
  `<${name}><X>${x}</X><Y>${y}</Y><Z>${z}</Z></${name}>`

function minimalFiles(): Record<string, string | Uint8Array> {
  return {
    'bcf.version': '<?xml version="1.0" encoding="UTF-8"?>\n<Version VersionId="3.0"/>\n',
    'extensions.xml': `<?xml version="1.0" encoding="UTF-8"?>
<Extensions><TopicTypes><TopicType>Issue</TopicType></TopicTypes><TopicStatuses><TopicStatus>Open</TopicStatus></TopicStatuses></Extensions>
`,
    [`${TOPIC}/markup.bcf`]: `<?xml version="1.0" encoding="UTF-8"?>
<Markup>
  <Topic Guid="${TOPIC}" TopicType="Issue" TopicStatus="Open">
    <Title>A minimal topic</Title>
    <CreationDate>2025-03-10T09:15:00Z</CreationDate>
    <CreationAuthor>someone@example.com</CreationAuthor>
    <Comments>
      <Comment Guid="${COMMENT}">
        <Date>2025-03-10T09:16:00Z</Date>
        <Author>someone@example.com</Author>
        <Comment>Look here.</Comment>
        <Viewpoint Guid="${VIEWPOINT}"/>
      </Comment>
    </Comments>
    <Viewpoints>
      <ViewPoint Guid="${VIEWPOINT}">
        <Viewpoint>viewpoint.bcfv</Viewpoint>
        <Snapshot>snapshot.png</Snapshot>
      </ViewPoint>
    </Viewpoints>
  </Topic>
</Markup>
`,
    [`${TOPIC}/viewpoint.bcfv`]: `<?xml version="1.0" encoding="UTF-8"?>
<VisualizationInfo Guid="${VIEWPOINT}">
  <Components><Selection><Component IfcGuid="2O2Fr$t4X7Zf8NOew3FLOH"/></Selection></Components>
  <PerspectiveCamera>
    ${xyz('CameraViewPoint', '10', '-10', '6')}
    ${xyz('CameraDirection', '-0.524097', '0.786146', '-0.327561')}
    ${xyz('CameraUpVector', '-0.181698', '0.272547', '0.94483')}
    <FieldOfView>60</FieldOfView>
    <AspectRatio>1.5</AspectRatio>
  </PerspectiveCamera>
</VisualizationInfo>
`,
    [`${TOPIC}/snapshot.png`]: SNAPSHOT,
  }
}

const MARKUP = `${TOPIC}/markup.bcf`
const VISINFO = `${TOPIC}/viewpoint.bcfv`

type Files = Record<string, string | Uint8Array>

/** Replaces `from` (which must occur) by `to` in the text file `path`. */
function edit(files: Files, path: string, from: string, to: string) {
  const text = files[path]
  assert.ok(typeof text === 'string' && text.includes(from), `mutation: '${from}' not found in ${path}`)
  files[path] = text.replace(from, to)
}

function check(files: Files): string[] {
  return checkBcf30Zip(zipEntries(zipFiles(files)))
}

interface Mutation {
  name: string
  mutate(files: Files): void
  expect: RegExp
}

const TITLE = '<Title>A minimal topic</Title>'
const CREATED = '<CreationDate>2025-03-10T09:15:00Z</CreationDate>'

const mutations: Mutation[] = [
  {
    name: 'Title after CreationDate',
    mutate: (f) => edit(f, MARKUP, `${TITLE}\n    ${CREATED}`, `${CREATED}\n    ${TITLE}`),
    expect: /Topic\[1\]\/CreationDate\[1\]: out of order, CreationDate must come after Title$/,
  },
  {
    name: 'Comment without its required Guid attribute',
    mutate: (f) => edit(f, MARKUP, `<Comment Guid="${COMMENT}">`, '<Comment>'),
    expect: /Comments\[1\]\/Comment\[1\]: missing required attribute Guid$/,
  },
  {
    name: 'a GUID that does not match the Guid pattern',
    mutate: (f) =>
      edit(f, MARKUP, `<Comment Guid="${COMMENT}">`, '<Comment Guid="9A8B7C6D-5E4F-4A3B-9C2D-1E0F9A8B7C6D">'),
    expect: /Comment\[1\]\/@Guid: '9A8B7C6D-[^']*' is not a valid Guid/,
  },
  {
    name: 'an IfcGuid of 21 characters',
    mutate: (f) => edit(f, VISINFO, 'IfcGuid="2O2Fr$t4X7Zf8NOew3FLOH"', 'IfcGuid="2O2Fr$t4X7Zf8NOew3FLO"'),
    expect: /Component\[1\]\/@IfcGuid: '2O2Fr\$t4X7Zf8NOew3FLO' is not a valid IfcGuid: length must be 22/,
  },
  {
    name: 'an IfcGuid with a character outside IFC base 64',
    mutate: (f) => edit(f, VISINFO, 'IfcGuid="2O2Fr$t4X7Zf8NOew3FLOH"', 'IfcGuid="2O2Fr-t4X7Zf8NOew3FLOH"'),
    expect: /@IfcGuid: '2O2Fr-t4X7Zf8NOew3FLOH' is not a valid IfcGuid: must match/,
  },
  {
    name: 'an element the schema does not know',
    mutate: (f) => edit(f, MARKUP, TITLE, `${TITLE}\n    <Severity>high</Severity>`),
    expect: /Topic\[1\]\/Severity\[1\]: unknown element Severity$/,
  },
  {
    name: 'an attribute the schema does not know',
    mutate: (f) => edit(f, MARKUP, 'TopicStatus="Open"', 'TopicStatus="Open" Severity="high"'),
    expect: /\/Markup\/Topic\[1\]: unknown attribute Severity/,
  },
  {
    name: 'a referenced viewpoint file that is missing',
    mutate: (f) => {
      delete f[VISINFO]
    },
    expect: /ViewPoint [0-9a-f-]+ Viewpoint: references 'viewpoint.bcfv', which is not in the archive/,
  },
  {
    name: 'a referenced snapshot that is missing',
    mutate: (f) => {
      delete f[`${TOPIC}/snapshot.png`]
    },
    expect: /Snapshot: references 'snapshot.png', which is not in the archive/,
  },
  {
    name: 'VersionId 2.1',
    mutate: (f) => edit(f, 'bcf.version', 'VersionId="3.0"', 'VersionId="2.1"'),
    expect: /^bcf\.version: VersionId is '2\.1', expected '3\.0'$/,
  },
  {
    name: 'a month 13',
    mutate: (f) => edit(f, MARKUP, '2025-03-10T09:15:00Z', '2025-13-10T09:15:00Z'),
    expect: /CreationDate\[1\]: '2025-13-10T09:15:00Z' is not an xs:dateTime: month out of range/,
  },
  {
    name: 'a date without time',
    mutate: (f) => edit(f, MARKUP, '2025-03-10T09:15:00Z', '2025-03-10'),
    expect: /CreationDate\[1\]: '2025-03-10' is not an xs:dateTime/,
  },
  {
    name: 'a zone offset without colon',
    mutate: (f) => edit(f, MARKUP, '2025-03-10T09:15:00Z', '2025-03-10T09:15:00+0100'),
    expect: /is not an xs:dateTime \(zone offset needs a colon/,
  },
  {
    name: 'a decimal comma in a double',
    mutate: (f) => edit(f, VISINFO, '<X>10</X>', '<X>10,5</X>'),
    expect: /CameraViewPoint\[1\]\/X\[1\]: '10,5' is not an xs:double/,
  },
  {
    name: 'a FieldOfView of 180 degrees',
    mutate: (f) => edit(f, VISINFO, '<FieldOfView>60</FieldOfView>', '<FieldOfView>180</FieldOfView>'),
    expect: /FieldOfView\[1\]: '180' must be < 180 \(FieldOfView\)/,
  },
  {
    name: 'a 2.1 camera without AspectRatio',
    mutate: (f) => edit(f, VISINFO, '<AspectRatio>1.5</AspectRatio>', ''),
    expect: /PerspectiveCamera\[1\]: missing required element AspectRatio/,
  },
  {
    name: 'two cameras',
    mutate: (f) =>
      edit(f, VISINFO, '</PerspectiveCamera>', '</PerspectiveCamera><PerspectiveCamera></PerspectiveCamera>'),
    expect: /PerspectiveCamera\[2\]: too many OrthogonalCamera \| PerspectiveCamera \(at most 1\)/,
  },
  {
    name: 'an up vector parallel to the direction',
    mutate: (f) =>
      edit(
        f,
        VISINFO,
        '<X>-0.181698</X><Y>0.272547</Y><Z>0.94483</Z>',
        '<X>0.524097</X><Y>-0.786146</Y><Z>0.327561</Z>',
      ),
    expect: /CameraDirection and CameraUpVector are parallel/,
  },
  {
    name: 'a required element missing',
    mutate: (f) => edit(f, MARKUP, '<CreationAuthor>someone@example.com</CreationAuthor>', ''),
    expect: /\/Markup\/Topic\[1\]: missing required element CreationAuthor/,
  },
  {
    name: 'an empty required string',
    mutate: (f) => edit(f, MARKUP, TITLE, '<Title>  </Title>'),
    expect: /Title\[1\]: ' {2}' is empty or blank/,
  },
  {
    name: 'a Comment pointing at a viewpoint the topic does not have',
    mutate: (f) =>
      edit(
        f,
        MARKUP,
        `<Viewpoint Guid="${VIEWPOINT}"/>`,
        '<Viewpoint Guid="11111111-2222-4333-8444-555555555555"/>',
      ),
    expect: /Comment [0-9a-f-]+ refers to Viewpoint 11111111-[^,]*, not a ViewPoint of this topic/,
  },
  {
    name: 'a Comment with neither text nor viewpoint',
    mutate: (f) => {
      edit(f, MARKUP, '<Comment>Look here.</Comment>', '')
      edit(f, MARKUP, `<Viewpoint Guid="${VIEWPOINT}"/>`, '')
    },
    expect: /Comment [0-9a-f-]+ has neither Comment text nor a Viewpoint/,
  },
  {
    name: 'a TopicType that extensions.xml does not list',
    mutate: (f) => edit(f, MARKUP, 'TopicType="Issue"', 'TopicType="Clash"'),
    expect: /TopicType 'Clash' is not in extensions.xml's predefined list/,
  },
  {
    name: 'no extensions.xml',
    mutate: (f) => {
      delete f['extensions.xml']
    },
    expect: /^extensions\.xml: required file is missing$/,
  },
  {
    name: 'a topic folder that is not its Topic Guid',
    mutate: (f) =>
      edit(f, MARKUP, `<Topic Guid="${TOPIC}"`, '<Topic Guid="aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"'),
    expect: /Topic Guid aaaaaaaa-[^ ]* does not match its folder name/,
  },
  {
    name: 'the same Guid on a comment and a viewpoint',
    mutate: (f) => edit(f, MARKUP, `<Comment Guid="${COMMENT}">`, `<Comment Guid="${VIEWPOINT}">`),
    expect: /Comment: Guid [0-9a-f-]+ is already used by .* ViewPoint$/,
  },
  {
    name: 'a stray file',
    mutate: (f) => {
      f[`${TOPIC}/notes.txt`] = 'left over'
    },
    expect: /notes\.txt: unexpected file/,
  },
  {
    name: 'a snapshot that is not a PNG',
    mutate: (f) => {
      f[`${TOPIC}/snapshot.png`] = 'not an image'
    },
    expect: /snapshot\.png: snapshot is neither PNG nor JPEG/,
  },
  {
    name: 'XML that is not well-formed',
    mutate: (f) => edit(f, MARKUP, '</Title>', '</Titel>'),
    expect: /markup\.bcf: not well-formed XML/,
  },
  {
    name: 'bytes that are not UTF-8',
    mutate: (f) => {
      const text = f[MARKUP] as string
      f[MARKUP] = Uint8Array.from(Buffer.from(text.replace('A minimal topic', 'Zürich'), 'latin1'))
    },
    expect: /markup\.bcf: is not valid UTF-8/,
  },
]

describe('BCF 3.0 structure checker', () => {
  test('a minimal valid archive has no violations', () => {
    assert.deepEqual(check(minimalFiles()), [])
  })

  for (const mutation of mutations) {
    test(`reports ${mutation.name}`, () => {
      const files = minimalFiles()
      mutation.mutate(files)
      const problems = check(files)
      assert.ok(
        problems.some((problem) => mutation.expect.test(problem)),
        `expected ${mutation.expect} among:\n${problems.join('\n')}`,
      )
    })
  }

  test('reports folders without directory entries (the encoding guide)', () => {
    const entries = new Map(
      Object.entries(minimalFiles()).map(([path, v]): [string, Uint8Array] => [
        path,
        typeof v === 'string' ? Buffer.from(v) : v,
      ]),
    )
    assert.deepEqual(checkBcf30Zip(entries), [`${TOPIC}/: no directory entry in the zip (encoding guide)`])
    assert.deepEqual(checkBcf30Zip(entries, { directoryEntries: false }), [])
  })
})

describe('BCF import fixtures', () => {
  test('v30 follows the BCF 3.0 schemas and rules', () => {
    assert.deepEqual(checkBcf30Zip(zipEntries(bcfFixtureZip('v30'))), [])
  })

  test('v21 follows the BCF 2.1 schemas and rules', () => {
    assert.deepEqual(checkBcf21Zip(zipEntries(bcfFixtureZip('v21'))), [])
  })

  test('v21 is not a BCF 3.0 archive', () => {
    const problems = checkBcf30Zip(zipEntries(bcfFixtureZip('v21')))
    assert.ok(problems.includes("bcf.version: VersionId is '2.1', expected '3.0'"), problems.join('\n'))
    assert.ok(problems.some((problem) => /\/Markup\/Comment\[1\]: unknown element Comment/.test(problem)))
  })

  test('the 2.1 checker can fail too', () => {
    const entries = zipEntries(bcfFixtureZip('v21'))
    const markup = 'dad1d686-64c6-4d9b-997d-63f376e7e612/markup.bcf'
    const text = Buffer.from(entries.get(markup) ?? new Uint8Array()).toString('utf8')
    entries.set(markup, Buffer.from(text.replace('<Title>', '<Labels>Early</Labels><Title>')))
    const problems = checkBcf21Zip(entries)
    assert.ok(
      problems.some((problem) =>
        /Topic\[1\]\/Labels\[1\]: out of order, Labels must come after Title$/.test(problem),
      ),
    )
  })
})
