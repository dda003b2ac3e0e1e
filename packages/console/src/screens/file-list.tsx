// The file list: virtualized (only the rows in view exist in the DOM), so 1,000 files render as
// fast as 20. A list of rows, one Tab stop each: a file's button (or a folder's link) is named by
// the name alone, its status and size are separate cells it points to with aria-describedby, so a
// screen reader says "Pterosaur.stl, button, Ready, 9.6 MB" rather than the texts run together.
import { useEffect, useRef, useState } from 'preact/hooks'
import { client, type FileRecord, type Folder } from '../api/index.ts'
import { folderUrl, linkClick } from '../router.ts'
import { formatBytes, formatDate } from '../util.ts'

const ROW = 44
const OVERSCAN = 8

const STATE_LABEL: Record<FileRecord['state'], string> = {
  queued: 'Queued',
  converting: 'Converting',
  ready: 'Ready',
  error: 'Failed',
}

type Row = { kind: 'folder'; folder: Folder } | { kind: 'file'; file: FileRecord }

/** Whether I starred the file: my e-mail is in its `favoritedBy` (the server's list of stars). */
function starredByMe(file: FileRecord): boolean {
  const me = (client.session.identity?.email ?? '').toLowerCase()
  return file.favoritedBy.some((email) => email.toLowerCase() === me)
}

/**
 * A star toggle: one name ("Favourite <file>"), its state in aria-pressed, so it reads "pressed".
 * In a row it is no Tab stop of its own (one per file, as the list has always had): → from the
 * row's name reaches it, ← goes back; `inRow` gives it tabIndex -1 and the ← key.
 */
export function StarButton(props: {
  file: FileRecord
  onStar: (on: boolean) => void
  label?: string
  inRow?: boolean
}) {
  const on = starredByMe(props.file)
  return (
    <button
      type="button"
      tabIndex={props.inRow ? -1 : undefined}
      onKeyDown={(e) => {
        if (!props.inRow || e.key !== 'ArrowLeft') return
        e.preventDefault()
        e.currentTarget.closest('li')?.querySelector<HTMLElement>('.name')?.focus()
      }}
      class={`star ghost small ${on ? 'on' : ''}`}
      aria-pressed={on}
      aria-label={`Favourite ${props.file.name}`}
      title={on ? 'Remove from favourites' : 'Add to favourites'}
      data-testid="star"
      onClick={() => props.onStar(!on)}
    >
      <span aria-hidden="true">{on ? '★' : '☆'}</span>
      {props.label && <span> {props.label}</span>}
    </button>
  )
}

interface RowProps {
  y: number
  position: number
  count: number
}

function FolderRow(props: RowProps & { folder: Folder }) {
  const { folder } = props
  const meta = `d-${props.position}-meta`
  return (
    <li
      class="row folder"
      data-folder={folder.path}
      aria-setsize={props.count}
      aria-posinset={props.position}
      style={{ transform: `translateY(${props.y}px)` }}
    >
      <span class="icon" aria-hidden="true">
        ▸
      </span>
      <a
        class="name"
        href={folderUrl(folder.path)}
        aria-describedby={meta}
        onClick={(e) => linkClick(e, folderUrl(folder.path))}
      >
        {folder.name}
      </a>
      <span class="meta" id={meta}>
        {folder.fileCount === undefined ? 'folder' : fileCount(folder.fileCount)}
      </span>
    </li>
  )
}

function FileRow(
  props: RowProps & {
    file: FileRecord
    selected: boolean
    shared: boolean
    onSelect: () => void
    onStar: (on: boolean) => void
  },
) {
  const f = props.file
  const ids = { state: `f-${f._id}-state`, meta: `f-${f._id}-meta` }
  return (
    <li
      class={`row ${props.selected ? 'selected' : ''}`}
      data-file={f.name}
      aria-setsize={props.count}
      aria-posinset={props.position}
      style={{ transform: `translateY(${props.y}px)` }}
    >
      <span class={`state ${f.state}`} data-state={f.state} id={ids.state}>
        {STATE_LABEL[f.state]}
        {f.state === 'converting' && f.progress ? ` ${Math.round(f.progress)}%` : ''}
      </span>
      <button
        type="button"
        class="name"
        title={f.name}
        aria-pressed={props.selected}
        aria-describedby={`${ids.state} ${ids.meta}`}
        aria-keyshortcuts="ArrowRight"
        onKeyDown={(e) => {
          if (e.key !== 'ArrowRight') return
          e.preventDefault()
          e.currentTarget.closest('li')?.querySelector<HTMLElement>('.star')?.focus()
        }}
        onClick={props.onSelect}
      >
        {f.name}
      </button>
      <span class="meta" id={ids.meta}>
        {props.shared && f.role !== 'owner' && (
          <span class="shared-by" data-testid="shared-by">
            {f.owner} · {f.role === 'editor' ? 'editor' : 'viewer'} ·{' '}
          </span>
        )}
        {formatBytes(f.size)} · {formatDate(f.revisionDate)}
      </span>
      <StarButton file={f} onStar={props.onStar} inRow />
    </li>
  )
}

export function FileList(props: {
  files: FileRecord[] | null
  folders: Folder[]
  selected: string | null
  onSelect: (id: string) => void
  /** "Shared with me", "Favourites": each row of another's file names the owner and my role. */
  shared?: boolean
  /** What an empty listing says (default: the folder's words). */
  empty?: string | undefined
  onStar: (file: FileRecord, on: boolean) => void
}) {
  const box = useRef<HTMLElement>(null)
  const [top, setTop] = useState(0)
  const [height, setHeight] = useState(600)

  useEffect(() => {
    const el = box.current
    if (!el) return
    const observer = new ResizeObserver(() => setHeight(el.clientHeight || 600))
    observer.observe(el)
    return () => observer.disconnect()
  }, [props.files === null])

  if (props.files === null) return <section class="list loading">Loading…</section>
  const rows: Row[] = [
    ...props.folders.map((folder): Row => ({ kind: 'folder', folder })),
    ...props.files.map((file): Row => ({ kind: 'file', file })),
  ]
  if (rows.length === 0) return <div class="list empty">{props.empty ?? 'No files here yet.'}</div>
  const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN)
  const last = Math.min(rows.length, Math.ceil((top + height) / ROW) + OVERSCAN)
  return (
    <section
      class="list"
      ref={box}
      aria-label="Files"
      data-count={props.files.length}
      onScroll={(e) => setTop(e.currentTarget.scrollTop)}
    >
      <ul class="rows" style={{ height: `${rows.length * ROW}px` }}>
        {rows.slice(first, last).map((row, i) => {
          const at = { y: (first + i) * ROW, position: first + i + 1, count: rows.length }
          if (row.kind === 'folder')
            return <FolderRow key={`d:${row.folder.path}`} {...at} folder={row.folder} />
          const id = row.file._id
          return (
            <FileRow
              key={id}
              {...at}
              file={row.file}
              selected={props.selected === id}
              onSelect={() => props.onSelect(id)}
              onStar={(on) => props.onStar(row.file, on)}
              shared={props.shared === true}
            />
          )
        })}
      </ul>
    </section>
  )
}

/** "1 file", "12 files"; a folder kept only in this session has none yet. */
function fileCount(count: number): string {
  if (count === 0) return 'empty'
  return `${count} ${count === 1 ? 'file' : 'files'}`
}
