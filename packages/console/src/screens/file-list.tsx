// The file list: virtualized (only the rows in view exist in the DOM), so 1,000 files render as
// fast as 20. A list of rows, one Tab stop each: a file's button (or a folder's link) is named by
// the name alone, its status and size are separate cells it points to with aria-describedby, so a
// screen reader says "Pterosaur.stl, button, Ready, 9.6 MB" rather than the texts run together.
import { useEffect, useRef, useState } from 'preact/hooks'
import type { FileRecord, Folder } from '../api/index.ts'
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
  props: RowProps & { file: FileRecord; selected: boolean; shared: boolean; onSelect: () => void },
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
        onClick={props.onSelect}
      >
        {f.name}
      </button>
      <span class="meta" id={ids.meta}>
        {props.shared && (
          <span class="shared-by" data-testid="shared-by">
            {f.owner} · {f.role === 'editor' ? 'editor' : 'viewer'} ·{' '}
          </span>
        )}
        {formatBytes(f.size)} · {formatDate(f.revisionDate)}
      </span>
    </li>
  )
}

export function FileList(props: {
  files: FileRecord[] | null
  folders: Folder[]
  selected: string | null
  onSelect: (id: string) => void
  /** "Shared with me": each row names the owner and my role. */
  shared?: boolean
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
  if (rows.length === 0) return <div class="list empty">No files here yet.</div>
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
