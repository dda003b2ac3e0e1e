// BCF (buildingSMART's BIM Collaboration Format) at the foot of the viewer's side panel, under the
// Annotations and Views tabs: Export BCF saves the file's annotations and saved views as a BCF 3.0
// .bcfzip (everyone who reads the file, a link's guest too); Import BCF… (owner and editors: what
// the server accepts) sends a BCF 2.1 or 3.0 file, says in a status region what it made (the notes
// and the GlobalIds the model lacks in a disclosure) and has both lists read again. A refusal shows
// the server's detail in the error notice. One section for both tabs: its result outlasts a switch.
import { useRef, useState } from 'preact/hooks'
import { type BcfImport, client } from '../api/index.ts'
import { Notice } from '../ui/notice.tsx'
import { useAction } from '../ui/use-action.ts'
import type { FileAccess } from './access.ts'

const count = (n: number, one: string, many = `${one}s`): string =>
  `${n.toLocaleString('en')} ${n === 1 ? one : many}`

/** "Imported BCF 2.1: 2 topics → 2 annotations, 1 saved view, 3 comments. 1 component not in this model." */
function summary(r: BcfImport): string {
  const made = [
    count(r.annotations.length, 'annotation'),
    count(r.configurations.length, 'saved view'),
    count(r.comments, 'comment'),
  ].join(', ')
  const unchanged = r.unchanged > 0 ? ` ${count(r.unchanged, 'topic was', 'topics were')} here already.` : ''
  const unknown = r.unknownComponents.length
  const missing = unknown > 0 ? ` ${count(unknown, 'component')} not in this model.` : ''
  return `Imported BCF ${r.version}: ${count(r.topics, 'topic')} → ${made}.${unchanged}${missing}`
}

/** What an import made, and (folded) what it left out and the components the model lacks. */
function ImportResult(props: { result: BcfImport }) {
  const { notes, unknownComponents: unknown } = props.result
  const parts = [
    unknown.length > 0 ? count(unknown.length, 'unknown component') : '',
    notes.length > 0 ? count(notes.length, 'note') : '',
  ].filter(Boolean)
  return (
    <>
      <p class="ok">{summary(props.result)}</p>
      {parts.length > 0 && (
        <details class="bcf-details">
          <summary>Details: {parts.join(', ')}</summary>
          {notes.length > 0 && (
            <ul class="bcf-notes">
              {notes.map((note, i) => (
                <li key={i}>{note}</li>
              ))}
            </ul>
          )}
          {unknown.length > 0 && (
            <>
              <p>Not in this model (IFC GlobalIds):</p>
              <ul class="bcf-ids">
                {unknown.map((id) => (
                  <li key={id}>
                    <code>{id}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
        </details>
      )}
    </>
  )
}

/** Export and import, with what is going on now (for the status region) and the last import's result. */
function useBcf(file: string, onImported: () => void) {
  const action = useAction()
  const [working, setWorking] = useState('')
  const [result, setResult] = useState<BcfImport | null>(null)
  const start = (what: string): boolean => {
    if (action.busy) return false
    setWorking(what)
    setResult(null)
    return true
  }
  return {
    ...action,
    working,
    result,
    save: () => {
      if (start('Exporting BCF…'))
        void action.run(
          () => client.files.saveBcf(file),
          (name) => `Exported ${name}.`,
        )
    },
    send: (zip: File) => {
      if (!start(`Importing ${zip.name}…`)) return
      void action.run(async () => {
        setResult(await client.files.importBcf(file, zip))
        onImported()
      })
    },
  }
}

/** The picker behind a labelled button (the button stays focusable while busy: aria-disabled). */
function ImportButton(props: { busy: boolean; onFile: (zip: File) => void }) {
  const input = useRef<HTMLInputElement>(null)
  return (
    <>
      <button
        type="button"
        class="ghost small"
        aria-disabled={props.busy}
        aria-describedby="bcf-import-hint"
        onClick={() => !props.busy && input.current?.click()}
      >
        {props.busy ? 'Importing…' : 'Import BCF…'}
      </button>
      <span id="bcf-import-hint" class="sr-only">
        A BCF 2.1 or 3.0 file (.bcfzip) becomes annotations and saved views of this file.
      </span>
      <input
        ref={input}
        type="file"
        hidden
        accept=".bcfzip,.bcf,application/zip"
        aria-label="BCF file to import"
        data-testid="bcf-input"
        onChange={(e) => {
          const picked = e.currentTarget.files?.[0]
          e.currentTarget.value = ''
          if (picked) props.onFile(picked)
        }}
      />
    </>
  )
}

/** The section; `hidden` on the Parts tab (kept, so a result is still there on coming back). */
export function BcfSection(props: {
  file: string
  access: FileAccess
  hidden: boolean
  onImported: () => void
}) {
  const bcf = useBcf(props.file, props.onImported)
  const { capabilities, guest } = props.access
  if (!capabilities.read) return null
  const status = bcf.busy ? (
    <p class="hint">{bcf.working}</p>
  ) : bcf.result ? (
    <ImportResult result={bcf.result} />
  ) : (
    bcf.message && <p class="ok">{bcf.message}</p>
  )
  return (
    <section class="bcf" aria-labelledby="bcf-title" hidden={props.hidden}>
      <h2 id="bcf-title">
        BCF <span class="hint">annotations and views for other BIM tools</span>
      </h2>
      <div class="buttons">
        <button type="button" class="ghost small" aria-disabled={bcf.busy} onClick={bcf.save}>
          Export BCF
        </button>
        {capabilities.annotate && capabilities.saveViews && !guest && (
          <ImportButton busy={bcf.busy} onFile={bcf.send} />
        )}
      </div>
      <div class="bcf-status" role="status">
        {status}
      </div>
      <Notice kind="error" message={bcf.error} />
    </section>
  )
}
