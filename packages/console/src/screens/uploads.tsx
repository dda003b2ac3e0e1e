// The upload queue: bytes first, then the conversion's own progress, then ready or the reason.
import { formatBytes } from '../util.ts'

export interface Upload {
  key: string
  name: string
  loaded: number
  total: number
  phase: 'uploading' | 'converting' | 'ready' | 'error'
  /** While converting: the file waits for a worker (queued) or is being converted. */
  queued?: boolean
  progress: number
  fileId?: string
  error?: string | null
}

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

export function UploadQueue(props: { uploads: Upload[]; onClear: () => void }) {
  if (props.uploads.length === 0) return null
  return (
    <section class="uploads" aria-label="Uploads">
      <ul>
        {props.uploads.map((u) => (
          <li key={u.key} data-phase={u.phase}>
            <span class="name">{u.name}</span>
            <progress
              max={100}
              value={percent(u)}
              aria-label={`${u.name}: ${label(u)}`}
              class={u.phase === 'uploading' ? 'bytes' : 'conversion'}
            />
            <span class={`status ${u.phase === 'error' ? 'error' : ''}`}>{label(u)}</span>
          </li>
        ))}
      </ul>
      <button type="button" class="ghost small" onClick={props.onClear}>
        Clear finished
      </button>
    </section>
  )
}
