// Annotations: placed by clicking the model (the 3D point and the camera are stored), listed,
// opened (the camera flies there), edited and deleted as the file role allows.
import { useState } from 'preact/hooks'
import { type Annotation, client } from '../api/index.ts'
import { describeError } from '../util.ts'
import type { CameraState, Vec3 } from '../viewer/engine.ts'

/** What the console stores in `targets[0]`: the picked point, its node and where the camera looked. */
export interface PointTarget {
  type: 'point'
  position: Vec3
  node: string | null
  cameraTarget: Vec3
}

export function pointOf(a: Annotation): PointTarget | null {
  const t = a.targets[0] as Partial<PointTarget> | undefined
  return t?.type === 'point' && Array.isArray(t.position) ? (t as PointTarget) : null
}

export function cameraOf(a: Annotation): CameraState | null {
  const p = pointOf(a)
  if (!p) return null
  return { position: [a.cameraX, a.cameraY, a.cameraZ], target: p.cameraTarget ?? p.position }
}

export interface Draft {
  point: Vec3
  node: string | null
  camera: CameraState
}

type Act = (work: () => Promise<unknown>) => Promise<boolean>

/** The form of a new annotation at the picked point; saving stores the point and the camera. */
function DraftForm(props: { file: string; draft: Draft; act: Act; onDone: () => void }) {
  const [title, setTitle] = useState('')
  const [text, setText] = useState('')
  const [color, setColor] = useState('#e5484d')

  async function save(d: Draft): Promise<void> {
    const target: PointTarget = {
      type: 'point',
      position: d.point,
      node: d.node,
      cameraTarget: d.camera.target,
    }
    const [x, y, z] = d.camera.position
    const ok = await props.act(() =>
      client.scene.createAnnotation({
        file: props.file,
        name: title.trim() || 'Note',
        content: text,
        color,
        cameraX: x,
        cameraY: y,
        cameraZ: z,
        targets: [target],
      }),
    )
    if (ok) {
      setTitle('')
      setText('')
      props.onDone()
    }
  }

  return (
    <form
      class="stack"
      aria-label="New annotation"
      onSubmit={(e) => {
        e.preventDefault()
        void save(props.draft)
      }}
    >
      <input
        aria-label="Title"
        placeholder="Title"
        required
        value={title}
        onInput={(e) => setTitle(e.currentTarget.value)}
      />
      <textarea
        aria-label="Text"
        placeholder="Text"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <label class="row-label">
        Colour <input type="color" value={color} onInput={(e) => setColor(e.currentTarget.value)} />
      </label>
      <div class="buttons">
        <button type="submit">Save annotation</button>
        <button type="button" class="ghost" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  )
}

function AnnotationItem(props: {
  annotation: Annotation
  active: boolean
  editing: boolean
  canWrite: boolean
  act: Act
  onOpen: (a: Annotation) => void
  onEditing: (id: string | null) => void
}) {
  const a = props.annotation
  const act = props.act
  return (
    <li class={props.active ? 'active' : ''}>
      <span class="swatch" style={{ background: a.color }} aria-hidden="true" />
      {props.editing ? (
        <EditAnnotation
          annotation={a}
          onDone={async (changes) => {
            if (!changes || (await act(() => client.scene.updateAnnotation({ _id: a._id, ...changes }))))
              props.onEditing(null)
          }}
        />
      ) : (
        <>
          <button type="button" class="link" onClick={() => props.onOpen(a)}>
            {a.name || '(hidden title)'}
          </button>
          {props.active && a.content && <p class="content">{a.content}</p>}
          <span class="meta">{a.author}</span>
          {props.canWrite && (
            <span class="buttons">
              <button type="button" class="ghost small" onClick={() => props.onEditing(a._id)}>
                Edit
              </button>
              <button
                type="button"
                class="ghost small"
                onClick={() => void act(() => client.scene.deleteAnnotation(a._id))}
              >
                Delete
              </button>
            </span>
          )}
        </>
      )}
    </li>
  )
}

export function AnnotationsPanel(props: {
  file: string
  annotations: Annotation[]
  active: string | null
  placing: boolean
  draft: Draft | null
  canWrite: boolean
  onPlace: (on: boolean) => void
  onOpen: (a: Annotation) => void
  onChanged: () => void
  onDraftDone: () => void
}) {
  const [editing, setEditing] = useState<string | null>(null)
  const [error, setError] = useState('')

  async function act(work: () => Promise<unknown>): Promise<boolean> {
    setError('')
    try {
      await work()
      props.onChanged()
      return true
    } catch (e) {
      setError(describeError(e))
      return false
    }
  }

  return (
    <section class="annotations" aria-label="Annotations">
      {props.canWrite && (
        <button type="button" aria-pressed={props.placing} onClick={() => props.onPlace(!props.placing)}>
          {props.placing ? 'Click on the model… (cancel)' : 'Place annotation'}
        </button>
      )}
      {props.draft && (
        <DraftForm file={props.file} draft={props.draft} act={act} onDone={props.onDraftDone} />
      )}
      {props.annotations.length === 0 ? (
        <p class="hint">No annotations yet.</p>
      ) : (
        <ol class="items">
          {props.annotations.map((a) => (
            <AnnotationItem
              key={a._id}
              annotation={a}
              active={props.active === a._id}
              editing={editing === a._id}
              canWrite={props.canWrite}
              act={act}
              onOpen={props.onOpen}
              onEditing={setEditing}
            />
          ))}
        </ol>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  )
}

function EditAnnotation(props: {
  annotation: Annotation
  onDone: (changes: { name: string; content: string } | null) => Promise<void>
}) {
  const [name, setName] = useState(props.annotation.name)
  const [content, setContent] = useState(props.annotation.content)
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault()
        void props.onDone({ name, content })
      }}
    >
      <input aria-label="Title" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <textarea aria-label="Text" value={content} onInput={(e) => setContent(e.currentTarget.value)} />
      <div class="buttons">
        <button type="submit">Save</button>
        <button type="button" class="ghost" onClick={() => void props.onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  )
}
