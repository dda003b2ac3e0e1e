// Annotations: placed by clicking the model (the 3D point and the camera are stored), listed,
// opened (the camera flies there), edited and deleted as the file role and each annotation's own
// lists allow (access.ts); a deletion waits a few seconds for an Undo before it is sent (undo.tsx).
import { useState } from 'preact/hooks'
import { type Annotation, client } from '../api/index.ts'
import { Notice } from '../ui/notice.tsx'
import { type Act, useAction } from '../ui/use-action.ts'
import type { CameraState, Vec3 } from '../viewer/engine.ts'
import { type AnnotationRights, annotationRights, type FileAccess } from './access.ts'
import { ReplyCount, Thread, useDiscussions } from './discussion.tsx'
import { type Deletion, useDeferredDelete } from './undo.tsx'

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

/** Deleting an annotation: sent when its undo notice goes (undo.tsx). */
function deletion(a: Annotation): Deletion {
  return {
    id: a._id,
    text: `Annotation "${a.name || 'Note'}" deleted`,
    send: () => client.scene.deleteAnnotation(a._id),
  }
}

function ItemButtons(props: {
  annotation: Annotation
  rights: AnnotationRights
  act: Act
  onEditing: (id: string | null) => void
  onDeleted: (deletion: Deletion) => void
}) {
  const { annotation: a, rights } = props
  const label = a.name || 'annotation'
  return (
    <span class="buttons">
      {(rights.editTitle || rights.editText) && (
        <button
          type="button"
          class="ghost small"
          aria-label={`Edit ${label}`}
          onClick={() => props.onEditing(a._id)}
        >
          Edit
        </button>
      )}
      {rights.delete && (
        <button
          type="button"
          class="ghost small"
          aria-label={`Delete ${label}`}
          onClick={() => props.onDeleted(deletion(a))}
        >
          Delete
        </button>
      )}
    </span>
  )
}

function AnnotationItem(props: {
  annotation: Annotation
  discussion: ReturnType<typeof useDiscussions>
  active: boolean
  editing: boolean
  access: FileAccess
  act: Act
  onOpen: (a: Annotation) => void
  onEditing: (id: string | null) => void
  onDeleted: (deletion: Deletion) => void
}) {
  const a = props.annotation
  const act = props.act
  const rights = annotationRights(a, props.access)
  return (
    <li class={props.active ? 'active' : ''} data-annotation={a.name}>
      <span class="swatch" style={{ background: a.color }} aria-hidden="true" />
      {props.editing ? (
        <EditAnnotation
          annotation={a}
          rights={rights}
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
          <ReplyCount thread={props.discussion.threads.get(a._id)} />
          <span class="meta">{a.author}</span>
          <ItemButtons {...props} rights={rights} />
          {props.access.capabilities.annotate && rights.reason && (
            <span class="meta why">{rights.reason}</span>
          )}
          {props.active && (
            <Thread
              annotation={a}
              access={props.access}
              tick={props.discussion.tick}
              onRead={props.discussion.reload}
            />
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
  access: FileAccess
  onPlace: (on: boolean) => void
  onOpen: (a: Annotation) => void
  onChanged: () => void
  onDraftDone: () => void
}) {
  const [editing, setEditing] = useState<string | null>(null)
  const action = useAction()
  const undo = useDeferredDelete(props.onChanged)
  const discussion = useDiscussions(props.file)
  const shown = props.annotations.filter((a) => !undo.isHidden(a._id))
  const { capabilities, reason } = props.access

  const act: Act = async (work) => {
    const ok = await action.run(work)
    if (ok) props.onChanged()
    return ok
  }

  return (
    <section class="annotations" aria-label="Annotations">
      {capabilities.annotate ? (
        <button type="button" aria-pressed={props.placing} onClick={() => props.onPlace(!props.placing)}>
          {props.placing ? 'Click on the model… (cancel)' : 'Place annotation'}
        </button>
      ) : (
        <p class="hint access-reason">{reason}</p>
      )}
      {undo.notice}
      {props.draft && (
        <DraftForm file={props.file} draft={props.draft} act={act} onDone={props.onDraftDone} />
      )}
      {shown.length === 0 ? (
        <p class="hint">No annotations yet.</p>
      ) : (
        <ol class="items">
          {shown.map((a) => (
            <AnnotationItem
              key={a._id}
              annotation={a}
              discussion={discussion}
              active={props.active === a._id}
              editing={editing === a._id}
              access={props.access}
              act={act}
              onOpen={props.onOpen}
              onEditing={setEditing}
              onDeleted={undo.offer}
            />
          ))}
        </ol>
      )}
      <Notice kind="error" message={action.error} />
    </section>
  )
}

/** Title and text as I may change them; only what changed is sent (an unchanged field needs no right). */
function EditAnnotation(props: {
  annotation: Annotation
  rights: AnnotationRights
  onDone: (changes: { name?: string; content?: string } | null) => Promise<void>
}) {
  const a = props.annotation
  const [name, setName] = useState(a.name)
  const [content, setContent] = useState(a.content)
  const { rights } = props
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault()
        void props.onDone({
          ...(name !== a.name ? { name } : {}),
          ...(content !== a.content ? { content } : {}),
        })
      }}
    >
      <input
        aria-label="Title"
        value={name}
        readOnly={!rights.editTitle}
        title={rights.editTitle ? undefined : 'Its permissions do not let you change the title.'}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <textarea
        aria-label="Text"
        value={content}
        readOnly={!rights.editText}
        title={rights.editText ? undefined : 'Its permissions do not let you change the text.'}
        onInput={(e) => setContent(e.currentTarget.value)}
      />
      {rights.reason && <p class="hint">{rights.reason}</p>}
      <div class="buttons">
        <button type="submit">Save</button>
        <button type="button" class="ghost" onClick={() => void props.onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  )
}
