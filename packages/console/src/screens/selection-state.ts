// The viewer screen's selection: the ids of the selected parts in the order they were selected,
// kept in step with the engine's highlight. Clicks in 3D (Ctrl/Cmd toggles, Shift adds), the
// tree's picks and ranges, a box in 3D, a search's "Select all results" and a restored view all go
// through here.
import type { RefObject } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import type { ViewerEngine } from '../viewer/engine.ts'
import { nextSelection, type SelectMode } from '../viewer/selection.ts'

export function useSelection(engine: RefObject<ViewerEngine | null>, phase: string) {
  const [selected, setSelected] = useState<readonly string[]>([])
  const [boxMode, setBoxMode] = useState(false)
  // The event handlers the engine holds outlive a render: they read the selection here.
  const current = useRef<readonly string[]>([])
  const set = (ids: readonly string[]): void => {
    current.current = ids
    setSelected(ids)
    engine.current?.select(ids)
  }
  const pick = (id: string | null, mode: SelectMode): readonly string[] => {
    const next = nextSelection(current.current, id, mode)
    set(next)
    return next
  }
  useEffect(() => {
    const box = engine.current?.selection.box
    if (!box) return
    box.mode = boxMode
    box.onSelect = ({ ids, add }) => set(add ? [...new Set([...current.current, ...ids])] : ids)
  }, [phase, boxMode])
  return { selected, set, pick, boxMode, setBoxMode }
}
