// The scene tree, a WAI-ARIA multi-select tree (aria-multiselectable): one tab stop (roving
// tabindex), arrows, Home/End; Enter selects the row alone, Space adds or removes it, Shift with an
// arrow/Home/End (or Shift+click) selects the range from the anchor, Ctrl/Cmd+click toggles, Ctrl+A
// selects every row shown.
// The expanded rows are flattened and only those in view are drawn (a 3,000-part model opens at
// once), so each treeitem says its level and position itself (aria-level/-setsize/-posinset)
// instead of being nested in a group. Synced with the 3D selection both ways; each row can
// hide/show its node or isolate it.
import type { RefObject } from 'preact'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { SceneNode } from '../api/index.ts'
import { type Row, type RowFilter, rangeIds, type TreeMove, treeMove, useRows } from './tree-rows.ts'

/** Pixels per row: 24 px buttons (WCAG 2.5.8 targets) and a little air. */
const ROW = 30
/** The list scrolls past this height. */
const MAX_HEIGHT = 360
/** The box's padding (styles.css `.tree`): room for the focus ring, added to the rows' height. */
const PAD = 5
/** Rows drawn beyond the visible ones, so that a fast scroll shows no gap. */
const OVERSCAN = 8

/** Parent of every node ID, to expand the path to a node picked in 3D. */
function parentsOf(tree: SceneNode[]): Map<string, string | null> {
  const parents = new Map<string, string | null>()
  const walk = (nodes: SceneNode[], parent: string | null) => {
    for (const n of nodes) {
      parents.set(n.id, parent)
      walk(n.children, n.id)
    }
  }
  walk(tree, null)
  return parents
}

/** Levels opened breadth-first while the rows in view stay under 40: parts show, no wall of rows. */
function initiallyOpen(tree: SceneNode[]): Set<string> {
  const open = new Set<string>()
  let level = tree
  let visible = tree.length
  while (level.length > 0) {
    const next = level.flatMap((n) => n.children)
    if (visible + next.length > 40 && open.size > 0) break
    for (const n of level) if (n.children.length > 0) open.add(n.id)
    visible += next.length
    level = next
  }
  return open
}

interface TreeProps {
  tree: SceneNode[]
  /** The selection, in the order it was made (the last one is revealed when it comes from 3D). */
  selected: readonly string[]
  hidden: Set<string>
  /** A search's matches: the rows are filtered to them and the paths down to them. */
  filter: RowFilter | null
  onSelection: (next: string[]) => void
  onToggle: (node: SceneNode) => void
  onIsolate: (node: SceneNode) => void
}

function TreeRow(props: {
  row: Row
  top: number
  open: boolean
  selected: boolean
  hidden: boolean
  match: boolean
  stop: boolean
  onOpen: (id: string, open: boolean) => void
  onClick: (id: string, event: MouseEvent) => void
  onToggle: (node: SceneNode) => void
  onIsolate: (node: SceneNode) => void
}) {
  const { node, level } = props.row
  const name = node.name || '(unnamed)'
  const branch = node.children.length > 0
  // The row's own buttons are in the tab order only while the row holds the tree's tab stop. Their
  // words are drawn by CSS (data-label): the row's visible text is then its name alone, as WCAG
  // 2.5.3 (label in name) asks of the treeitem; each button's name still holds its word.
  const tab = props.stop ? 0 : -1
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the tree's onKeyDown handles Enter and Space on the focused row
    <div
      role="treeitem"
      class={[props.hidden ? 'hidden-node' : '', props.match ? 'match' : ''].join(' ').trim()}
      data-id={node.id}
      data-name={node.name}
      aria-label={props.hidden ? `${name} (hidden)` : name}
      aria-level={level}
      aria-setsize={props.row.setsize}
      aria-posinset={props.row.posinset}
      aria-expanded={branch ? props.open : undefined}
      aria-selected={props.selected}
      tabIndex={tab}
      style={{ top: `${props.top}px`, paddingLeft: `${(level - 1) * 14}px` }}
      onClick={(e) => props.onClick(node.id, e)}
    >
      {/* Pointer only: the keyboard opens and closes a row with Right and Left. */}
      <span
        class="twisty"
        aria-hidden="true"
        onClick={(e) => {
          if (!branch) return
          e.stopPropagation()
          props.onOpen(node.id, !props.open)
        }}
      >
        {branch ? (props.open ? '▾' : '▸') : ''}
      </span>
      <span class="node">{name}</span>
      <button
        type="button"
        class="ghost small"
        tabIndex={tab}
        data-label={props.hidden ? 'Show' : 'Hide'}
        aria-label={`${props.hidden ? 'Show' : 'Hide'} ${name}`}
        onClick={(e) => {
          e.stopPropagation()
          props.onToggle(node)
        }}
      />
      <button
        type="button"
        class="ghost small"
        tabIndex={tab}
        data-label="Isolate"
        aria-label={`Isolate ${name}`}
        onClick={(e) => {
          e.stopPropagation()
          props.onIsolate(node)
        }}
      />
    </div>
  )
}

