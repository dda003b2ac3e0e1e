// The archive-level bookkeeping both BCF checkers share: the zip's entries, which of them some BCF file
// accounts for (everything else is reported as a stray), the problems found, GUID uniqueness, relative
// references between files and the snapshot image checks.
import { parseXml, type XmlElement } from './bcf-xml.ts'
import { type ElementRule, validateElement } from './bcf-xsd.ts'

export function child(node: XmlElement | undefined, name: string): XmlElement | undefined {
  return node?.children.find((candidate) => candidate.name === name)
}

/** All elements reached by following `path` (names) from `node`: ('Comments', 'Comment'). */
export function descendants(node: XmlElement | undefined, ...path: string[]): XmlElement[] {
  let level = node ? [node] : []
  for (const name of path) level = level.flatMap((parent) => parent.children.filter((c) => c.name === name))
  return level
}

/** The value of a simple element as its NonEmptyOrBlankString collapse, or undefined when absent. */
export function textOf(node: XmlElement | undefined): string | undefined {
  return node === undefined ? undefined : node.text.replace(/[\t\n\r ]+/g, ' ').trim()
}

export function isTrue(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback
  return ['true', '1'].includes(value.trim())
}

function vectorOf(node: XmlElement | undefined): number[] | undefined {
  const values = ['X', 'Y', 'Z'].map((axis) => Number(textOf(child(node, axis)) ?? Number.NaN))
  return values.every(Number.isFinite) ? values : undefined
}

/** README "Constraints": CameraDirection and CameraUpVector are neither zero-length nor parallel. */
export function checkCamera(archive: BcfArchive, path: string, camera: XmlElement) {
  const direction = vectorOf(child(camera, 'CameraDirection'))
  const up = vectorOf(child(camera, 'CameraUpVector'))
  if (!direction || !up) return
  const [dx = 0, dy = 0, dz = 0] = direction
  const [ux = 0, uy = 0, uz = 0] = up
  const length = (x: number, y: number, z: number) => Math.hypot(x, y, z)
  const at = `${path}: /VisualizationInfo/${camera.name}`
  if (length(dx, dy, dz) === 0) archive.problem(`${at}: CameraDirection is a zero vector`)
  if (length(ux, uy, uz) === 0) archive.problem(`${at}: CameraUpVector is a zero vector`)
  const cross = length(dy * uz - dz * uy, dz * ux - dx * uz, dx * uy - dy * ux)
  if (
    cross <= 1e-9 * length(dx, dy, dz) * length(ux, uy, uz) &&
    length(dx, dy, dz) * length(ux, uy, uz) > 0
  ) {
    archive.problem(`${at}: CameraDirection and CameraUpVector are parallel`)
  }
}

/** README "Component": IfcGuid is optional only if AuthoringToolId is given, and the other way round. */
export function checkComponents(archive: BcfArchive, path: string, info: XmlElement) {
  const all: XmlElement[] = []
  const walk = (node: XmlElement) => {
    for (const next of node.children) {
      if (next.name === 'Component') all.push(next)
      else walk(next)
    }
  }
  walk(info)
  for (const component of all) {
    if (!component.attributes.has('IfcGuid') && child(component, 'AuthoringToolId') === undefined) {
      archive.problem(`${path}: a Component has neither IfcGuid nor AuthoringToolId`)
    }
  }
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** Width and height of a PNG (IHDR) or baseline/progressive JPEG (first SOFn segment). */
function imageSize(bytes: Uint8Array): { format: 'png' | 'jpeg'; width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (bytes.length >= 24 && PNG.every((byte, i) => bytes[i] === byte)) {
    return { format: 'png', width: view.getUint32(16), height: view.getUint32(20) }
  }
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined
  let offset = 2
  while (offset + 9 < bytes.length && bytes[offset] === 0xff) {
    const marker = bytes[offset + 1] ?? 0
    const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)
    if (isFrame)
      return { format: 'jpeg', height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) }
    offset += 2 + view.getUint16(offset + 2)
  }
  return { format: 'jpeg', width: 0, height: 0 }
}

export class BcfArchive {
  /** File entries by normalised path; directory entries are kept apart. */
  readonly files = new Map<string, Uint8Array>()
  readonly directories = new Set<string>()
  readonly accounted = new Set<string>()
  readonly problems: string[] = []
  readonly guids = new Map<string, string>()

