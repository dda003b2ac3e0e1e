// What the upload route asks before it keeps an upload: can this be converted? The answer comes
// from the conversion module (it knows the formats), handed to fileRoutes by the app, so files
// never imports conversion (conversion imports files).

/** Reads bytes [start, end] (inclusive) of the stored upload. */
export type StoredBytesReader = (start: number, end: number) => Promise<Uint8Array>

export interface UploadFormatPolicy {
  /** How many leading bytes checkHead wants (it gets fewer when the file is shorter). */
  readonly headBytes: number
  /** null when acceptable so far, else why not: the upload is refused before any byte is stored. */
  checkHead(name: string, head: Uint8Array): string | null
  /**
   * Once every byte is stored, before anything is committed: archives are judged by their
   * directory, which sits at their end. null when acceptable, else why not.
   */
  checkStored(name: string, size: number, read: StoredBytesReader): Promise<string | null>
  /** The detail's list: "Supported formats: …". */
  readonly supported: string
}
