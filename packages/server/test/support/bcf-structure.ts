// An independent structural checker for BCF 3.0 archives, written from buildingSMART's published XSDs
// (tables in bcf-schema-30.ts) and the rules the 3.0 Documentation/README.md states in prose:
//   - root: bcf.version (VersionId 3.0) and extensions.xml are required, project.bcfp and documents.xml
//     optional; documents live in Documents/<document guid>, each listed in documents.xml;
//   - one folder per topic, named by its Topic Guid (all-lowercase), holding markup.bcf plus the
//     viewpoint (.bcfv), snapshot (PNG or JPEG, longest side <= 1500 px) and bitmap files it names;
//   - elements in schema order; required values not empty (NonEmptyOrBlankString);
//   - TopicType, TopicStatus, Priority, Labels, Stage, AssignedTo and SnippetType come from the
//     "predefined list in extensions.xml";
//   - a Comment has text or a Viewpoint (or both); its Viewpoint is a ViewPoint of the same topic;
//   - a Component has an IfcGuid or an AuthoringToolId; a camera's direction and up vector are neither
//     zero nor parallel;
//   - the encoding guide: '/' separators and directory entries in the zip.
// Each problem is one human-readable string naming the file and the element path.
import {
  BcfArchive,
  checkCamera,
  checkComponents,
  child,
  descendants,
  isTrue,
  textOf,
} from './bcf-archive.ts'
import {
  documentInfo,
  EXTENSION_LISTS,
  extensions,
  guid,
  markup,
  projectInfo,
  version,
  visualizationInfo,
} from './bcf-schema-30.ts'
import type { XmlElement } from './bcf-xml.ts'

export { checkBcf21Zip } from './bcf-structure-21.ts'

type ExtensionValues = Map<string, Set<string>>

const SNAPSHOT_LIMIT = 1500

function readExtensions(archive: BcfArchive): ExtensionValues | undefined {
  const root = archive.read('extensions.xml', extensions, true)
  if (!root) return undefined
  const values: ExtensionValues = new Map()
  for (const [listName, item] of EXTENSION_LISTS) {
    const entries = descendants(root, listName, item).map((node) => textOf(node) ?? '')
    values.set(item, new Set(entries))
  }
  return values
}

/** documents.xml's Document Guids; each document's file is Documents/<guid>. */
function readDocuments(archive: BcfArchive): Set<string> {
  const root = archive.read('documents.xml', documentInfo, false)
  const guids = new Set<string>()
  for (const document of descendants(root, 'Documents', 'Document')) {
    const id = document.attributes.get('Guid')
    if (id === undefined) continue
    guids.add(id)
    archive.registerGuid(id, `documents.xml Document ${textOf(child(document, 'Filename')) ?? ''}`)
    archive.resolve('Documents', id, `documents.xml: Document ${id}`)
  }
  return guids
}

/** The values a topic takes from extensions.xml's predefined lists, as [item element, value]. */
function extensionUses(topic: XmlElement): Array<[string, string | undefined]> {
  return [
    ['TopicType', topic.attributes.get('TopicType')],
    ['TopicStatus', topic.attributes.get('TopicStatus')],
    ['Priority', textOf(child(topic, 'Priority'))],
    ...descendants(topic, 'Labels', 'Label').map((label): [string, string | undefined] => [
      'TopicLabel',
      textOf(label),
    ]),
    ['Stage', textOf(child(topic, 'Stage'))],
    ['User', textOf(child(topic, 'AssignedTo'))],
    ['SnippetType', child(topic, 'BimSnippet')?.attributes.get('SnippetType')],
  ]
}

function checkExtensionValues(archive: BcfArchive, file: string, topic: XmlElement, lists: ExtensionValues) {
  for (const [item, raw] of extensionUses(topic)) {
    const value = raw?.replace(/\s+/g, ' ').trim()
    if (!value || lists.get(item)?.has(value)) continue
    archive.problem(`${file}: ${item} '${value}' is not in extensions.xml's predefined list`)
  }
}

function checkVisualization(archive: BcfArchive, folder: string, path: string, info: XmlElement) {
  const camera = child(info, 'PerspectiveCamera') ?? child(info, 'OrthogonalCamera')
  if (camera) checkCamera(archive, path, camera)
  checkComponents(archive, path, info)
  for (const bitmap of descendants(info, 'Bitmaps', 'Bitmap')) {
    const file = archive.topicFile(folder, textOf(child(bitmap, 'Reference')), `${path}: Bitmap Reference`)
    if (file) archive.checkImage(file, 'bitmap', undefined)
  }
}