  constructor(entries: Map<string, Uint8Array>, requireDirectoryEntries: boolean) {
    for (const [rawPath, bytes] of entries) {
      let path = rawPath
      if (path.includes('\\')) {
        this.problems.push(`${rawPath}: zip entry uses '\\' as path separator; BCF archives use '/'`)
        path = path.replaceAll('\\', '/')
      }
      if (path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '.')) {
        this.problems.push(`${rawPath}: zip entry path must be relative, without '.' or '..' segments`)
      }
      if (path.endsWith('/')) this.directories.add(path.slice(0, -1))
      else this.files.set(path, bytes)
    }
    if (requireDirectoryEntries) this.checkDirectoryEntries()
  }

  // The README's ".BCFZIP encoding guide": create directory entries for folders in the central directory.
  private checkDirectoryEntries() {
    const folders = new Set<string>()
    for (const path of this.files.keys()) {
      const parts = path.split('/')
      for (let i = 1; i < parts.length; i += 1) folders.add(parts.slice(0, i).join('/'))
    }
    for (const folder of folders) {
      if (!this.directories.has(folder))
        this.problems.push(`${folder}/: no directory entry in the zip (encoding guide)`)
    }
  }

  problem(message: string) {
    this.problems.push(message)
  }

  /** Reads and schema-checks `path` as `rule`'s root element; a missing file is a problem if `required`. */
  read(path: string, rule: ElementRule, required: boolean): XmlElement | undefined {
    const bytes = this.files.get(path)
    if (!bytes) {
      if (required) this.problem(`${path}: required file is missing`)
      return undefined
    }
    this.accounted.add(path)
    const root = parseXml(path, bytes, this.problems)
    if (!root) return undefined
    if (root.name !== rule.name) {
      this.problem(`${path}: root element is ${root.name}, expected ${rule.name}`)
      return undefined
    }
    validateElement(root, rule, `${path}: /${root.name}`, this.problems)
    return root
  }

  /**
   * Resolves `reference` (relative to `folder`, '/' or '\' separated, may climb with '..') to an archive
   * path, marks it accounted for and reports it when absent. `what` names the referring element.
   */
  resolve(folder: string, reference: string, what: string): string | undefined {
    const parts = folder ? folder.split('/') : []
    for (const part of reference.replaceAll('\\', '/').split('/')) {
      if (part === '..') {
        if (parts.pop() === undefined)
          return this.unresolved(`${what}: '${reference}' climbs out of the archive`)
      } else if (part !== '.' && part !== '') parts.push(part)
    }
    const path = parts.join('/')
    if (!this.files.has(path))
      return this.unresolved(`${what}: references '${reference}', which is not in the archive`)
    this.accounted.add(path)
    return path
  }

  /** A file named by its bare name inside the topic folder (Viewpoint, Snapshot, Bitmap Reference). */
  topicFile(folder: string, name: string | undefined, what: string): string | undefined {
    if (name === undefined) return undefined
    if (/[/\\]/.test(name))
      return this.unresolved(`${what}: '${name}' must be a file name in the topic folder`)
    return this.resolve(folder, name, what)
  }

  private unresolved(message: string): undefined {
    this.problem(message)
    return undefined
  }

  /** A GUID that identifies something (topic, comment, viewpoint, document...) must be unique. */
  registerGuid(guid: string | undefined, where: string) {
    if (guid === undefined) return
    const key = guid.toLowerCase()
    const first = this.guids.get(key)
    if (first) this.problem(`${where}: Guid ${guid} is already used by ${first}`)
    else this.guids.set(key, where)
  }

  /** Snapshots (and bitmaps): PNG or JPEG matching the file extension; README: longest side <= 1500 px. */
  checkImage(path: string, what: string, limit: number | undefined) {
    const size = imageSize(this.files.get(path) ?? new Uint8Array())
    const extension = path.toLowerCase().split('.').pop() ?? ''
    const expected = extension === 'png' ? 'png' : ['jpg', 'jpeg'].includes(extension) ? 'jpeg' : undefined
    if (!expected) this.problem(`${path}: ${what} must be a .png, .jpg or .jpeg file`)
    if (!size) return this.problem(`${path}: ${what} is neither PNG nor JPEG`)
    if (expected && size.format !== expected) this.problem(`${path}: ${what} holds ${size.format} data`)
    if (limit !== undefined && Math.max(size.width, size.height) > limit) {
      this.problem(
        `${path}: ${what} is ${size.width}x${size.height}; the longest side should not exceed ${limit} px`,
      )
    }
  }

  /** First path segments that are folders, other than those in `skip` (the Documents folder). */
  rootFolders(skip: readonly string[]): string[] {
    const folders = new Set<string>()
    for (const path of [...this.files.keys(), ...this.directories]) {
      const [first, ...rest] = path.split('/')
      if (first !== undefined && (rest.length > 0 || this.directories.has(path)) && !skip.includes(first)) {
        folders.add(first)
      }
    }
    return [...folders].sort()
  }

  /** Every file no BCF file accounts for: a reader would not expect it. */
  reportStrays() {
    for (const path of this.files.keys()) {
      if (!this.accounted.has(path)) this.problem(`${path}: unexpected file (not part of the BCF layout)`)
    }
  }
}
