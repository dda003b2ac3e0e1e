// The scene tree, a WAI-ARIA tree: one tab stop (roving tabindex), arrows, Home/End, Enter/Space.
// The expanded rows are flattened and only those in view are drawn (a 3,000-part model opens at
// once), so each treeitem says its level and position itself (aria-level/-setsize/-posinset)
// instead of being nested in a group. Synced with the 3D selection both ways; each row can
// hide/show its node or isolate it.
import type { RefObject } from 'preact'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { SceneNode } from '../api/index.ts'
import { type Row, treeMove, visibleRows } from './tree-rows.ts'

/** Pixels per row: 24 px buttons (WCAG 2.5.8 targets) and a little air. */
const ROW = 30
/** The list scrolls past this height. */
const MAX_HEIGHT = 360
/** The box's padding (styles.css `.tree`): room for the focus ring, added to the rows' height. */
const PAD = 5
/** Rows drawn beyond the visible ones, so that a fast scroll shows no gap. */
const OVERSCAN = 8

/** Parent of every node ID, to expand the path to a node picked in 3D. */
export function parentsOf(tree: SceneNode[]): Map<string, string | null> {
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

export function descendants(node: SceneNode): string[] {
  return [node.id, ...node.children.flatMap(descendants)]
}

interface TreeProps {
  tree: SceneNode[]
  selected: string | null
  hidden: Set<string>
  onSelect: (id: string) => void
  onToggle: (node: SceneNode) => void
  onIsolate: (node: SceneNode) => void
}

function TreeRow(props: {
  row: Row
  top: number
  open: boolean
  selected: boolean
  hidden: boolean
  stop: boolean
  onOpen: (id: string, open: boolean) => void
  onSelect: (id: string) => void
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
      class={props.hidden ? 'hidden-node' : ''}
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
      onClick={() => props.onSelect(node.id)}
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
  selected: string | null,
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

export function SceneTree(props: TreeProps) {
  const parents = useMemo(() => parentsOf(props.tree), [props.tree])
  const [expanded, setExpanded] = useState<Set<string>>(() => initiallyOpen(props.tree))
  const rows = useMemo(() => visibleRows(props.tree, expanded), [props.tree, expanded])
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
  useRevealSelected(props.selected, parents, expanded, setExpanded, rows, reveal, setFocusId)

  const setOpen = (id: string, open: boolean) =>
    setExpanded((e) => {
      const next = new Set(e)
      if (open) next.add(id)
      else next.delete(id)
      return next
    })
  const onKeyDown = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement
    if (target.getAttribute('role') !== 'treeitem') return
    const move = treeMove(e.key, rows, indexOf(target.dataset.id), expanded)
    if (!move) return
    e.preventDefault()
    if (move.kind === 'focus') {
      const id = rows[move.index]?.node.id ?? null
      setFocusId(id)
      reveal(move.index)
      // A drawn row takes focus now (the next key goes to it); one drawn by the next render, then.
      const row = id ? box.current?.querySelector<HTMLElement>(`[data-id="${CSS.escape(id)}"]`) : null
      if (row) row.focus({ preventScroll: true })
      else pendingFocus.current = true
    } else if (move.kind === 'select') props.onSelect(move.id)
    else setOpen(move.id, move.kind === 'expand')
  }

  // The tab stop: the focused row, else the selected one, else the first.
  const stopIndex = [indexOf(focusId), indexOf(props.selected), 0].find((i) => i >= 0) ?? 0
  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN)
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW) + OVERSCAN)
  const drawn = rows.slice(first, last).map((row, i) => ({ row, index: first + i }))
  // The tab stop's row is drawn even when scrolled away: Tab must find it.
  const stopRow = rows[stopIndex]
  if (stopRow && (stopIndex < first || stopIndex >= last)) drawn.push({ row: stopRow, index: stopIndex })

  return (
    <div
      role="tree"
      aria-label="Scene tree"
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
            selected={props.selected === row.node.id}
            hidden={props.hidden.has(row.node.id)}
            stop={index === stopIndex}
            onOpen={setOpen}
            onSelect={(id) => {
              setFocusId(id)
              props.onSelect(id)
            }}
            onToggle={props.onToggle}
            onIsolate={props.onIsolate}
          />
        ))}
      </div>
    </div>
  )
}
