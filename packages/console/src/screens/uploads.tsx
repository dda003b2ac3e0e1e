// The upload tray, shown on every screen while uploads run or recently finished: bytes first, then
// the conversion's own progress, then ready, or failed with the reason (no bar: a full bar would
// read as success). Each entry names the folder it goes to, as a link there.
import { useState } from 'preact/hooks'
import { folderUrl, linkClick } from '../router.ts'
import { type Upload, uploads, useUploads } from '../uploads.ts'
import { formatBytes } from '../util.ts'

function label(u: Upload): string {
  if (u.phase === 'uploading') return `Uploading ${formatBytes(u.loaded)} of ${formatBytes(u.total)}`
  if (u.phase === 'converting' && u.queued) return 'Queued for conversion'
  if (u.phase === 'converting') return `Converting ${Math.round(u.progress)}%`
  if (u.phase === 'ready') return 'Ready'
  return `Failed: ${u.error ?? 'unknown reason'}`
}

function percent(u: Upload): number {
  if (u.phase === 'uploading') return u.total > 0 ? (u.loaded / u.total) * 100 : 0
  if (u.phase === 'converting') return u.progress
  return 100
}

function folderName(path: string): string {
  return path === '/' ? 'My files' : (path.split('/').pop() ?? path)
}

function summary(list: readonly Upload[]): string {
  const count = (phase: Upload['phase']) => list.filter((u) => u.phase === phase).length
  const parts = [
    [count('uploading'), 'uploading'],
    [count('converting'), 'converting'],
    [count('ready'), 'ready'],
    [count('error'), 'failed'],
  ] as const
  return parts
    .filter(([n]) => n > 0)
    .map(([n, word]) => `${n} ${word}`)
    .join(', ')
}

function UploadItem(props: { upload: Upload }) {
  const u = props.upload
  const failed = u.phase === 'error'
  return (
    <li data-phase={u.phase}>
      <span class="name" title={u.name}>
        {u.name}
      </span>
      <span class="to">
        to{' '}
        <a href={folderUrl(u.parent)} title={u.parent} onClick={(e) => linkClick(e, folderUrl(u.parent))}>
          {folderName(u.parent)}
        </a>
      </span>
      {!failed && (
        <progress
          max={100}
          value={percent(u)}
          aria-label={`${u.name}: ${label(u)}`}
          class={u.phase === 'uploading' ? 'bytes' : 'conversion'}
        />
      )}
      <span class={`status ${failed ? 'error' : ''}`}>{label(u)}</span>
      {u.phase === 'uploading' && (
        <button
          type="button"
          class="ghost small"
          aria-label={`Cancel ${u.name}`}
          onClick={() => uploads.cancel(u.key)}
        >
          Cancel
        </button>
      )}
    </li>
  )
}

export function UploadTray() {
  const list = useUploads()
  const [open, setOpen] = useState(true)
  if (list.length === 0) return null
  const finished = list.some((u) => u.phase === 'ready' || u.phase === 'error')
  return (
    <section class="uploads" aria-label="Uploads">
      <div class="uploads-head">
        <h2>Uploads</h2>
        <span class="hint" role="status">
          {summary(list)}
        </span>
        <button type="button" class="ghost small" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide' : 'Show'}
        </button>
        {finished && (
          <button type="button" class="ghost small" onClick={() => uploads.clearFinished()}>
            Clear finished
          </button>
        )}
      </div>
      {open && (
        <ul>
          {list.map((u) => (
            <UploadItem key={u.key} upload={u} />
          ))}
        </ul>
      )}
    </section>
  )
}
