// Reading BCF without a server: dates outside what xs:dateTime writes back are left out with a note,
// repeated GUIDs are read once, 3.0 comments that are only a viewpoint keep a text, and a topic's
// fields Tessera has no place for are named in one note.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readBcf } from '../../src/modules/bcf/read.ts'
import { zipFiles } from '../support/bcf-fixtures.ts'

const TOPIC = 'abcdefab-cdef-4abc-8def-abcdefabcdef'
const VIEW = 'abcdefab-cdef-4abc-8def-abcdefabcde0'

function markup(inner: string, created = '2026-01-01T00:00:00Z'): string {
  return `<Markup><Topic Guid="${TOPIC}" TopicType="Issue" TopicStatus="Closed"><Title>T</Title><Priority>High</Priority><CreationDate>${created}</CreationDate><CreationAuthor>a</CreationAuthor>${inner}</Topic></Markup>`
}

const comment = (guid: string, text: string, date = '2026-01-02T00:00:00Z') =>
  `<Comment Guid="${guid}"><Date>${date}</Date><Author>b</Author>${text}<Viewpoint Guid="${VIEW}"/></Comment>`

test('dates, repeated GUIDs, viewpoint-only comments and fields left out', () => {
  const c1 = 'abcdefab-cdef-4abc-8def-000000000001'
  const c2 = 'abcdefab-cdef-4abc-8def-000000000002'
  const comments = `<Comments>${comment(c1, '<Comment>first</Comment>')}${comment(c1, '<Comment>again</Comment>')}${comment(c2, '')}${comment('abcdefab-cdef-4abc-8def-000000000003', '<Comment>far</Comment>', '+275760-09-13T00:00:00Z')}</Comments>`
  const zip = zipFiles({
    'bcf.version': '<Version VersionId="3.0"/>',
    [`${TOPIC}/markup.bcf`]: markup(comments, '0000-12-31T23:00:00Z'),
  })
  const { bcf, notes } = readBcf(zip)
  const topic = bcf.topics[0] ?? assert.fail('no topic')
  assert.deepEqual(
    topic.comments.map((c) => [c.guid, c.text]),
    [
      [c1, 'first'],
      [c2, '(a viewpoint, no text)'],
    ],
  )
  assert.ok(
    notes.some((n) => /275760.*years 1–9999/.test(n)),
    JSON.stringify(notes),
  )
  assert.ok(
    notes.some((n) => /0000-12-31.*years 1–9999/.test(n)),
    JSON.stringify(notes),
  )
  assert.ok(
    notes.some((n) => /Priority \(1 topic\).*TopicStatus Closed/.test(n)),
    JSON.stringify(notes),
  )
})
