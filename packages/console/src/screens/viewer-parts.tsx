// The viewer screen's pieces that only draw what they are given: the head bar, the loading overlay
// over the 3D view and the side panel with its three tabs and, under Annotations and Views, BCF out
// and in (bcf.tsx, which keeps its own state). The rest of the state lives in viewer.tsx.
import type { ComponentChildren } from 'preact'
import { useRef } from 'preact/hooks'
import type { Annotation, Attributes, FileRecord, SceneNode } from '../api/index.ts'
import { linkClick } from '../router.ts'
import { formatBytes } from '../util.ts'
import type { FileAccess } from './access.ts'
import { AnnotationsPanel, type Draft } from './annotations.tsx'
import { AttributesPanel } from './attributes.tsx'
import { BcfSection } from './bcf.tsx'
import { ModelProperties } from './properties.tsx'
import { PropertyTools } from './property-search.tsx'
import type { PropertySearch } from './property-search-state.ts'
import { SceneTree } from './tree.tsx'
import { type TreeSearch, TreeSearchBox } from './tree-search.tsx'
import { ViewsPanel, type ViewsPanelProps } from './views.tsx'

export type Tab = 'parts' | 'annotations' | 'views'
const TABS: Tab[] = ['parts', 'annotations', 'views']
const tabId = (t: Tab) => `viewer-tab-${t}`
const panelId = (t: Tab) => `viewer-panel-${t}`

export interface Loading {
  /** preview: a model of many parts is drawn as a preview while its parts are built. */
  phase: 'waiting' | 'downloading' | 'preparing' | 'preview' | 'ready' | 'error'
  loaded: number
  total: number
  message?: string
}

/** The scene tree arrives after the first frame (viewer-model.ts). */
export type TreeStatus = 'loading' | 'ready' | 'failed'

export function ViewerHead(props: {
  name: string | undefined
  /** Where "← Files" leads: the folder the file is in; null for a guest (no files to go back to). */
  back: string | null
  canFitSelection: boolean
  canShowAll: boolean
  /** Box select mode: every left drag in 3D draws a box (Shift+drag does without it). */
  boxSelect: boolean
  onBoxSelect: (on: boolean) => void
  onFit: (selection: boolean) => void
  onShowAll: () => void
  /** Beside the title: the live session's people. */
  children?: ComponentChildren
}) {
  return (
    <div class="viewer-head">
      {props.back !== null && (
        <a href={props.back} onClick={(e) => props.back !== null && linkClick(e, props.back)}>
          ← Files
        </a>
      )}
      <h1 title={props.name}>{props.name ?? 'Model'}</h1>
      {props.children}
      <button type="button" class="ghost small" onClick={() => props.onFit(false)}>
        Fit all
      </button>
      <button
        type="button"
        class="ghost small"
        disabled={!props.canFitSelection}
        onClick={() => props.onFit(true)}
      >
        Fit selection
      </button>
      <button type="button" class="ghost small" disabled={!props.canShowAll} onClick={props.onShowAll}>
        Show all
      </button>
      <button
        type="button"
        class="ghost small"
        aria-pressed={props.boxSelect}
        title="Drag a box in the 3D view: left to right takes the parts inside, right to left those touching it (Shift+drag does it without this mode)"
        onClick={() => props.onBoxSelect(!props.boxSelect)}
      >
        Box select
      </button>
    </div>
  )
}

function waitingText(file: FileRecord | null): string {
  return file && file.state !== 'ready'
    ? `Waiting for the conversion (${file.state} ${Math.round(file.progress ?? 0)}%)…`
    : 'Opening…'
}

/** Over the 3D view until the model is drawn: the conversion's wait, the download, or the error. */
export function LoadingOverlay(props: { loading: Loading; file: FileRecord | null }) {
  const { loading } = props
  if (loading.phase === 'ready') return null
  // The preview stays in sight: a note at the foot of the view, not a cover over it.
  if (loading.phase === 'preview')
    return (
      <div class="overlay-note" role="status">
        Preparing the parts…
      </div>
    )
  if (loading.phase === 'error' || loading.phase === 'waiting') {
    return (
      <div class="overlay" role="status">
        {loading.phase === 'error' ? (
          <p class="error">{loading.message}</p>
        ) : (
          <p>{waitingText(props.file)}</p>
        )}
      </div>
    )
  }
  const preparing = loading.phase === 'preparing'
  const pct = loading.total > 0 ? (loading.loaded / loading.total) * 100 : 0
  return (
    <div class="overlay" role="status">
      <p>
        {preparing
          ? 'Preparing the model…'
          : `Loading model ${formatBytes(loading.loaded)} of ${formatBytes(loading.total)}`}
      </p>
      <progress max={100} value={preparing ? 100 : pct} aria-label="Model download" />
    </div>
  )
}

const TAB_TITLE: Record<Tab, string> = { parts: 'Parts', annotations: 'Annotations', views: 'Saved views' }

function tabLabel(tab: Tab, annotations: number, views: number): string {
  if (tab === 'parts') return 'Parts'
  return tab === 'annotations' ? `Annotations (${annotations})` : `Views (${views})`
}

/** Where a key moves the focus among the tabs (WAI-ARIA tabs: Left/Right wrap, Home, End). */
function tabAfter(key: string, current: number): number | null {
  const n = TABS.length
  const moves: Record<string, number> = {
    ArrowRight: current + 1,
    ArrowLeft: current - 1,
    Home: 0,
    End: n - 1,
  }
  const next = moves[key]
  return next === undefined ? null : (next + n) % n
}

/**
 * WAI-ARIA tabs with automatic activation (each panel draws at once): one tab stop, the arrows
 * move and select, each tab controls its own tabpanel.
 */
