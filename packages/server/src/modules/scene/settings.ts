// The settings modules/scene/ owns: the scene attribute limits (limits.ts, quota.ts) and the size of
// an attribute_updated event. Declared here, assembled and parsed once at start-up with every other
// owner's by app/config.ts (platform/settings.ts describes the shape).
import { integer, type Setting, size, sizeOrZero } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    /** Attributes one node may hold. */
    sceneNodeMaxAttributes: number
    /** Bytes (UTF-8 name + JSON value) of one node's attributes. */
    sceneNodeMaxBytes: number
    /** Attributes one file may hold. */
    sceneFileMaxAttributes: number
    /** Bytes of all of one file's attributes. */
    sceneFileMaxBytes: number
    /** Nodes one attribute write may name. */
    sceneWriteMaxNodes: number
    /** Bytes of the nodes one write names, once written (what the write stores and answers). */
    sceneWriteMaxBytes: number
    /** Nodes per page of `GET /scene/attributes` (its default and maximum `limit`). */
    scenePageMaxNodes: number
    /** A page ends at the first node boundary past this many bytes (it always holds one node). */
    scenePageMaxBytes: number
    /** Bytes of scene attributes over all files one account owns; 0 = no quota. */
    accountMaxAttributeBytes: number
    /** Bytes of one event's `data` JSON; past it an attribute_updated event carries names, not values. */
    eventMaxDataBytes: number
    /** Files one page of a search across files looks into, at most. */
    searchPageMaxFiles: number
    /** A page of a search across files ends at the first file past this many milliseconds of work. */
    searchPageMaxMs: number
    /** Searches across files one account may make per minute, per process. */
    searchFilesRate: number
  }
}

export const sceneSettings = [
  {
    name: 'TESSERA_SCENE_NODE_MAX_ATTRIBUTES',
    key: 'sceneNodeMaxAttributes',
    default: '100',
    help: 'attributes per scene node (more: 413 SCENE_NODE_TOO_LARGE)',
    parse: integer(1, 100_000),
  },
  {
    name: 'TESSERA_SCENE_NODE_MAX_BYTES',
    key: 'sceneNodeMaxBytes',
    default: '64KiB',
    help: 'bytes of one scene node’s attributes, names and JSON values (more: 413 SCENE_NODE_TOO_LARGE)',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_SCENE_FILE_MAX_ATTRIBUTES',
    key: 'sceneFileMaxAttributes',
    default: '100000',
    help: 'scene attributes per file (more: 413 SCENE_FILE_TOO_LARGE)',
    parse: integer(1),
  },
  {
    name: 'TESSERA_SCENE_FILE_MAX_BYTES',
    key: 'sceneFileMaxBytes',
    default: '64MiB',
    help: 'bytes of one file’s scene attributes (more: 413 SCENE_FILE_TOO_LARGE)',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_SCENE_WRITE_MAX_NODES',
    key: 'sceneWriteMaxNodes',
    default: '10000',
    help: 'nodes one attribute write may name (more: 413 SCENE_WRITE_TOO_LARGE)',
    parse: integer(1, 10_000),
  },
  {
    name: 'TESSERA_SCENE_WRITE_MAX_BYTES',
    key: 'sceneWriteMaxBytes',
    default: '4MiB',
    help: 'bytes of the nodes one attribute write names, once written (more: 413 SCENE_WRITE_TOO_LARGE)',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_SCENE_PAGE_MAX_NODES',
    key: 'scenePageMaxNodes',
    default: '1000',
    help: 'nodes per page of GET /scene/attributes (default and maximum limit)',
    parse: integer(1, 100_000),
  },
  {
    name: 'TESSERA_SCENE_PAGE_MAX_BYTES',
    key: 'scenePageMaxBytes',
    default: '2MiB',
    help: 'a page of GET /scene/attributes ends at the first node past this many bytes',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_ACCOUNT_MAX_ATTRIBUTE_BYTES',
    key: 'accountMaxAttributeBytes',
    default: '0',
    help: 'bytes of scene attributes over all files of one account; 0 = none (more: 413 QUOTA_EXCEEDED)',
    parse: sizeOrZero,
  },
  {
    name: 'TESSERA_EVENT_MAX_DATA_BYTES',
    key: 'eventMaxDataBytes',
    default: '64KiB',
    help: 'bytes of one event’s data; a larger attribute_updated event carries node IDs and names only (truncated)',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_SEARCH_PAGE_MAX_FILES',
    key: 'searchPageMaxFiles',
    default: '500',
    help: 'files one page of POST /scene/search/files looks into, at most',
    parse: integer(1, 100_000),
  },
  {
    name: 'TESSERA_SEARCH_PAGE_MAX_MS',
    key: 'searchPageMaxMs',
    default: '1000',
    help: 'a page of POST /scene/search/files ends at the first file past this many milliseconds',
    parse: integer(1, 60_000),
  },
  {
    name: 'TESSERA_SEARCH_FILES_RATE',
    key: 'searchFilesRate',
    default: '120',
    help: 'POST /scene/search/files calls per account per minute, per process, before 429',
    parse: integer(1, 1_000_000),
  },
] satisfies Setting[]
