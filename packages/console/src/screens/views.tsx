// Saved views (configurations): the viewer's state, read from and written to the record through
// the slices of viewer/state/ (the camera, hidden parts, the selection, each tool's settings).
// Saving needs the file's saveViews capability, changing or deleting a view also its
// writePermissions (access.ts); a deletion waits a few seconds for an Undo before it is sent
// (undo.tsx). Each row (view-row.tsx) renames, updates from the current view, sets "Open with this
// view" (activeOnStart: setting it on one view clears it on the others, here in the console — the
// server stores what it is given) and "Save camera automatically". Saving and updating also store a
// picture of the 3D view (view-thumbnail.ts). "Screenshot" downloads the 3D view as a PNG.
import { useEffect, useState } from 'preact/hooks'
import { ApiError, type Configuration, type ConfigurationFields, client } from '../api/index.ts'
import { Notice } from '../ui/notice.tsx'
import { type Act, useAction } from '../ui/use-action.ts'
import { describeError } from '../util.ts'
import { type ViewSettings, writeView } from '../viewer/state/index.ts'
import { type FileAccess, viewWritable } from './access.ts'
import { type Deletion, useDeferredDelete } from './undo.tsx'
import { ViewRow } from './view-row.tsx'
import { downloadScreenshot, storeThumbnail } from './view-thumbnail.ts'

/** Deleting a view: sent when its undo notice goes (undo.tsx). */
function deletion(v: Configuration): Deletion {
  return {
    id: v._id,
    text: `View "${v.name}" deleted`,
    send: () => client.scene.deleteConfiguration(v._id),
  }
}

/** A stale revision says what happened and what to do; the rest as everywhere (util.ts). */
function describeViewError(error: unknown): string {
  if (error instanceof ApiError && error.code === 'CONFLICT') {
    return 'This view was changed meanwhile (elsewhere or by someone else). The list now shows it as it is: check it and try again.'
  }
  return describeError(error)
}

function SaveViewForm(props: {
  file: string
  current: () => ViewSettings
  canvas: () => HTMLCanvasElement | null
  act: Act
  onNote: (note: string) => void
}) {
  const [name, setName] = useState('')
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault()
        const fields = { file: props.file, name: name.trim() || 'Untitled', ...writeView(props.current()) }
        void props
          .act(async () => {
            const saved = await client.scene.saveConfiguration(fields)
            props.onNote(await storeThumbnail(saved._id, props.canvas()))
          })
          .then((ok) => ok && setName(''))
      }}
    >
      <input
        aria-label="View name"
        placeholder="View name"
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <button type="submit">Save current view</button>
    </form>
  )
}

export interface ViewsPanelProps {
  file: string
  views: Configuration[]
  access: FileAccess
  current: () => ViewSettings
  onRestore: (state: ViewSettings, view: Configuration) => void
  onChanged: () => void
  /** The 3D view's canvas (thumbnails and screenshots); null before the engine is up. */
  canvas: () => HTMLCanvasElement | null
  /** The model's file name, for the screenshot's. */
  model: string
}

/**
 * Which views have a picture (by its sha256): asked again when the list changes and after a picture
 * was stored from here, so a row fetches only pictures that exist, and a new one.
 */
function useViewPictures(file: string, views: Configuration[]) {
  const [pictures, setPictures] = useState<Map<string, string>>(new Map())
  const [storedCount, setStoredCount] = useState(0)
  useEffect(() => {
    let live = true
    client.scene.viewThumbnails(file).then(
      (found) => live && setPictures(found),
      () => {},
    )
    return () => {
      live = false
    }
  }, [file, views, storedCount])
  return { pictures, refresh: () => setStoredCount((n) => n + 1) }
}

export function ViewsPanel(props: ViewsPanelProps) {
  const action = useAction(describeViewError)
  const [note, setNote] = useState('')
  const { pictures, refresh } = useViewPictures(props.file, props.views)
  const stored = (text: string) => {
    setNote(text)
    refresh()
  }
  const undo = useDeferredDelete(props.onChanged)
  const shown = props.views.filter((v) => !undo.isHidden(v._id))

  const act: Act = async (work) => {
    setNote('')
    const ok = await action.run(work)
    // After a refusal too: a stale revision or a new lock shows as it is now.
    props.onChanged()
    return ok
  }
  const save = (v: Configuration, fields: Partial<ConfigurationFields>) =>
    client.scene.saveConfiguration({ _id: v._id, __v: v.__v, ...fields })
  const update = (v: Configuration) =>
    act(async () => {
      await save(v, writeView(props.current()))
      stored(await storeThumbnail(v._id, props.canvas()))
    })
  // One view opens with the file: setting it on one clears it on the others this account may change.
  const activeOnStart = (v: Configuration, on: boolean) =>
    act(async () => {
      await save(v, { activeOnStart: on })
      if (!on) return
      const others = props.views.filter((o) => o._id !== v._id && o.activeOnStart)
      for (const o of others) {
        if (viewWritable(o, props.access) && (o.lockedBy === null || o.lockedBy === props.access.me))
          await save(o, { activeOnStart: false })
      }
    })
  const screenshot = () => {
    const canvas = props.canvas()
    if (canvas) void action.run(() => downloadScreenshot(canvas, props.model))
  }

  return (
    <section class="views" aria-label="Saved views">
      {props.access.capabilities.saveViews ? (
        <SaveViewForm
          file={props.file}
          current={props.current}
          canvas={props.canvas}
          act={act}
          onNote={stored}
        />
      ) : (
        <p class="hint access-reason">{props.access.reason}</p>
      )}
      <button type="button" class="ghost small screenshot" onClick={screenshot}>
        Screenshot (PNG)
      </button>
      {undo.notice}
      {shown.length === 0 ? (
        <p class="hint">No saved views.</p>
      ) : (
        <ul class="items view-list">
          {shown.map((v) => (
            <ViewRow
              key={v._id}
              view={v}
              picture={pictures.get(v._id) ?? null}
              access={props.access}
              act={act}
              onSave={(fields) => act(() => save(v, fields))}
              onUpdate={() => void update(v)}
              onRestore={props.onRestore}
              onActiveOnStart={(on) => void activeOnStart(v, on)}
              onDelete={() => undo.offer(deletion(v))}
            />
          ))}
        </ul>
      )}
      <Notice kind="error" message={action.error} />
      {note && <p class="hint view-note">{note}</p>}
    </section>
  )
}