/** Scrolls the list just enough to show row `index`. */
function revealRow(box: HTMLElement | null, index: number, height: number): number | null {
  if (!box) return null
  const top = index * ROW
  let next = box.scrollTop
  if (top < next) next = top
  else if (top + ROW > next + height) next = top + ROW - height
  if (next === box.scrollTop) return null
  box.scrollTop = next
  return next
}

/**
 * A node picked in 3D: open its ancestors, then scroll its row into view and put the tab stop on it.
 * Once per selection, so that the user may close its parent afterwards.
 */
function useRevealSelected(
  selected: string | null | undefined,
  parents: Map<string, string | null>,
  expanded: Set<string>,
  setExpanded: (update: (e: Set<string>) => Set<string>) => void,
  rows: Row[],
  reveal: (index: number) => void,
  setFocusId: (id: string) => void,
): void {
  const revealed = useRef<string | null>(null)
  useEffect(() => {
    if (!selected) revealed.current = null
    if (!selected || revealed.current === selected) return
    const missing: string[] = []
    for (let p = parents.get(selected) ?? null; p; p = parents.get(p) ?? null) {
      if (!expanded.has(p)) missing.push(p)
    }
    if (missing.length > 0) {
      setExpanded((e) => new Set([...e, ...missing]))
      return
    }
    revealed.current = selected
    setFocusId(selected)
    const index = rows.findIndex((r) => r.node.id === selected)
    if (index >= 0) reveal(index)
  }, [selected, rows])
}

/** After a keyboard move, DOM focus follows the tab stop to its (maybe newly drawn) row. */
function useFocusFollows(box: RefObject<HTMLDivElement | null>, focusId: string | null) {
  const pending = useRef(false)
  // Layout effect: focus lands in the same task as the commit, before the next key is read.
  useLayoutEffect(() => {
    if (!pending.current || !focusId) return
    pending.current = false
    box.current
      ?.querySelector<HTMLElement>(`[data-id="${CSS.escape(focusId)}"]`)
      ?.focus({ preventScroll: true })
  })
  return pending
}

/** The expanded set with one node opened or closed. */
function withOpen(expanded: Set<string>, id: string, open: boolean): Set<string> {
  const next = new Set(expanded)
  if (open) next.add(id)
  else next.delete(id)
  return next
}

/** The rows to draw: those in view and a few beyond, and the tab stop's row even when scrolled away (Tab must find it). */
function rowsInView(rows: Row[], scrollTop: number, height: number, stopIndex: number) {
  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN)
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW) + OVERSCAN)
  const drawn = rows.slice(first, last).map((row, i) => ({ row, index: first + i }))
  const stopRow = rows[stopIndex]
  if (stopRow && (stopIndex < first || stopIndex >= last)) drawn.push({ row: stopRow, index: stopIndex })
  return drawn
}

