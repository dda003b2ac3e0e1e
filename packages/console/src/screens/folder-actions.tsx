// The Files toolbar's actions: "New folder" (an inline form: Enter creates, Esc cancels, a bad
// name is explained under the field) and "Upload files" (the picker).
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { folderUrl, navigate } from '../router.ts'
import { newFolderPath, rememberFolder } from './folders.ts'

function NewFolderForm(props: { folder: string; onClose: (created: boolean) => void }) {
  const [name, setName] = useState('')
  const [error, setError] = useState('')
  const input = useRef<HTMLInputElement>(null)
  // Before the first paint, as the sign-in field: typing right after "New folder" reaches the field.
  useLayoutEffect(() => input.current?.focus(), [])

  function submit(e: Event): void {
    e.preventDefault()
    const result = newFolderPath(props.folder, name)
    if ('error' in result) {
      setError(result.error)
      input.current?.focus()
      return
    }
    rememberFolder(result.path)
    props.onClose(true)
    navigate(folderUrl(result.path))
  }

  return (
    <form
      class="inline new-folder"
      aria-label="New folder"
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault()
          props.onClose(false)
        }
      }}
    >
      <label>
        Folder name
        <input
          ref={input}
          value={name}
          autoComplete="off"
          spellcheck={false}
          aria-invalid={error !== ''}
          aria-describedby="new-folder-hint"
          onInput={(e) => {
            setName(e.currentTarget.value)
            setError('')
          }}
        />
      </label>
      <button type="submit">Create folder</button>
      <button type="button" class="ghost" onClick={() => props.onClose(false)}>
        Cancel
      </button>
      <p id="new-folder-hint" class={error ? 'error' : 'hint'} role={error ? 'alert' : undefined}>
        {error || 'Use “/” to make folders inside folders (Drafts/2026). Esc cancels.'}
      </p>
    </form>
  )
}

export function FolderActions(props: { folder: string; onFiles: (files: FileList) => void }) {
  const input = useRef<HTMLInputElement>(null)
  const toggle = useRef<HTMLButtonElement>(null)
  const [creating, setCreating] = useState(false)
  return (
    <>
      <div class="actions">
        <button
          ref={toggle}
          type="button"
          class="ghost"
          aria-expanded={creating}
          onClick={() => setCreating(!creating)}
        >
          New folder
        </button>
        <button type="button" onClick={() => input.current?.click()}>
          Upload files
        </button>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="upload-input"
          onChange={(e) => {
            if (e.currentTarget.files) props.onFiles(e.currentTarget.files)
            e.currentTarget.value = ''
          }}
        />
      </div>
      {creating && (
        <NewFolderForm
          folder={props.folder}
          onClose={(created) => {
            setCreating(false)
            // Cancelled: back to the button that opened it (created: the new folder's screen).
            if (!created) toggle.current?.focus()
          }}
        />
      )}
    </>
  )
}
