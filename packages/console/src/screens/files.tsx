// Files: folders with breadcrumbs, "shared with me", "favourites" (starred files), drag-and-drop upload (the uploads themselves
// belong to the app: src/uploads.ts and its tray), live states, and a details panel per file.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { client, type FileRecord, type Folder, isMissingRoute, isSessionLost } from '../api/index.ts'
import { folderUrl, linkClick } from '../router.ts'
import { Notice } from '../ui/notice.tsx'
import { uploads, useUploads } from '../uploads.ts'
import { describeError, sortByName } from '../util.ts'
import { FileDetails } from './file-details.tsx'
import { FileList } from './file-list.tsx'
import { FolderActions } from './folder-actions.tsx'
import { emptyFoldersIn } from './folders.ts'
import { useLiveFileEvents } from './live.ts'

const BUSY_POLL_MS = 1500
const IDLE_POLL_MS = 10_000

function crumbs(folder: string): { name: string; path: string }[] {
  const parts = folder.split('/').filter(Boolean)
  return [{ name: 'My files', path: '/' }].concat(
    parts.map((name, i) => ({ name, path: `/${parts.slice(0, i + 1).join('/')}` })),
  )
}

/** The server's sub-folders and the empty ones created in this session, by name. */
function withEmptyFolders(listed: Folder[], folder: string): Folder[] {
  const known = new Set(listed.map((f) => f.path))
  return sortByName([...listed, ...emptyFoldersIn(folder).filter((f) => !known.has(f.path))])
}

/** Which listing the screen shows: a folder of my own files, files shared with me, or my stars. */
type Scope = 'own' | 'shared' | 'favourites'

const TITLES: Record<Scope, string> = { own: 'My files', shared: 'Shared with me', favourites: 'Favourites' }

const UNAVAILABLE: Record<Scope, string> = {
  own: '',
  shared: 'Files shared with you are not available on this server yet.',
  favourites: 'Favourites are not available on this server yet.',
}

async function listOthers(scope: 'shared' | 'favourites'): Promise<FileRecord[]> {
  return scope === 'shared' ? client.files.listShared() : client.files.listFavourites()
}

/** The folder's listing (or the files shared with this account, or its stars), and how reading it went. */
function useListing(folder: string, scope: Scope) {
  const shared = scope !== 'own'
  const [files, setFiles] = useState<FileRecord[] | null>(null)
  const [folders, setFolders] = useState<Folder[]>([])
  const [error, setError] = useState('')
  const [unavailable, setUnavailable] = useState(false)
  // The listing being shown: an answer for another folder (or for "Shared with me" after moving to
  // My files) that arrives late is dropped, never shown under the wrong title.
  const shownFor = useRef('')
  shownFor.current = `${scope}:${folder}`
  const load = useCallback(async () => {
    const asked = `${scope}:${folder}`
    try {
      if (scope !== 'own') {
        const listed = await listOthers(scope)
        if (shownFor.current === asked) setFiles(sortByName(listed))
      } else {
        const listing = await client.files.listFiles(folder)
        if (shownFor.current !== asked) return
        performance.mark('files:data')
        setFiles(sortByName(listing.files))
        setFolders(withEmptyFolders(listing.folders, folder))
      }
      setError('')
    } catch (e) {
      if (shownFor.current !== asked) return
      if (shared && isMissingRoute(e)) setUnavailable(true)
      else if (!isSessionLost(e)) setError(describeError(e))
    }
  }, [folder, scope])
  useEffect(() => {
    // Measured by scripts/budget.ts; only after this screen's own listing arrived (a mark from it).
    if (files && !shared && performance.getEntriesByName('files:data').length > 0)
      performance.measure('files:render', 'files:data')
  }, [files, shared])
  return { files, setFiles, folders, error, setError, unavailable, load }
}

// Live states: the event stream reloads the listing when a file of this account (or shared with
// it) is uploaded, converted or fails, from this tab or anywhere else. Conversion progress has no
// event, so while anything converts or uploads the listing is also polled; without the stream
// (refused, or lost) a slow poll stands in for it.
function useLiveListing(load: () => Promise<void>, unavailable: boolean, busy: boolean): void {
  const streaming = useLiveFileEvents(load, !unavailable)
  useEffect(() => {
    if (unavailable || (streaming && !busy)) return
    // No polling while the session is gone: the banner offers to take it back.
    const timer = setInterval(
      () => {
        if (!client.connection.lost) void load()
      },
      busy ? BUSY_POLL_MS : IDLE_POLL_MS,
    )
    return () => clearInterval(timer)
  }, [busy, load, unavailable, streaming])
}

