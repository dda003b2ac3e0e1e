// The section panel: the master switch, buttons adding a plane square to X, Y or Z through the
// model's centre or on a face picked in the 3D view, one row per plane (on/off, position slider and
// number, flip, cap colour, remove, and "Move" which puts the drag arrow on it), and the section box
// (section-box.tsx). Everything is a button or an input: the keyboard reaches all of it.
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { ViewerEngine } from '../../viewer/engine.ts'
import { MAX_PLANES, type SectionPlane, type SectionSettings } from '../../viewer/state/section.ts'
import type { SectionTool } from '../../viewer/tools/section.ts'
import {
  type Axis,
  addAxisPlane,
  axisOf,
  canAddPlane,
  flipPlane,
  positionOf,
  rangeOf,
  removePlane,
  updatePlane,
  withPosition,
} from '../../viewer/tools/section-edit.ts'
import { sectionToolOf } from '../../viewer/tools/section-registry.ts'
import type { ToolPanelProps } from './index.ts'
import { SectionBoxControls } from './section-box.tsx'

function round(n: number): number {
  return Math.round(n * 1e4) / 1e4
}

function label(plane: SectionPlane, index: number): string {
  const axis = axisOf(plane)
  return axis ? `Plane ${index + 1} (${axis})` : `Plane ${index + 1} (from face)`
}

interface RowProps {
  plane: SectionPlane
  index: number
  tool: SectionTool | undefined
  editing: boolean
  onEdit: () => void
  value: SectionSettings
  onChange: (next: SectionSettings) => void
}

function PlaneRow({ plane, index, tool, editing, onEdit, value, onChange }: RowProps) {
  const name = label(plane, index)
  const { centre, radius } = tool?.extent() ?? { centre: [0, 0, 0], radius: 1 }
  const position = positionOf(plane)
  const [low, high] = rangeOf(plane, centre, radius)
  const min = Math.min(low, position)
  const max = Math.max(high, position)
  const step = round((max - min) / 200) || 0.001
  const move = (v: number) =>
    Number.isFinite(v) && onChange(updatePlane(value, plane.id, withPosition(plane, v)))
  return (
    <li class="section-plane" data-plane={plane.id} aria-current={editing ? 'true' : undefined}>
      <label class="section-on">
        <input
          type="checkbox"
          checked={plane.enabled}
          onChange={(e) => onChange(updatePlane(value, plane.id, { enabled: e.currentTarget.checked }))}
        />
        {name}
      </label>
      <input
        type="range"
        aria-label={`${name} position`}
        min={min}
        max={max}
        step={step}
        value={position}
        onInput={(e) => move(e.currentTarget.valueAsNumber)}
      />
      <input
        type="number"
        class="section-number"
        aria-label={`${name} position, number`}
        step={step}
        value={round(position)}
        onChange={(e) => move(e.currentTarget.valueAsNumber)}
      />
      <div class="section-actions">
        <button type="button" class="ghost small" aria-pressed={editing} onClick={onEdit}>
          Move<span class="sr-only"> {name} with the arrow</span>
        </button>
        <button type="button" class="ghost small" onClick={() => onChange(flipPlane(value, plane.id))}>
          Flip<span class="sr-only"> {name}</span>
        </button>
        <input
          type="color"
          aria-label={`${name} cap colour`}
          value={plane.capColor}
          onChange={(e) => onChange(updatePlane(value, plane.id, { capColor: e.currentTarget.value }))}
        />
        <button
          type="button"
          class="ghost small"
          onClick={(e) => {
            // The row goes: focus moves to the next plane's row (or the previous one), else to the
            // first Add button, after the panel re-rendered (the Add buttons are still disabled now
            // when six planes existed, and a disabled button takes no focus).
            const row = e.currentTarget.closest('li')
            const panel = e.currentTarget.closest('.section-panel')
            const neighbour = (
              row?.nextElementSibling ?? row?.previousElementSibling
            )?.querySelector<HTMLElement>('input, button')
            // The neighbour stays: focus it now, so a key pressed right after lands in the panel.
            neighbour?.focus()
            onChange(removePlane(value, plane.id))
            if (neighbour) return
            requestAnimationFrame(() => {
              panel?.querySelector<HTMLElement>('.section-add button:not(:disabled)')?.focus()
            })
          }}
        >
          Remove<span class="sr-only"> {name}</span>
        </button>
      </div>
    </li>
  )
}

