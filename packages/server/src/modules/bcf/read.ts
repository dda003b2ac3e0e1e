// A .bcfzip of BCF 2.1 or 3.0 into the neutral model. 3.0 nests a topic's comments and viewpoints in
// its Topic (Comments/Comment, Viewpoints/ViewPoint) and its labels in Labels/Label; 2.1 puts
// Comment and Viewpoints elements beside the Topic and repeats Labels. Both are read. What cannot be
// used (a viewpoint file that is missing, a comment without text) is left out with a note.
import { AppError } from '../../platform/errors.ts'
import { normalGuid } from './guids.ts'
import { BCF_MAX_NOTES, BCF_MAX_TOPICS, BCF_MAX_VIEWPOINTS } from './limits.ts'
import type { BcfComment, BcfPackage, BcfSnapshot, BcfTopic, BcfViewpoint } from './model.ts'
import { type Note, readViewpoint } from './read-viewpoint.ts'
import { all, attr, first, parseXml, text, type XmlElement } from './xml.ts'
import { readZip } from './zip.ts'

export interface ReadBcf {
  bcf: BcfPackage
  notes: string[]
}

type Entries = Map<string, Uint8Array>

/** The text of a reply made of a comment that only points at a viewpoint. */
const VIEWPOINT_ONLY = '(a viewpoint, no text)'

function version(entries: Entries): '2.1' | '3.0' {
  const bytes = entries.get('bcf.version')
  if (!bytes) throw new AppError('BCF_INVALID', 'The zip has no bcf.version: it is not a BCF file.')
  const id = attr(first(parseXml(bytes, 'bcf.version'), 'Version'), 'VersionId')?.trim()
  if (id === '2.1' || id === '3.0') return id
  throw new AppError('BCF_INVALID', `BCF ${id ?? '(no VersionId)'} is not read; send BCF 2.1 or 3.0.`)
}

const YEAR_1 = Date.parse('0001-01-01T00:00:00Z')
const YEAR_9999_END = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

function dateOf(value: string | undefined, note: Note, what: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined
  const ms = Date.parse(value.trim())
  // Years 1 to 9999: what xs:dateTime writes back without a sign or a fifth digit.
  if (ms >= YEAR_1 && ms <= YEAR_9999_END) return ms
  note(`${what}: the date "${value.trim().slice(0, 40)}" is not a date of years 1–9999 and was left out`)
  return undefined
}

/** The items with a GUID not seen before them. */
function firstOfEachGuid<T extends { guid: string }>(items: T[]): T[] {
  const seen = new Set<string>()
  return items.filter((item) => !seen.has(item.guid) && Boolean(seen.add(item.guid)))
}

function comments(topic: XmlElement, markup: XmlElement, note: Note): BcfComment[] {
  const listed = first(topic, 'Comments') ? all(first(topic, 'Comments'), 'Comment') : all(markup, 'Comment')
  const out: BcfComment[] = []
  for (const c of listed) {
    const guid = normalGuid(attr(c, 'Guid') ?? '')
    const viewpoint = normalGuid(attr(first(c, 'Viewpoint'), 'Guid') ?? '')
    // 3.0 allows a comment that is only a viewpoint; a reply needs text.
    const body = text(c, 'Comment')?.trim() ? (text(c, 'Comment') as string) : viewpoint ? VIEWPOINT_ONLY : ''
    const date = dateOf(text(c, 'Date'), note, 'a comment')
    if (!guid || body === '' || date === undefined) {
      note('a comment without a GUID, a date or any text was left out')
      continue
    }
    const modifiedDate = dateOf(text(c, 'ModifiedDate'), note, 'a comment')
    const modifiedAuthor = text(c, 'ModifiedAuthor')?.trim()
    out.push({
      guid,
      date,
      author: text(c, 'Author')?.trim() ?? '',
      text: body,
      ...(viewpoint ? { viewpoint } : {}),
      ...(modifiedDate === undefined ? {} : { modifiedDate }),
      ...(modifiedAuthor ? { modifiedAuthor } : {}),
    })
  }
  return firstOfEachGuid(out).sort((a, b) => a.date - b.date)
}

function snapshotOf(entries: Entries, path: string | undefined): BcfSnapshot | undefined {
  const bytes = path === undefined ? undefined : entries.get(path)
  if (!bytes) return undefined
  return { bytes, type: /\.png$/i.test(path ?? '') ? 'png' : 'jpg' }
}

function viewpoints(entries: Entries, folder: string, topic: XmlElement, markup: XmlElement, note: Note) {
  const listed = first(topic, 'Viewpoints')
    ? all(first(topic, 'Viewpoints'), 'ViewPoint')
    : all(markup, 'Viewpoints')
  const out: BcfViewpoint[] = []
  for (const v of listed.slice(0, BCF_MAX_VIEWPOINTS)) {
    const guid = normalGuid(attr(v, 'Guid') ?? '')
    const file = text(v, 'Viewpoint')?.trim() || (listed.length === 1 ? 'viewpoint.bcfv' : undefined)
    const bytes = file === undefined ? undefined : entries.get(`${folder}/${file}`)
    if (!guid || !bytes) {
      note(`topic ${folder}: a viewpoint without a GUID or whose file is missing was left out`)
      continue
    }
    const document = parseXml(bytes, `${folder}/${file}`)
    const snapshot = text(v, 'Snapshot')?.trim() || (listed.length === 1 ? 'snapshot.png' : undefined)
    const image = snapshotOf(entries, snapshot === undefined ? undefined : `${folder}/${snapshot}`)
    out.push({ ...readViewpoint(document, guid, note), ...(image ? { snapshot: image } : {}) })
  }
  if (listed.length > BCF_MAX_VIEWPOINTS)
    note(`topic ${folder}: viewpoints past the first ${BCF_MAX_VIEWPOINTS} were left out`)
  return out
}

