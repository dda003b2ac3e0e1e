// The file list: virtualized (only the rows in view exist in the DOM), so 1,000 files render as
// fast as 20. Rows are buttons: keyboard focus and Enter select a file.
import { useEffect, useRef, useState } from 'preact/hooks'
import type { FileRecord, Folder } from '../api/index.ts'
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

export function FileList(props: {
  files: FileRecord[] | null
  folders: Folder[]
  selected: string | null
  onSelect: (id: string) => void
  onFolder: (path: string) => void
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
      <div style={{ height: `${rows.length * ROW}px`, position: 'relative' }}>
        {rows.slice(first, last).map((row, i) => {
          const y = (first + i) * ROW
          if (row.kind === 'folder') {
            return (
              <button
                key={`d:${row.folder.path}`}
                type="button"
                class="row folder"
                style={{ transform: `translateY(${y}px)` }}
                onClick={() => props.onFolder(row.folder.path)}
              >
                <span class="icon" aria-hidden="true">
                  ▸
                </span>
                <span class="name">{row.folder.name}</span>
                <span class="meta">
                  {row.folder.fileCount === undefined ? 'folder' : fileCount(row.folder.fileCount)}
                </span>
              </button>
            )
          }
          const f = row.file
          return (
            <button
              key={f._id}
              type="button"
              class={`row ${props.selected === f._id ? 'selected' : ''}`}
              aria-pressed={props.selected === f._id}
              data-file={f.name}
              style={{ transform: `translateY(${y}px)` }}
              onClick={() => props.onSelect(f._id)}
            >
              <span class={`state ${f.state}`} data-state={f.state}>
                {STATE_LABEL[f.state]}
                {f.state === 'converting' && f.progress ? ` ${Math.round(f.progress)}%` : ''}
              </span>
              <span class="name" title={f.name}>
                {f.name}
              </span>
              <span class="meta">
                {props.shared && (
                  <span class="shared-by" data-testid="shared-by">
                    {f.owner} · {f.role === 'editor' ? 'editor' : 'viewer'} ·{' '}
                  </span>
                )}
                {formatBytes(f.size)} · {formatDate(f.revisionDate)}
              </span>
            </button>
          )
        })}
      </div>
    </section>
  )
}

/** "1 file", "12 files". */
function fileCount(count: number): string {
  return `${count} ${count === 1 ? 'file' : 'files'}`
}
