// The viewer screen's pieces that only draw what they are given: the head bar, the loading overlay
// over the 3D view and the side panel with its three tabs (the state lives in viewer.tsx).
import type { Annotation, Attributes, Configuration, FileRecord, SceneNode } from '../api/index.ts'
import { linkClick } from '../router.ts'
import { formatBytes } from '../util.ts'
import { AnnotationsPanel, type Draft } from './annotations.tsx'
import { AttributesPanel } from './attributes.tsx'
import { SceneTree } from './tree.tsx'
import { type ViewState, ViewsPanel } from './views.tsx'

export type Tab = 'parts' | 'annotations' | 'views'

export interface Loading {
  phase: 'waiting' | 'downloading' | 'preparing' | 'ready' | 'error'
  loaded: number
  total: number
  message?: string
}

export function ViewerHead(props: {
  name: string | undefined
  canFitSelection: boolean
  canShowAll: boolean
  onFit: (selection: boolean) => void
  onShowAll: () => void
}) {
  return (
    <div class="viewer-head">
      <a href="/files" onClick={(e) => linkClick(e, '/files')}>
        ← Files
      </a>
      <h1 title={props.name}>{props.name ?? 'Model'}</h1>
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

export function PanelTabs(props: { tab: Tab; annotations: number; views: number; onTab: (t: Tab) => void }) {
  return (
    <div class="tabs" role="tablist">
      {(['parts', 'annotations', 'views'] as Tab[]).map((t) => (
        <button
          key={t}
          id={`tab-${t}`}
          type="button"
          role="tab"
          aria-selected={props.tab === t}
          aria-controls="viewer-tab-panel"
          onClick={() => props.onTab(t)}
        >
          {tabLabel(t, props.annotations, props.views)}
        </button>
      ))}
    </div>
  )
}

/** The parts tab: the scene tree, and the selected node's attributes under it. */
export function PartsTab(props: {
  file: string
  tree: SceneNode[]
  ready: boolean
  selected: SceneNode | null
  hidden: Set<string>
  attributes: Record<string, Attributes>
  canWrite: boolean
  onSelect: (id: string | null) => void
  onHidden: (next: Set<string>) => void
  onIsolate: (node: SceneNode) => void
  onSaved: (nodeId: string, attributes: Attributes) => void
}) {
  const { selected, hidden } = props
  const toggle = (node: SceneNode) => {
    const next = new Set(hidden)
    if (next.has(node.id)) next.delete(node.id)
    else next.add(node.id)
    props.onHidden(next)
  }
  return (
    <>
      {props.tree.length === 0 && props.ready && <p class="hint">This model has no parts.</p>}
      <SceneTree
        key={props.tree.length}
        tree={props.tree}
        selected={selected?.id ?? null}
        hidden={hidden}
        onSelect={props.onSelect}
        onToggle={toggle}
        onIsolate={props.onIsolate}
      />
      {selected && (
        <AttributesPanel
          file={props.file}
          nodeId={selected.id}
          nodeName={selected.name}
          attributes={props.attributes[selected.id] ?? {}}
          canWrite={props.canWrite}
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

export interface ViewsTabProps {
  views: Configuration[]
  current: () => ViewState
  onRestore: (state: ViewState) => void
  onChanged: () => void
}

/** The side panel: tabs, then the chosen tab's body. */
export function ViewerPanel(props: {
  file: string
  tab: Tab
  onTab: (t: Tab) => void
  canWrite: boolean
  parts: Parameters<typeof PartsTab>[0]
  annotations: AnnotationsTabProps
  views: ViewsTabProps
}) {
  const { file, canWrite } = props
  return (
    <aside class="panel">
      <PanelTabs
        tab={props.tab}
        annotations={props.annotations.annotations.length}
        views={props.views.views.length}
        onTab={props.onTab}
      />
      <div class="tab-body" role="tabpanel" id="viewer-tab-panel" aria-labelledby={`tab-${props.tab}`}>
        {/* The panel's heading level, between the screen's h1 and the h3 inside (attributes). */}
        <h2 class="sr-only">{TAB_TITLE[props.tab]}</h2>
        {props.tab === 'parts' && <PartsTab {...props.parts} />}
        {props.tab === 'annotations' && (
          <AnnotationsPanel file={file} canWrite={canWrite} {...props.annotations} />
        )}
        {props.tab === 'views' && <ViewsPanel file={file} canWrite={canWrite} {...props.views} />}
      </div>
    </aside>
  )
}
