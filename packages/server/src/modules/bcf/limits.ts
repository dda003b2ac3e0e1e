// The bounds of a BCF import (docs/api.md, "BCF"). A .bcfzip is read whole in memory: its body, its
// entries as their headers declare them (fflate inflates an entry into a buffer of its declared
// size, so a lying header cannot grow it), the XML parsed into objects. Each bound is far above what
// BCF tools write: BIMcollab and Solibri exports of a few hundred issues are a few MiB.

/** The request body: the .bcfzip itself. */
export const BCF_MAX_BYTES = 32 * 1024 * 1024
/** Entries in the zip. */
export const BCF_MAX_ENTRIES = 25_000
/** Bytes of every entry, uncompressed, together. */
export const BCF_MAX_UNZIPPED_BYTES = 128 * 1024 * 1024
/** One XML file (markup, viewpoint, version, project, extensions), uncompressed. */
export const BCF_MAX_XML_BYTES = 4 * 1024 * 1024
/** The XML files together, uncompressed: what parsing costs (read in a worker, reading.ts). */
export const BCF_MAX_XML_TOTAL_BYTES = 64 * 1024 * 1024
/** One snapshot, uncompressed; and the pixels it may declare. */
export const BCF_MAX_IMAGE_BYTES = 8 * 1024 * 1024
export const BCF_MAX_IMAGE_PIXELS = 4096 * 4096
/** Nesting of XML elements (BCF's deepest is 6). */
export const BCF_MAX_XML_DEPTH = 32
/**
 * Topics in one import (one transaction: on SQLite it holds other writers while it runs, ~2 ms a
 * topic, docs/benchmarks.md); viewpoints of one topic.
 */
export const BCF_MAX_TOPICS = 5000
export const BCF_MAX_VIEWPOINTS = 50
/** Components one viewpoint names (selection plus exceptions): the saved views' node bound. */
export const BCF_MAX_COMPONENTS = 100_000
/** Clipping planes read of one viewpoint (a Tessera view keeps six and a box). */
export const BCF_MAX_PLANES = 64
/** Notes in an import's answer (what was skipped and why). */
export const BCF_MAX_NOTES = 100
