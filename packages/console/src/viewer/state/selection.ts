// The selection: `selectedNodes` (scene-tree node ids, in the order they were selected) and
// `rememberSelection` (whether the view carries a selection at all). Restoring a view sets the
// selection to exactly `selectedNodes` when `rememberSelection` is true, or when it is false but
// `selectedNodes` is not empty (records written before the console wrote the flag, or by a client
// that left it at its default); a view with `rememberSelection: false` and no nodes leaves the
// current selection as it is. The console always saves `rememberSelection: true` (docs/console.md,
// "Selection").
import { type Slice, strings } from './slice.ts'

export interface SelectionSettings {
  nodes: string[]
  remember: boolean
}

/** What the server accepts in `selectedNodes` (packages/server/…/configurations/schemas.ts). */
const MAX_SELECTED = 100_000

export const selectionSlice: Slice<SelectionSettings> = {
  defaults: () => ({ nodes: [], remember: false }),
  read: (record) => ({
    // Repeated ids are one selection; past the server's bound the rest is dropped.
    nodes: [...new Set(strings(record.selectedNodes))].slice(0, MAX_SELECTED),
    remember: record.rememberSelection === true,
  }),
  write: (s) => ({ selectedNodes: s.nodes, rememberSelection: s.remember }),
}

/** The selection a restored view asks for; null: the view leaves the current selection alone. */
export function restoredSelection(s: SelectionSettings): string[] | null {
  return s.remember || s.nodes.length > 0 ? s.nodes : null
}
