// The toolbar under the 3D view: one button per tool (screens/tools/index.ts); pressing one opens
// its panel above the toolbar (one at a time), pressing it again or Esc in the panel closes it.
// WAI-ARIA toolbar: one tab stop, Left/Right/Home/End move between the buttons.
// A button is a disclosure: the focus stays on it. The tool's letter in the 3D view (viewer-keys.ts)
// opens the panel with the focus on its first control, so that the keys act there at once; Esc or
// the letter again in the panel closes it and the focus goes back where it was (the 3D view).
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { ViewerEngine } from '../viewer/engine.ts'
import type { ViewSettings } from '../viewer/state/index.ts'
import type { FileAccess } from './access.ts'
import { TOOL_PANELS, type ToolEntry } from './tools/index.ts'

export interface ToolbarProps {
  view: ViewSettings
  onChange: <K extends keyof ViewSettings>(slice: K, next: ViewSettings[K]) => void
  engine: ViewerEngine | null
  access: FileAccess
  selection: string[]
  panels: ToolPanels
}

/** Which panel is open, and how it was opened. */
export interface ToolPanels {
  /** The slice whose panel is open, or null. */
  open: keyof ViewSettings | null
  /** Opened by its letter: its first control takes the focus. */
  byKey: boolean
  /** Where the focus goes back when Esc or the letter closes it (opened by the button: the button). */
  returnTo: HTMLElement | null
  /** Open the slice's panel, or close it when it is the open one. */
  toggle(slice: keyof ViewSettings, byKey: boolean): void
  close(): void
}

export function useToolPanels(): ToolPanels {
  const closed = { open: null, byKey: false, returnTo: null }
  const [state, setState] = useState<Pick<ToolPanels, 'open' | 'byKey' | 'returnTo'>>(closed)
  return {
    ...state,
    toggle: (slice, byKey) => {
      const from = byKey ? (document.activeElement as HTMLElement | null) : null
      setState((s) => (s.open === slice ? closed : { open: slice, byKey, returnTo: from }))
    },
    close: () => setState(closed),
  }
}

// Input types that take no letters: the panel's letter may close the panel from them.
const LETTERLESS = new Set(['checkbox', 'radio', 'range', 'button', 'submit', 'reset', 'color', 'file'])

function takesLetters(target: EventTarget | null): boolean {
  if (target instanceof HTMLInputElement) return !LETTERLESS.has(target.type)
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true
  return target instanceof HTMLElement && target.isContentEditable
}

// A radio group's tab stop is its checked radio.
const CONTROLS =
  'button, input:not([type="radio"]), input[type="radio"]:checked, select, textarea, a[href], [tabindex="0"]'

/** The panel's first control a user can act on, else its heading (tabindex -1). */
function firstControl(panel: HTMLElement): HTMLElement | null {
  for (const el of panel.querySelectorAll<HTMLElement>(CONTROLS))
    if (!el.matches(':disabled') && el.getClientRects().length > 0) return el
  return panel.querySelector('h2')
}

function moveFocus(event: KeyboardEvent, buttons: (HTMLButtonElement | null)[]): void {
  const current = buttons.indexOf(document.activeElement as HTMLButtonElement)
  const n = buttons.length
  const moves: Record<string, number> = {
    ArrowRight: current + 1,
    ArrowLeft: current - 1,
    Home: 0,
    End: n - 1,
  }
  const next = moves[event.key]
  if (next === undefined || current < 0) return
  event.preventDefault()
  buttons[(next + n) % n]?.focus()
}

function ToolPanel(props: ToolbarProps & { entry: ToolEntry; onClose: () => void }) {
  const { entry } = props
  const Panel = entry.Panel
  const section = useRef<HTMLElement>(null)
  // Mounted per opening (keyed by its slice); with the render, so that the next key lands there.
  useLayoutEffect(() => {
    if (props.panels.byKey && section.current) firstControl(section.current)?.focus()
  }, [])
  return (
    <section
      ref={section}
      class="tool-panel"
      aria-label={entry.label}
      onKeyDown={(e) => {
        const letter =
          e.key.toLowerCase() === entry.key.toLowerCase() && !e.altKey && !e.ctrlKey && !e.metaKey
        if (e.key !== 'Escape' && !(letter && !takesLetters(e.target))) return
        e.stopPropagation()
        e.preventDefault()
        // Focus goes back (the 3D view or the tool's button): removed with the panel, it would fall to <body>.
        props.onClose()
      }}
    >
      <h2 tabIndex={-1}>{entry.label}</h2>
      <Panel
        value={props.view[entry.slice]}
        onChange={(next) => props.onChange(entry.slice, next)}
        engine={props.engine}
        access={props.access}
        selection={props.selection}
      />
    </section>
  )
}

export function ViewerToolbar(props: ToolbarProps) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([])
  // The roving tab stop: the button last focused, so Tab comes back to where the user was.
  const [stop, setStop] = useState(0)
  if (TOOL_PANELS.length === 0) return null
  const { panels } = props
  const openIndex = TOOL_PANELS.findIndex((t) => t.slice === panels.open)
  const openEntry = TOOL_PANELS[openIndex]
  const close = (): void => {
    const back = panels.returnTo?.isConnected ? panels.returnTo : buttons.current[openIndex]
    panels.close()
    back?.focus()
  }
  // The panel comes after the toolbar in the DOM (it is positioned apart): Tab from a button reaches it.
  return (
    <>
      <div
        class="viewer-toolbar"
        role="toolbar"
        aria-label="Viewer tools"
        onKeyDown={(e) => moveFocus(e, buttons.current)}
      >
        {TOOL_PANELS.map((t, i) => (
          <button
            key={t.slice}
            ref={(el) => {
              buttons.current[i] = el
            }}
            type="button"
            class="ghost small"
            aria-pressed={panels.open === t.slice}
            aria-keyshortcuts={t.key}
            title={`${t.label} (${t.key})`}
            tabIndex={i === stop ? 0 : -1}
            onFocus={() => setStop(i)}
            onClick={() => panels.toggle(t.slice, false)}
          >
            {t.label}
          </button>
        ))}
      </div>
      {openEntry && <ToolPanel key={openEntry.slice} {...props} entry={openEntry} onClose={close} />}
    </>
  )
}
