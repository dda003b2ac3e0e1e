// The saved view the viewer follows: the one opened with the file (`activeOnStart`: applied once the
// model has loaded; the latest changed one when several have it) or the one last restored from the
// list. When that view has `autosaveCameraPosition` and I may change it, the camera is written back
// to it 2 s after it stops moving (one write at a time, none when the camera is where the view has
// it, none while another account holds its lock).
import type { RefObject } from 'preact'
import { useEffect, useRef } from 'preact/hooks'
import { type Configuration, client } from '../api/index.ts'
import type { ViewerEngine } from '../viewer/engine.ts'
import { readView, SLICES, type ViewSettings } from '../viewer/state/index.ts'
import { type FileAccess, viewWritable } from './access.ts'

/** How long the camera must rest before it is saved to the view. */
const AUTOSAVE_DELAY_MS = 2000

const changedAt = (v: Configuration) => v.lastModificationDate ?? v.date

/** The view to open the file with: the latest changed of those with activeOnStart; null if none. */
function startView(views: Configuration[]): Configuration | null {
  const marked = views.filter((v) => v.activeOnStart)
  return marked.reduce<Configuration | null>((a, b) => (a && changedAt(a) >= changedAt(b) ? a : b), null)
}

/** Numbers to 6 decimals: a pose read back from three.js differs from the stored one in the last bits. */
const rounded = (value: unknown) =>
  JSON.stringify(value, (_k, x: unknown) => (typeof x === 'number' ? Math.round(x * 1e6) / 1e6 : x))

export function useFollowedView(options: {
  fileId: string
  engine: RefObject<ViewerEngine | null>
  ready: boolean
  views: Configuration[]
  access: FileAccess
  current: () => ViewSettings
  restore: (state: ViewSettings) => void
  reload: () => void
}): { restored: (state: ViewSettings, view: Configuration) => void } {
  const followed = useRef<string | null>(null)
  const latest = useRef(options)
  latest.current = options
  const started = useRef(false)

  // Once per opening, after the model loads: the view marked "Open with this view".
  useEffect(() => {
    if (!options.ready || started.current) return
    started.current = true
    client.scene.configurations(options.fileId).then(
      (views) => {
        const view = startView(views)
        if (!view || followed.current !== null) return
        followed.current = view._id
        latest.current.restore(readView(view))
      },
      () => {},
    )
  }, [options.ready])

  useEffect(() => {
    const engine = options.engine.current
    if (!options.ready || !engine) return
    let timer: ReturnType<typeof setTimeout> | undefined
    let writing = false
    const save = () => {
      const { views, access, current, reload } = latest.current
      const view = views.find((v) => v._id === followed.current)
      if (!view?.autosaveCameraPosition || !viewWritable(view, access) || writing) return
      if (view.lockedBy !== null && view.lockedBy.toLowerCase() !== access.me) return
      const fields = SLICES.camera.write(current().camera)
      const stored = Object.fromEntries(Object.keys(fields).map((k) => [k, view[k as keyof Configuration]]))
      if (rounded(fields) === rounded(stored)) return
      writing = true
      client.scene
        .saveConfiguration({ _id: view._id, __v: view.__v, ...fields })
        // A refusal (a stale revision, a new lock) is not retried: the reloaded list has the view as it is.
        .catch(() => {})
        .finally(() => {
          writing = false
          reload()
        })
    }
    const moved = () => {
      clearTimeout(timer)
      timer = setTimeout(save, AUTOSAVE_DELAY_MS)
    }
    engine.controls.addEventListener('change', moved)
    return () => {
      clearTimeout(timer)
      engine.controls.removeEventListener('change', moved)
    }
  }, [options.ready])

  const restored = (state: ViewSettings, view: Configuration) => {
    followed.current = view._id
    latest.current.restore(state)
  }
  return { restored }
}
