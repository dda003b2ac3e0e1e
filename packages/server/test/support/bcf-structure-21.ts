// The BCF 2.1 counterpart of checkBcf30Zip, for the import fixtures (tables in bcf-schema-21.ts, rules
// from the 2.1 Documentation/README.md). What a 2.1 reader sees differently from 3.0:
//   - root: bcf.version (VersionId 2.1, optional DetailedVersion) and optional project.bcfp whose root
//     is ProjectExtension with a required ExtensionSchema (an extensions.xsd); no extensions.xml and no
//     documents.xml; documents are any files referenced by relative path (a Documents folder is advised);
//   - markup.bcf: Header holds File elements directly; Comment and Viewpoints (each one ViewPoint) are
//     repeated children of Markup after Topic; ReferenceLink, Labels, DocumentReference and RelatedTopic
//     repeat inside Topic without wrappers; Comment text is required; isExternal is lower-case;
//   - "one viewpoint needs to be named viewpoint.bcfv" and "one snapshot needs to be named snapshot.png";
//   - visinfo: ViewSetupHints is a child of Components; Visibility is required; cameras carry no
//     AspectRatio; Bitmap elements repeat at the root with the format in a child also named Bitmap;
//     the VisualizationInfo Guid need not equal the markup's ViewPoint Guid (buildingSMART's own 2.1
//     test cases differ), so the markup's Guid is the viewpoint's identity.
import {
  BcfArchive,
  checkCamera,
  checkComponents,
  child,
  descendants,
  isTrue,
  textOf,
} from './bcf-archive.ts'
import { guid21, markup21, projectExtension21, version21, visualizationInfo21 } from './bcf-schema-21.ts'
import type { XmlElement } from './bcf-xml.ts'

const isUrl = (reference: string) => /^[a-z][a-z0-9+.-]*:/i.test(reference)

function checkVisualization(archive: BcfArchive, folder: string, path: string, info: XmlElement) {
  for (const camera of info.children.filter((c) => c.name.endsWith('Camera')))
    checkCamera(archive, path, camera)
  checkComponents(archive, path, info)
  for (const bitmap of descendants(info, 'Bitmap')) {
    const file = archive.topicFile(folder, textOf(child(bitmap, 'Reference')), `${path}: Bitmap Reference`)
    if (file) archive.checkImage(file, 'bitmap', undefined)
  }
}

function checkViewpoints(archive: BcfArchive, folder: string, file: string, root: XmlElement): Set<string> {
  const guids = new Set<string>()
  const viewpointNames: string[] = []
  const snapshotNames: string[] = []
  for (const viewPoint of descendants(root, 'Viewpoints')) {
    const id = viewPoint.attributes.get('Guid') ?? ''
    guids.add(id.toLowerCase())
    archive.registerGuid(id, `${file} Viewpoints`)
    const viewpointName = textOf(child(viewPoint, 'Viewpoint'))
    const snapshotName = textOf(child(viewPoint, 'Snapshot'))
    if (viewpointName) viewpointNames.push(viewpointName)
    if (snapshotName) snapshotNames.push(snapshotName)
    const path = archive.topicFile(folder, viewpointName, `${file}: Viewpoints ${id} Viewpoint`)
    const info = path ? archive.read(path, visualizationInfo21, true) : undefined
    if (path && info) checkVisualization(archive, folder, path, info)
    const snapshot = archive.topicFile(folder, snapshotName, `${file}: Viewpoints ${id} Snapshot`)
    if (snapshot) archive.checkImage(snapshot, 'snapshot', undefined)
  }
  if (viewpointNames.length > 0 && !viewpointNames.includes('viewpoint.bcfv')) {
    archive.problem(`${file}: none of the topic's viewpoints is named viewpoint.bcfv (2.1 README)`)
  }
  if (snapshotNames.length > 0 && !snapshotNames.includes('snapshot.png')) {
    archive.problem(`${file}: none of the topic's snapshots is named snapshot.png (2.1 README)`)
  }
  return guids
}

function checkComments(archive: BcfArchive, file: string, root: XmlElement, viewpoints: Set<string>) {
  for (const comment of descendants(root, 'Comment')) {
    const id = comment.attributes.get('Guid')
    archive.registerGuid(id, `${file} Comment`)
    const viewpoint = child(comment, 'Viewpoint')?.attributes.get('Guid')
    if (viewpoint !== undefined && !viewpoints.has(viewpoint.toLowerCase())) {
      archive.problem(
        `${file}: Comment ${id} refers to Viewpoint ${viewpoint}, not a Viewpoints of this markup`,
      )
    }
  }
}

/** Internal (isExternal=false) files named by DocumentReference, BimSnippet and Header File. */
function checkReferences(archive: BcfArchive, folder: string, file: string, root: XmlElement) {
  const topic = child(root, 'Topic')
  const references: Array<[XmlElement | undefined, string, boolean, string]> = [
    ...descendants(topic, 'DocumentReference').map((node): [XmlElement, string, boolean, string] => [
      node,
      'ReferencedDocument',
      false,
      'DocumentReference',
    ]),
    [child(topic, 'BimSnippet'), 'Reference', false, 'BimSnippet'],
    ...descendants(root, 'Header', 'File').map((node): [XmlElement, string, boolean, string] => [
      node,
      'Reference',
      true,
      'File',
    ]),
  ]
  for (const [node, element, externalByDefault, what] of references) {
    archive.registerGuid(
      what === 'DocumentReference' ? node?.attributes.get('Guid') : undefined,
      `${file} ${what}`,
    )
    const reference = textOf(child(node, element))
    if (!node || !reference || isTrue(node.attributes.get('isExternal'), externalByDefault)) continue
    if (!isUrl(reference)) archive.resolve(folder, reference, `${file}: ${what} ${element}`)
  }
}

function checkTopic(archive: BcfArchive, folder: string) {
  if (guid21.check(folder)) archive.problem(`${folder}/: topic folder is not named by a GUID`)
  const file = `${folder}/markup.bcf`
  const root = archive.read(file, markup21, true)
  const topic = child(root, 'Topic')
  if (!root || !topic) return
  const id = topic.attributes.get('Guid')
  if (id?.toLowerCase() !== folder.toLowerCase()) {
    archive.problem(`${file}: Topic Guid ${id} does not match its folder name ${folder}`)
  }
  archive.registerGuid(id, `${file} Topic`)
  const viewpoints = checkViewpoints(archive, folder, file, root)
  checkComments(archive, file, root, viewpoints)
  checkReferences(archive, folder, file, root)
}

/**
 * Checks a BCF 2.1 archive (zip entry path -> bytes) against the 2.1 schemas and README rules; the
 * counterpart of checkBcf30Zip for import fixtures written the way 2.1 tools write them.
 */
export function checkBcf21Zip(
  entries: Map<string, Uint8Array>,
  options: { directoryEntries?: boolean } = {},
): string[] {
  const archive = new BcfArchive(entries, options.directoryEntries ?? true)
  const versionRoot = archive.read('bcf.version', version21, true)
  const versionId = versionRoot?.attributes.get('VersionId')
  if (versionRoot && versionId !== '2.1')
    archive.problem(`bcf.version: VersionId is '${versionId}', expected '2.1'`)
  const project = archive.read('project.bcfp', projectExtension21, false)
  const schema = textOf(child(project, 'ExtensionSchema'))
  if (schema && !isUrl(schema)) archive.resolve('', schema, 'project.bcfp: ExtensionSchema')
  for (const folder of archive.rootFolders(['Documents'])) checkTopic(archive, folder)
  archive.reportStrays()
  return archive.problems
}
