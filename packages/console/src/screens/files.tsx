// Files: folders with breadcrumbs, "shared with me", drag-and-drop upload with byte and conversion
// progress, live states (polling until the event stream is wired), and a details panel per file.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { client, type FileRecord, type Folder, isMissingRoute, isSessionLost } from '../api/index.ts'
import { linkClick, navigate } from '../router.ts'
import { describeError } from '../util.ts'
import { FileDetails } from './file-details.tsx'
import { FileList } from './file-list.tsx'
import { useLiveFileEvents } from './live.ts'
import { type Upload, UploadQueue } from './uploads.tsx'

const BUSY_POLL_MS = 1500
const IDLE_POLL_MS = 10_000

function crumbs(folder: string): { name: string; path: string }[] {
  const parts = folder.split('/').filter(Boolean)
  return [{ name: 'My files', path: '/' }].concat(
    parts.map((name, i) => ({ name, path: `/${parts.slice(0, i + 1).join('/')}` })),
  )
}

function folderUrl(path: string): string {
  return path === '/' ? '/files' : `/files?path=${encodeURIComponent(path)}`
}

/** The folder's listing (or the files shared with this account), and how reading it went. */
function useListing(folder: string, shared: boolean | undefined) {
  const [files, setFiles] = useState<FileRecord[] | null>(null)
  const [folders, setFolders] = useState<Folder[]>([])
  const [error, setError] = useState('')
  const [unavailable, setUnavailable] = useState(false)
  const load = useCallback(async () => {
    try {
      if (shared) {
        setFiles(await client.files.listShared())
      } else {
        const listing = await client.files.listFiles(folder)
        performance.mark('files:data')
        setFiles(listing.files)
        setFolders(listing.folders)
      }
      setError('')
    } catch (e) {
      if (shared && isMissingRoute(e)) setUnavailable(true)
      else if (!isSessionLost(e)) setError(describeError(e))
    }
  }, [folder, shared])
  useEffect(() => {
    if (files && !shared) performance.measure('files:render', 'files:data')
  }, [files, shared])
  return { files, setFiles, folders, error, unavailable, load }
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

/** Uploads in flight: bytes while they upload, then their file's conversion as the listing shows it. */
function useUploads(files: FileRecord[] | null, load: () => Promise<void>) {
  const [uploads, setUploads] = useState<Upload[]>([])
  useEffect(() => {
    if (!files) return
    setUploads((list) =>
      list.map((u) => {
        const file = u.fileId ? files.find((f) => f._id === u.fileId) : undefined
        if (!file || u.phase === 'uploading') return u
        const phase = file.state === 'ready' ? 'ready' : file.state === 'error' ? 'error' : 'converting'
        const queued = file.state === 'queued'
        return { ...u, phase, queued, progress: file.progress ?? 0, error: file.error ?? u.error }
      }),
    )
  }, [files])

  function startUploads(list: FileList | File[], parent: string): void {
    for (const file of Array.from(list)) {
      const key = `${file.name}-${performance.now()}`
      const patch = (p: Partial<Upload>) =>
        setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...p } : u)))
      setUploads((all) => [
        ...all,
        { key, name: file.name, loaded: 0, total: file.size, phase: 'uploading', progress: 0 },
      ])
      client.files
        .upload(file, parent, (p) => patch({ loaded: p.loaded, total: p.total }))
        .then((record) => {
          patch({ fileId: record._id, phase: 'converting', loaded: file.size })
          void load()
        })
        .catch((e: unknown) => patch({ phase: 'error', error: describeError(e) }))
    }
  }
  const clearDone = () => setUploads((l) => l.filter((u) => u.phase !== 'ready'))
  return { uploads, startUploads, clearDone }
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

function newFolder(folder: string): void {
  const name = window.prompt('Folder name')?.trim()
  if (name && !name.includes('/')) navigate(folderUrl(`${folder === '/' ? '' : folder}/${name}`))
}

function FolderActions(props: { folder: string; onFiles: (files: FileList) => void }) {
  const input = useRef<HTMLInputElement>(null)
  return (
    <div class="actions">
      <button type="button" class="ghost" onClick={() => newFolder(props.folder)}>
        New folder
      </button>
      <button type="button" onClick={() => input.current?.click()}>
        Upload files
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        data-testid="upload-input"
        onChange={(e) => {
          if (e.currentTarget.files) props.onFiles(e.currentTarget.files)
          e.currentTarget.value = ''
        }}
      />
    </div>
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

export function FilesScreen(props: { folder?: string; shared?: boolean }) {
  const folder = props.folder ?? '/'
  const listing = useListing(folder, props.shared)
  const { files, load, unavailable } = listing
  const [selected, setSelected] = useState<string | null>(null)
  const { uploads, startUploads, clearDone } = useUploads(files, load)
  const busy =
    uploads.some((u) => u.phase === 'uploading' || u.phase === 'converting') ||
    (files ?? []).some((f) => f.state === 'queued' || f.state === 'converting')
  useLiveListing(load, unavailable, busy)
  const { setFiles } = listing
  useEffect(() => {
    setFiles(null)
    setSelected(null)
    void load()
  }, [load])
  const drop = useDropZone(!props.shared, (list) => startUploads(list, folder))

  const current = files?.find((f) => f._id === selected) ?? null
  const title = props.shared ? 'Shared with me' : 'My files'
  return (
    <section class={`files ${drop.dragging ? 'dragging' : ''}`} aria-label={title} {...drop.handlers}>
      <div class="toolbar">
        {props.shared ? <h1>{title}</h1> : <Crumbs folder={folder} />}
        {!props.shared && <FolderActions folder={folder} onFiles={(list) => startUploads(list, folder)} />}
      </div>
      {!props.shared && (
        <p class="hint drop-hint">Drop files anywhere here to upload them into this folder.</p>
      )}
      <UploadQueue uploads={uploads} onClear={clearDone} />
      {listing.error && (
        <p class="error" role="alert">
          {listing.error}
        </p>
      )}
      {unavailable ? (
        <p class="empty" data-state="unavailable">
          Files shared with you are not available on this server yet.
        </p>
      ) : (
        <div class="split">
          <FileList
            files={files}
            folders={props.shared ? [] : listing.folders}
            shared={props.shared}
            selected={selected}
            onSelect={setSelected}
            onFolder={(path) => navigate(folderUrl(path))}
          />
          {current && (
            <FileDetails
              file={current}
              onClose={() => setSelected(null)}
              onChanged={() => void load()}
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