function PanelTabs(props: { tab: Tab; annotations: number; views: number; onTab: (t: Tab) => void }) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([])
  const onKeyDown = (e: KeyboardEvent) => {
    const next = tabAfter(e.key, TABS.indexOf(props.tab))
    const tab = next === null ? undefined : TABS[next]
    if (next === null || !tab) return
    e.preventDefault()
    props.onTab(tab)
    buttons.current[next]?.focus()
  }
  return (
    <div class="tabs" role="tablist" aria-label="Model panels" onKeyDown={onKeyDown}>
      {TABS.map((t, i) => (
        <button
          key={t}
          ref={(el) => {
            buttons.current[i] = el
          }}
          type="button"
          role="tab"
          id={tabId(t)}
          aria-selected={props.tab === t}
          aria-controls={panelId(t)}
          tabIndex={props.tab === t ? 0 : -1}
          onClick={() => props.onTab(t)}
        >
          {tabLabel(t, props.annotations, props.views)}
        </button>
      ))}
    </div>
  )
}

/**
 * The parts tab: the search box and Find by property, the scene tree, and under it the selected
 * node's model properties and attributes (one selected) or how many are selected (several).
 */
export function PartsTab(props: {
  file: string
  tree: SceneNode[]
  treeStatus: TreeStatus
  selected: readonly string[]
  /** The selected node when exactly one is. */
  single: SceneNode | null
  /** The search over the tree (held by the screen: it outlasts a switch of tabs). */
  search: TreeSearch
  /** Find by property (held by the screen too). */
  properties: PropertySearch
  hidden: Set<string>
  attributes: Record<string, Attributes>
  access: FileAccess
  onSelection: (ids: readonly string[]) => void
  onHidden: (next: Set<string>) => void
  onIsolate: (ids: string[]) => void
  onShowAll: () => void
  onSaved: (nodeId: string, attributes: Attributes) => void
}) {
  const { single: selected, hidden, search } = props
  const toggle = (node: SceneNode) => {
    const next = new Set(hidden)
    if (next.has(node.id)) next.delete(node.id)
    else next.add(node.id)
    props.onHidden(next)
  }
  return (
    <>
      {props.treeStatus === 'loading' && (
        <p class="hint" role="status">
          Loading parts…
        </p>
      )}
      {props.treeStatus === 'failed' && <p class="error">The parts could not be read.</p>}
      {props.tree.length === 0 && props.treeStatus === 'ready' && (
        <p class="hint">This model has no parts.</p>
      )}
      {props.tree.length > 0 && (
        <TreeSearchBox search={search} onSelectAll={props.onSelection} onIsolate={props.onIsolate} />
      )}
      {props.tree.length > 0 && (
        <PropertyTools
          search={props.properties}
          hidden={hidden.size}
          onSelect={props.onSelection}
          onIsolate={props.onIsolate}
          onShowAll={props.onShowAll}
        />
      )}
      <SceneTree
        key={props.tree.length}
        tree={props.tree}
        selected={props.selected}
        hidden={hidden}
        filter={search.filter}
        onSelection={props.onSelection}
        onToggle={toggle}
        onIsolate={(node) => props.onIsolate([node.id])}
      />
      {props.selected.length > 1 && (
        <p class="selection-count" data-count={props.selected.length}>
          {props.selected.length.toLocaleString('en')} parts selected
        </p>
      )}
      {selected && <ModelProperties file={props.file} nodeId={selected.id} onRead={props.properties.learn} />}
      {selected && (
        <AttributesPanel
          file={props.file}
          nodeId={selected.id}
          nodeName={selected.name}
          attributes={props.attributes[selected.id] ?? {}}
          access={props.access}
          onSaved={(a) => props.onSaved(selected.id, a)}
        />
      )}
    </>
  )
}

export interface AnnotationsTabProps {
  annotations: Annotation[]
  active: string | null
  placing: boolean
  draft: Draft | null
  onPlace: (on: boolean) => void
  onOpen: (a: Annotation) => void
  onChanged: () => void
  onDraftDone: () => void
}

export type ViewsTabProps = Omit<ViewsPanelProps, 'file' | 'access'>

/** The side panel: tabs, then the chosen tab's body. */
export function ViewerPanel(props: {
  file: string
  tab: Tab
  onTab: (t: Tab) => void
  access: FileAccess
  parts: Parameters<typeof PartsTab>[0]
  annotations: AnnotationsTabProps
  views: ViewsTabProps
}) {
  const { file, access } = props
  return (
    <aside class="panel">
      <PanelTabs
        tab={props.tab}
        annotations={props.annotations.annotations.length}
        views={props.views.views.length}
        onTab={props.onTab}
      />
      {TABS.map((t) => (
        // Every tab's panel exists (aria-controls points at it); only the open one has content.
        <div
          key={t}
          class="tab-body"
          role="tabpanel"
          id={panelId(t)}
          aria-labelledby={tabId(t)}
          hidden={props.tab !== t}
        >
          {/* The panel's heading level, between the screen's h1 and the h3 inside (attributes). */}
          {props.tab === t && <h2 class="sr-only">{TAB_TITLE[t]}</h2>}
          {props.tab === t && t === 'parts' && <PartsTab {...props.parts} />}
          {props.tab === t && t === 'annotations' && (
            <AnnotationsPanel file={file} access={access} {...props.annotations} />
          )}
          {props.tab === t && t === 'views' && <ViewsPanel file={file} access={access} {...props.views} />}
        </div>
      ))}
      <BcfSection
        file={file}
        access={access}
        hidden={props.tab === 'parts'}
        onImported={() => {
          props.annotations.onChanged()
          props.views.onChanged()
        }}
      />
    </aside>
  )
}