function Crumbs(props: { folder: string }) {
  return (
    <nav class="crumbs" aria-label="Folder">
      {crumbs(props.folder).map((c, i, all) =>
        i === all.length - 1 ? (
          <h1 key={c.path} aria-current="location">
            {c.name}
          </h1>
        ) : (
          <span key={c.path}>
            <a href={folderUrl(c.path)} onClick={(e) => linkClick(e, folderUrl(c.path))}>
              {c.name}
            </a>
            <span aria-hidden="true"> / </span>
          </span>
        ),
      )}
    </nav>
  )
}

/** Drag-and-drop of files onto the whole screen (not on the shared listing, which has no folder). */
function useDropZone(enabled: boolean, onFiles: (files: FileList) => void) {
  const [dragging, setDragging] = useState(false)
  const handlers = {
    onDragOver: (e: DragEvent) => {
      if (!enabled) return
      e.preventDefault()
      setDragging(true)
    },
    onDragLeave: () => setDragging(false),
    onDrop: (e: DragEvent) => {
      if (!enabled) return
      e.preventDefault()
      setDragging(false)
      if (e.dataTransfer?.files.length) onFiles(e.dataTransfer.files)
    },
  }
  return { dragging, handlers }
}

/** Reloads the listing when an upload into this folder arrives or its conversion ends. */
function useUploadArrivals(folder: string, shared: boolean | undefined, load: () => Promise<void>): boolean {
  const list = useUploads()
  useEffect(
    () =>
      uploads.onArrival((upload) => {
        if (!shared && upload.parent === folder) void load()
      }),
    [folder, shared, load],
  )
  return list.some((u) => u.parent === folder && (u.phase === 'uploading' || u.phase === 'converting'))
}

/** Stars or unstars a file of the listing, then reads the listing again (a favourite may leave it). */
function useStarToggle(listing: ReturnType<typeof useListing>) {
  const { load, setError } = listing
  return useCallback(
    async (file: FileRecord, on: boolean) => {
      try {
        await client.files.setFavourite(file._id, on)
        await load()
      } catch (e) {
        if (!isSessionLost(e)) setError(describeError(e))
      }
    },
    [load, setError],
  )
}

export function FilesScreen(props: { folder?: string; shared?: boolean; favourites?: boolean }) {
  const folder = props.folder ?? '/'
  const scope: Scope = props.favourites ? 'favourites' : props.shared ? 'shared' : 'own'
  // Everything but my own folder: no folder to upload into, and rows name the owner.
  const others = scope !== 'own'
  const listing = useListing(folder, scope)
  const toggleStar = useStarToggle(listing)
  const { files, load, unavailable } = listing
  const [selected, setSelected] = useState<string | null>(null)
  const uploading = useUploadArrivals(folder, others, load)
  const busy = uploading || (files ?? []).some((f) => f.state === 'queued' || f.state === 'converting')
  useLiveListing(load, unavailable, busy)
  const { setFiles } = listing
  useEffect(() => {
    setFiles(null)
    setSelected(null)
    void load()
  }, [load])
  const startUploads = (list: FileList | File[], parent: string) => uploads.start(Array.from(list), parent)
  const drop = useDropZone(!others, (list) => startUploads(list, folder))

  const current = files?.find((f) => f._id === selected) ?? null
  const title = TITLES[scope]
  return (
    <section class={`files ${drop.dragging ? 'dragging' : ''}`} aria-label={title} {...drop.handlers}>
      <div class="toolbar">
        {others ? <h1>{title}</h1> : <Crumbs folder={folder} />}
        {!others && <FolderActions folder={folder} onFiles={(list) => startUploads(list, folder)} />}
      </div>
      {!others && <p class="hint drop-hint">Drop files anywhere here to upload them into this folder.</p>}
      <Notice kind="error" message={listing.error} />
      {unavailable ? (
        <p class="empty" data-state="unavailable">
          {UNAVAILABLE[scope]}
        </p>
      ) : (
        <div class="split">
          <FileList
            files={files}
            folders={others ? [] : listing.folders}
            shared={others}
            empty={
              scope === 'favourites' ? 'No favourites yet: star a file with ☆ to find it here.' : undefined
            }
            selected={selected}
            onSelect={setSelected}
            onStar={(file, on) => void toggleStar(file, on)}
          />
          {current && (
            <FileDetails
              file={current}
              onClose={() => setSelected(null)}
              onChanged={() => void load()}
              onStar={(on) => void toggleStar(current, on)}
              onDeleted={() => {
                setSelected(null)
                void load()
              }}
              onUpload={(file) => startUploads([file], current.parent)}
            />
          )}
        </div>
      )}
    </section>
  )
}