function labels(topic: XmlElement): string[] {
  const nested = all(first(topic, 'Labels'), 'Label')
  const list = nested.length ? nested : all(topic, 'Labels')
  const values = list
    .map((l) => (typeof l['#text'] === 'string' ? l['#text'].trim() : ''))
    .filter((l) => l !== '')
  return [...new Set(values)]
}

/** What BCF topics say that Tessera has no place for, counted by element over the file. */
const DROPPED = [
  'Priority',
  'DueDate',
  'AssignedTo',
  'Stage',
  'ReferenceLinks',
  'ReferenceLink',
  'DocumentReferences',
  'DocumentReference',
  'RelatedTopics',
  'RelatedTopic',
  'BimSnippet',
]

function countDropped(topic: XmlElement, dropped: Map<string, number>): void {
  const status = attr(topic, 'TopicStatus')?.trim()
  const found = DROPPED.filter((name) => first(topic, name) !== undefined)
  if (status && status.toLowerCase() !== 'open') found.push(`TopicStatus ${status}`)
  for (const name of found) dropped.set(name, (dropped.get(name) ?? 0) + 1)
}

function droppedNote(dropped: Map<string, number>): string | undefined {
  if (dropped.size === 0) return undefined
  const list = [...dropped].map(([name, n]) => `${name} (${n} topic${n === 1 ? '' : 's'})`).join(', ')
  return `left out, as Tessera has no place for them: ${list}`
}

function readTopic(entries: Entries, folder: string, note: Note, dropped: Map<string, number>): BcfTopic {
  const bytes = entries.get(`${folder}/markup.bcf`) as Uint8Array
  const markup = first(parseXml(bytes, `${folder}/markup.bcf`), 'Markup')
  const topic = first(markup, 'Topic')
  if (!markup || !topic) throw new AppError('BCF_INVALID', `${folder}/markup.bcf has no Markup/Topic.`)
  const guid = normalGuid(attr(topic, 'Guid') ?? '') ?? normalGuid(folder)
  if (!guid) throw new AppError('BCF_INVALID', `${folder}/markup.bcf: the topic has no GUID.`)
  countDropped(topic, dropped)
  const modifiedDate = dateOf(text(topic, 'ModifiedDate'), note, `topic ${guid}`)
  const modifiedAuthor = text(topic, 'ModifiedAuthor')?.trim()
  const description = text(topic, 'Description')
  return {
    guid,
    type: attr(topic, 'TopicType')?.trim() ?? '',
    status: attr(topic, 'TopicStatus')?.trim() ?? '',
    title: text(topic, 'Title')?.trim() || 'Untitled topic',
    ...(description?.trim() ? { description } : {}),
    labels: labels(topic),
    creationDate: dateOf(text(topic, 'CreationDate'), note, `topic ${guid}`) ?? Date.now(),
    creationAuthor: text(topic, 'CreationAuthor')?.trim() ?? '',
    ...(modifiedDate === undefined ? {} : { modifiedDate }),
    ...(modifiedAuthor ? { modifiedAuthor } : {}),
    comments: comments(topic, markup, note),
    viewpoints: viewpoints(entries, folder, topic, markup, note),
  }
}

function project(entries: Entries) {
  const bytes = entries.get('project.bcfp')
  if (!bytes) return undefined
  const element = first(first(parseXml(bytes, 'project.bcfp'), 'ProjectInfo'), 'Project')
  const id = normalGuid(attr(element, 'ProjectId') ?? '')
  return id ? { id, name: text(element, 'Name')?.trim() ?? '' } : undefined
}

/** The package in a .bcfzip's bytes, and notes on what was left out. */
export function readBcf(body: Uint8Array): ReadBcf {
  const entries = readZip(body)
  const notes: string[] = []
  const note: Note = (message) => {
    if (notes.length < BCF_MAX_NOTES) notes.push(message)
  }
  const bcfVersion = version(entries)
  const folders = [...entries.keys()]
    .filter((path) => /^[^/]+\/markup\.bcf$/.test(path))
    .map((path) => path.slice(0, path.indexOf('/')))
    .sort()
  if (folders.length > BCF_MAX_TOPICS) {
    throw new AppError(
      'BCF_INVALID',
      `The file holds ${folders.length} topics; at most ${BCF_MAX_TOPICS} are imported at once.`,
    )
  }
  const dropped = new Map<string, number>()
  const read = folders.map((folder) => readTopic(entries, folder, note, dropped))
  const topics = firstOfEachGuid(read)
  if (topics.length < read.length)
    note(`${read.length - topics.length} topics repeat another's GUID and were left out`)
  const left = droppedNote(dropped)
  if (left) note(left)
  const info = project(entries)
  return { bcf: { version: bcfVersion, ...(info ? { project: info } : {}), topics }, notes }
}
