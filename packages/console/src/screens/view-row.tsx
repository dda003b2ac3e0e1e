// One saved view in the list: its thumbnail and name (restoring it), and for those who may change
// it: rename (inline, Enter saves, Escape cancels), "Update from current", "Open with this view"
// (activeOnStart), "Save camera automatically" (autosaveCameraPosition), lock and delete. While
// another account holds its lock, every change is disabled with the reason (the server refuses
// them: 409 CONFIGURATION_LOCKED).
import { useState } from 'preact/hooks'
import { type Configuration, type ConfigurationFields, client } from '../api/index.ts'
import type { Act } from '../ui/use-action.ts'
import { formatDate } from '../util.ts'
import { readView, type ViewSettings } from '../viewer/state/index.ts'
import { type FileAccess, viewWritable } from './access.ts'
import { useThumbnailUrl } from './view-thumbnail.ts'

/** Who holds the view's lock, as the panel says it: "you" or their e-mail; null when not locked. */
function lockHolder(v: Configuration, access: FileAccess): { mine: boolean; name: string } | null {
  if (v.lockedBy === null) return null
  const mine = v.lockedBy.toLowerCase() === access.me
  return { mine, name: mine ? 'you' : v.lockedBy }
}

export interface ViewRowProps {
  view: Configuration
  /** The sha256 of the view's picture; null when it has none. */
  picture: string | null
  access: FileAccess
  act: Act
  /** Saves fields of this view (with its `_id` and `__v`). */
  onSave: (fields: Partial<ConfigurationFields>) => Promise<boolean>
  onUpdate: () => void
  onRestore: (state: ViewSettings, view: Configuration) => void
  onActiveOnStart: (on: boolean) => void
  onDelete: () => void
}

function RenameForm(props: { name: string; onDone: (name: string | null) => void }) {
  const [name, setName] = useState(props.name)
  return (
    <form
      class="inline rename"
      onSubmit={(e) => {
        e.preventDefault()
        props.onDone(name.trim() || null)
      }}
    >
      <input
        aria-label={`New name for ${props.name}`}
        value={name}
        // biome-ignore lint/a11y/noAutofocus: the field opened by Rename takes the keyboard at once
        autoFocus
        maxLength={1000}
        onInput={(e) => setName(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation()
            props.onDone(null)
          }
        }}
      />
      <button type="submit" class="small">
        Save name
      </button>
      <button type="button" class="ghost small" onClick={() => props.onDone(null)}>
        Cancel
      </button>
    </form>
  )
}

function Thumbnail(props: { view: Configuration; picture: string | null }) {
  const url = useThumbnailUrl(props.view._id, props.picture)
  if (!url) return <span class="view-thumb empty" aria-hidden="true" />
  return <img class="view-thumb" src={url} alt={props.view.name} loading="lazy" width={96} height={60} />
}

/** A box that shows the asked state at once, until the saved view comes back with it (or without). */
function useOptimistic(stored: boolean, version: number): [boolean, (on: boolean) => void] {
  const [asked, setAsked] = useState<{ on: boolean; version: number } | null>(null)
  const shown = asked !== null && asked.version === version ? asked.on : stored
  return [shown, (on) => setAsked({ on, version })]
}

function Toggles(props: ViewRowProps & { disabled: boolean; describedBy?: string }) {
  const { view: v, disabled } = props
  const [active, askActive] = useOptimistic(v.activeOnStart, v.__v)
  const [autosave, askAutosave] = useOptimistic(v.autosaveCameraPosition, v.__v)
  return (
    <div class="view-toggles">
      <label>
        <input
          type="checkbox"
          checked={active}
          disabled={disabled}
          aria-describedby={props.describedBy}
          onChange={(e) => {
            askActive(e.currentTarget.checked)
            props.onActiveOnStart(e.currentTarget.checked)
          }}
        />
        Open with this view
      </label>
      <label>
        <input
          type="checkbox"
          checked={autosave}
          disabled={disabled}
          aria-describedby={props.describedBy}
          onChange={(e) => {
            askAutosave(e.currentTarget.checked)
            void props.onSave({ autosaveCameraPosition: e.currentTarget.checked })
          }}
        />
        Save camera automatically
      </label>
    </div>
  )
}

/** A writable view's buttons: rename, update from the current state, lock or unlock, delete. */
function ViewActions(
  props: ViewRowProps & {
    change: { disabled: boolean; 'aria-describedby': string | undefined }
    onRename: () => void
  },
) {
  const { view: v, access, act, change } = props
  const holder = lockHolder(v, access)
  return (
    <div class="view-actions">
      <button
        type="button"
        class="ghost small"
        aria-label={`Rename view ${v.name}`}
        onClick={props.onRename}
        {...change}
      >
        Rename
      </button>
      <button
        type="button"
        class="ghost small"
        aria-label={`Update from current: view ${v.name}`}
        onClick={props.onUpdate}
        {...change}
      >
        Update from current
      </button>
      {holder === null && (
        <button
          type="button"
          class="ghost small"
          aria-label={`Lock view ${v.name}`}
          onClick={() => void act(() => client.scene.setViewLock(v._id, true))}
        >
          Lock
        </button>
      )}
      {holder && (holder.mine || access.isOwner) && (
        <button
          type="button"
          class="ghost small"
          aria-label={`Unlock view ${v.name}`}
          onClick={() => void act(() => client.scene.setViewLock(v._id, false))}
        >
          Unlock
        </button>
      )}
      <button
        type="button"
        class="ghost small"
        aria-label={`Delete view ${v.name}`}
        onClick={props.onDelete}
        {...change}
      >
        Delete
      </button>
    </div>
  )
}

export function ViewRow(props: ViewRowProps) {
  const { view: v, access } = props
  const [renaming, setRenaming] = useState(false)
  const writable = viewWritable(v, access)
  const holder = lockHolder(v, access)
  const lockedByOther = holder !== null && !holder.mine
  const why = `why-${v._id}`
  const describedBy = lockedByOther ? why : undefined
  const change = { disabled: lockedByOther, 'aria-describedby': describedBy }
  return (
    <li data-view={v.name} class="view-row">
      <Thumbnail view={v} picture={props.picture} />
      <div class="view-body">
        {renaming ? (
          <RenameForm
            name={v.name}
            onDone={(name) => {
              if (name === null || name === v.name) return setRenaming(false)
              void props.onSave({ name }).then((ok) => ok && setRenaming(false))
            }}
          />
        ) : (
          <button
            type="button"
            class="link"
            onClick={() => props.onRestore(readView(v), v)}
            aria-label={`Restore ${v.name}`}
          >
            {v.name}
          </button>
        )}
        <span class="meta">{formatDate(v.lastModificationDate ?? v.date)}</span>
        {holder && (
          <span class="lock-state" data-testid="lock-state">
            Locked by {holder.name}
          </span>
        )}
        {writable && <ViewActions {...props} change={change} onRename={() => setRenaming(true)} />}
        {writable && <Toggles {...props} disabled={lockedByOther} describedBy={describedBy} />}
        {writable && lockedByOther && (
          <p class="why" id={why}>
            {access.isOwner
              ? `Locked by ${v.lockedBy}: unlock it to change or delete it.`
              : `Locked by ${v.lockedBy}: only they or the file’s owner can unlock it.`}
          </p>
        )}
      </div>
    </li>
  )
}