/** The tool of the engine, and the tool's own changes (a drag, a face) passed on as the panel's. */
function useSectionTool(engine: ViewerEngine | null, onChange: (next: SectionSettings) => void) {
  const tool = engine ? sectionToolOf(engine.renderer.domElement) : undefined
  const latest = useRef(onChange)
  latest.current = onChange
  const [picking, setPicking] = useState(false)
  const [editing, setEditing] = useState<string | null>(tool?.edited() ?? null)
  // A layout effect: its cleanup runs as the panel closes (a passive one waits for the next paint),
  // so that the arrow is gone before the next click on the 3D view.
  useLayoutEffect(() => {
    if (!tool) return
    return tool.listen((next) => {
      setPicking(tool.pickingFace())
      setEditing(tool.edited())
      latest.current(next)
    })
  }, [tool])
  const edit = (id: string | null) => {
    setEditing(id)
    tool?.edit(id)
  }
  const pick = (on: boolean) => {
    setPicking(on)
    tool?.pickFace(on)
  }
  return { tool, picking, pick, editing, edit }
}

function AddButtons(props: {
  value: SectionSettings
  onAdd: (axis: Axis) => void
  picking: boolean
  onPick: (on: boolean) => void
}) {
  const full = !canAddPlane(props.value)
  return (
    <fieldset class="section-add" aria-describedby={full ? 'section-full' : undefined}>
      <legend>Add a plane</legend>
      {(['X', 'Y', 'Z'] as Axis[]).map((axis) => (
        <button key={axis} type="button" class="small" disabled={full} onClick={() => props.onAdd(axis)}>
          Add {axis} plane
        </button>
      ))}
      <button
        type="button"
        class="small"
        disabled={full}
        aria-pressed={props.picking}
        onClick={() => props.onPick(!props.picking)}
      >
        Plane from face
      </button>
      {props.picking && <p class="meta">Click a face in the 3D view: what is in front of it is cut away.</p>}
      {full && (
        <p id="section-full" class="meta">
          At most {MAX_PLANES} planes: remove one to add another.
        </p>
      )}
    </fieldset>
  )
}

export function SectionPanel({ value, onChange, engine }: ToolPanelProps<'section'>) {
  const { tool, picking, pick, editing, edit } = useSectionTool(engine, onChange)
  const add = (axis: Axis) => {
    const next = addAxisPlane(value, axis, tool?.extent().centre ?? [0, 0, 0])
    onChange(next)
    edit(next.planes.at(-1)?.id ?? null)
  }
  return (
    <div class="section-panel">
      <label class="section-master">
        <input
          type="checkbox"
          checked={value.enabled}
          onChange={(e) => onChange({ ...value, enabled: e.currentTarget.checked })}
        />
        Cut the model
      </label>
      <AddButtons value={value} onAdd={add} picking={picking} onPick={pick} />
      {value.planes.length > 0 ? (
        <ul class="section-planes" aria-label="Section planes">
          {value.planes.map((plane, index) => (
            <PlaneRow
              key={plane.id}
              plane={plane}
              index={index}
              tool={tool}
              editing={editing === plane.id}
              onEdit={() => edit(editing === plane.id ? null : plane.id)}
              value={value}
              onChange={onChange}
            />
          ))}
        </ul>
      ) : (
        <p class="meta">No planes yet.</p>
      )}
      <SectionBoxControls value={value} onChange={onChange} tool={tool} />
    </div>
  )
}