/** The topic's ViewPoints: files exist and check out. Returns their Guids for the comments. */
function checkViewpoints(archive: BcfArchive, folder: string, file: string, topic: XmlElement): Set<string> {
  const guids = new Set<string>()
  const names = new Set<string>()
  for (const viewPoint of descendants(topic, 'Viewpoints', 'ViewPoint')) {
    const id = viewPoint.attributes.get('Guid') ?? ''
    guids.add(id)
    archive.registerGuid(id, `${file} ViewPoint`)
    const viewpointName = textOf(child(viewPoint, 'Viewpoint'))
    const snapshotName = textOf(child(viewPoint, 'Snapshot'))
    for (const name of [viewpointName, snapshotName]) {
      if (name !== undefined && names.has(name))
        archive.problem(`${file}: ViewPoint ${id} reuses file '${name}'`)
      if (name !== undefined) names.add(name)
    }
    if (viewpointName !== undefined && !viewpointName.endsWith('.bcfv')) {
      archive.problem(`${file}: ViewPoint ${id} file '${viewpointName}' should end with .bcfv`)
    }
    const path = archive.topicFile(folder, viewpointName, `${file}: ViewPoint ${id} Viewpoint`)
    const info = path ? archive.read(path, visualizationInfo, true) : undefined
    if (path && info) {
      const infoGuid = info.attributes.get('Guid')
      if (infoGuid !== id)
        archive.problem(`${path}: VisualizationInfo Guid ${infoGuid} is not its ViewPoint's ${id}`)
      checkVisualization(archive, folder, path, info)
    }
    const snapshot = archive.topicFile(folder, snapshotName, `${file}: ViewPoint ${id} Snapshot`)
    if (snapshot) archive.checkImage(snapshot, 'snapshot', SNAPSHOT_LIMIT)
  }
  return guids
}

function checkComments(archive: BcfArchive, file: string, topic: XmlElement, viewpoints: Set<string>) {
  for (const comment of descendants(topic, 'Comments', 'Comment')) {
    const id = comment.attributes.get('Guid')
    archive.registerGuid(id, `${file} Comment`)
    const viewpoint = child(comment, 'Viewpoint')?.attributes.get('Guid')
    if (viewpoint !== undefined && !viewpoints.has(viewpoint)) {
      archive.problem(
        `${file}: Comment ${id} refers to Viewpoint ${viewpoint}, not a ViewPoint of this topic`,
      )
    }
    if (child(comment, 'Comment') === undefined && viewpoint === undefined) {
      archive.problem(`${file}: Comment ${id} has neither Comment text nor a Viewpoint`)
    }
  }
}

function checkReferences(
  archive: BcfArchive,
  folder: string,
  file: string,
  root: XmlElement,
  documents: Set<string>,
) {
  const topic = child(root, 'Topic')
  for (const reference of descendants(topic, 'DocumentReferences', 'DocumentReference')) {
    archive.registerGuid(reference.attributes.get('Guid'), `${file} DocumentReference`)
    const target = textOf(child(reference, 'DocumentGuid'))
    if (target !== undefined && !documents.has(target)) {
      archive.problem(`${file}: DocumentReference to ${target}, which documents.xml does not list`)
    }
  }
  const snippet = child(topic, 'BimSnippet')
  const snippetFile = textOf(child(snippet, 'Reference'))
  if (snippet && snippetFile && !isTrue(snippet.attributes.get('IsExternal'), false)) {
    archive.resolve(folder, snippetFile, `${file}: BimSnippet Reference`)
  }
  for (const ifc of descendants(root, 'Header', 'Files', 'File')) {
    const reference = textOf(child(ifc, 'Reference'))
    if (reference && !isTrue(ifc.attributes.get('IsExternal'), true)) {
      archive.resolve(folder, reference, `${file}: Header File Reference`)
    }
  }
}

interface Context {
  lists: ExtensionValues | undefined
  documents: Set<string>
}

function checkTopic(archive: BcfArchive, folder: string, context: Context) {
  if (guid.check(folder)) archive.problem(`${folder}/: topic folder is not named by a lowercase GUID`)
  const file = `${folder}/markup.bcf`
  const root = archive.read(file, markup, true)
  const topic = child(root, 'Topic')
  if (!root || !topic) return
  const id = topic.attributes.get('Guid')
  if (id !== folder) archive.problem(`${file}: Topic Guid ${id} does not match its folder name ${folder}`)
  archive.registerGuid(id, `${file} Topic`)
  if (context.lists) checkExtensionValues(archive, file, topic, context.lists)
  const viewpoints = checkViewpoints(archive, folder, file, topic)
  checkComments(archive, file, topic, viewpoints)
  checkReferences(archive, folder, file, root, context.documents)
}

/**
 * Checks a BCF 3.0 archive, given as zip entry path -> bytes (fflate's `unzipSync` output, directory
 * entries included). Returns the violations found; an empty list means the archive follows the 3.0
 * schemas and rules. `directoryEntries: false` skips the encoding guide's directory-entry rule.
 */
export function checkBcf30Zip(
  entries: Map<string, Uint8Array>,
  options: { directoryEntries?: boolean } = {},
): string[] {
  const archive = new BcfArchive(entries, options.directoryEntries ?? true)
  const versionRoot = archive.read('bcf.version', version, true)
  const versionId = versionRoot?.attributes.get('VersionId')
  if (versionId !== undefined && versionId !== '3.0') {
    archive.problem(`bcf.version: VersionId is '${versionId}', expected '3.0'`)
  }
  const context: Context = { lists: readExtensions(archive), documents: readDocuments(archive) }
  archive.read('project.bcfp', projectInfo, false)
  const folders = archive.rootFolders(['Documents'])
  for (const folder of folders) checkTopic(archive, folder, context)
  archive.reportStrays()
  return archive.problems
}