export function SceneTree(props: TreeProps) {
  const parents = useMemo(() => parentsOf(props.tree), [props.tree])
  const [expanded, setExpanded] = useState<Set<string>>(() => initiallyOpen(props.tree))
  const rows = useRows(props.tree, expanded, props.filter ?? null)
  const selectedSet = useMemo(() => new Set(props.selected), [props.selected])
  const picks = useTreePicks(props, rows)
  useOpenPaths(props.filter, setExpanded)
  const [focusId, setFocusId] = useState<string | null>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const box = useRef<HTMLDivElement>(null)
  const pendingFocus = useFocusFollows(box, focusId)
  const height = Math.min(rows.length * ROW, MAX_HEIGHT)
  const indexOf = (id: string | null | undefined) => rows.findIndex((r) => r.node.id === id)
  const reveal = (index: number) => {
    const next = revealRow(box.current, index, height)
    if (next !== null) setScrollTop(next)
  }
  // Revealed: a selection made elsewhere (3D, a restored view), never the tree's own (the focus stays).
  const outside = picks.own.current === props.selected ? null : props.selected.at(-1)
  useRevealSelected(outside, parents, expanded, setExpanded, rows, reveal, setFocusId)

  const setOpen = (id: string, open: boolean) => setExpanded((e) => withOpen(e, id, open))
  const onKeyDown = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement
    if (target.getAttribute('role') !== 'treeitem') return
    const at = indexOf(target.dataset.id)
    const move = treeMove(e.key, rows, at, expanded)
    if (picks.key(e, move, at) || !move) return
    e.preventDefault()
    if (move.kind === 'focus') {
      const id = rows[move.index]?.node.id ?? null
      setFocusId(id)
      reveal(move.index)
      // A drawn row takes focus now (the next key goes to it); one drawn by the next render, then.
      const row = id ? box.current?.querySelector<HTMLElement>(`[data-id="${CSS.escape(id)}"]`) : null
      if (row) row.focus({ preventScroll: true })
      else pendingFocus.current = true
    } else if (move.kind === 'expand' || move.kind === 'collapse') setOpen(move.id, move.kind === 'expand')
  }

  // The tab stop: the focused row, else the last selected one, else the first. Found again only
  // when the rows or those change: a scroll of a 100,000-row list does not search it.
  const stopIndex = useMemo(
    () => [indexOf(focusId), indexOf(props.selected.at(-1)), 0].find((i) => i >= 0) ?? 0,
    [rows, focusId, props.selected],
  )
  const drawn = rowsInView(rows, scrollTop, height, stopIndex)

  return (
    <div
      role="tree"
      aria-label="Scene tree"
      aria-multiselectable="true"
      class="tree"
      ref={box}
      style={{ height: `${height + 2 * PAD}px` }}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      onKeyDown={onKeyDown}
    >
      <div role="none" class="tree-rows" style={{ height: `${rows.length * ROW}px` }}>
        {drawn.map(({ row, index }) => (
          <TreeRow
            key={row.node.id}
            row={row}
            top={index * ROW}
            open={expanded.has(row.node.id)}
            selected={selectedSet.has(row.node.id)}
            hidden={props.hidden.has(row.node.id)}
            match={props.filter?.matches.has(row.node.id) === true}
            stop={index === stopIndex}
            onOpen={setOpen}
            onClick={(id, e) => {
              setFocusId(id)
              if (e.shiftKey) picks.range(index)
              else picks.pick(id, e.ctrlKey || e.metaKey ? 'toggle' : 'only', index)
            }}
            onToggle={props.onToggle}
            onIsolate={props.onIsolate}
          />
        ))}
      </div>
    </div>
  )
}

/**
 * The tree's own changes of the selection: one row alone, a toggled row, a Shift range from the
 * anchor (the last row picked without Shift), or a list. `own` is the last selection it sent.
 */
function useTreePicks(props: TreeProps, rows: Row[]) {
  // The anchor's node id, not its row number: expanding, collapsing or filtering moves the rows, and
  // a row number would then start the range at another node. A node no longer listed: the first row.
  const anchor = useRef<string | null>(null)
  const anchorRow = (): number =>
    Math.max(
      0,
      rows.findIndex((r) => r.node.id === anchor.current),
    )
  const own = useRef<readonly string[] | null>(null)
  const set = (next: string[]): void => {
    own.current = next
    props.onSelection(next)
  }
  return {
    own,
    set,
    pick(id: string, mode: 'only' | 'toggle', index: number): void {
      anchor.current = rows[index]?.node.id ?? id
      if (mode === 'only') set([id])
      else set(props.selected.includes(id) ? props.selected.filter((x) => x !== id) : [...props.selected, id])
    },
    range(index: number): void {
      set(rangeIds(rows, anchorRow(), index))
    },
    /**
     * A key's part in the selection: Ctrl+A takes every row (true: nothing else to do), Enter and
     * Space pick, Shift with a move or a pick selects the range (false: the move still happens).
     */
    key(e: KeyboardEvent, move: TreeMove | null, at: number): boolean {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') {
        e.preventDefault()
        set(rows.map((r) => r.node.id))
        return true
      }
      // A plain move sets the anchor where it lands; a Shift move selects from the anchor to there.
      if (move?.kind === 'focus') {
        if (e.shiftKey) this.range(move.index)
        else anchor.current = rows[move.index]?.node.id ?? null
      }
      if (move?.kind !== 'select' && move?.kind !== 'toggle') return false
      if (e.shiftKey) this.range(at)
      else this.pick(move.id, move.kind === 'toggle' ? 'toggle' : 'only', at)
      return false
    },
  }
}

/** A new search result: open the paths to its matches (they stay open after the search). */
function useOpenPaths(
  filter: RowFilter | null,
  setExpanded: (update: (e: Set<string>) => Set<string>) => void,
) {
  useEffect(() => {
    if (filter && filter.paths.size > 0) setExpanded((e) => new Set([...e, ...filter.paths]))
  }, [filter])
}
