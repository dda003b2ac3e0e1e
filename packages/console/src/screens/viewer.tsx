// The viewer screen: three.js is imported here on demand (its own chunk), the GLB downloads with a
// progress bar, and the panels (tree + attributes, annotations, saved views) work on the model.
// The pieces that only draw are in viewer-parts.tsx; the state and its effects are here.
import type { RefObject } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { type Annotation, client, type SceneNode } from '../api/index.ts'
import type { ViewerEngine } from '../viewer/engine.ts'
import type { SelectMode } from '../viewer/selection.ts'
import { defaultView, type ViewSettings } from '../viewer/state/index.ts'
import { restoredSelection } from '../viewer/state/selection.ts'
import { accessOf } from './access.ts'
import { cameraOf, type Draft, pointOf } from './annotations.tsx'
import { type LiveView, useLiveSession } from './live-session.ts'
import { PresenceStrip } from './presence.tsx'
import { usePropertySearch } from './property-search-state.ts'
import type { Query } from './property-values.ts'
import { useSelection } from './selection-state.ts'
import { ViewCube } from './tools/view-cube.tsx'
import { hiddenExcept, indexTree } from './tree-index.ts'
import { useTreeSearch } from './tree-search.tsx'
import { useFollowedView } from './view-start.ts'
import { backTo, currentView, findNode } from './viewer-current.ts'
import { onCanvasKey, useEscapeStopsPlacing } from './viewer-keys.ts'
import { useModel, useReloaded } from './viewer-model.ts'
import { type Loading, LoadingOverlay, type Tab, ViewerHead, ViewerPanel } from './viewer-parts.tsx'
import { useToolPanels, ViewerToolbar } from './viewer-toolbar.tsx'

/** Selection, hidden parts, the open annotation and the camera readout, kept in step with the 3D view. */
function useViewerState(engine: RefObject<ViewerEngine | null>, tree: SceneNode[], phase: string) {
  const selection = useSelection(engine, phase)
  const index = useMemo(() => indexTree(tree), [tree])
  const [hidden, setHidden] = useState<Set<string>>(new Set())
  const [tab, setTab] = useState<Tab>('parts')
  const [active, setActive] = useState<string | null>(null)
  const [camera, setCamera] = useState('')
  // The tools' slices of the view (section, measure, ...): the panels edit them, the engine draws them.
  const [view, setView] = useState<ViewSettings>(defaultView)
  const tools = useToolPanels()
  const changeView = <K extends keyof ViewSettings>(slice: K, next: ViewSettings[K]): void => {
    setView((v) => ({ ...v, [slice]: next }))
    engine.current?.apply({ [slice]: next })
  }
  const updateCamera = (): void => {
    const c = engine.current?.getCamera()
    if (c) setCamera([...c.position, ...c.target].map((n) => n.toFixed(4)).join(','))
  }
  /** A click in 3D: the part (null: nothing) replaces, toggles or joins the selection. */
  const select = (id: string | null, mode: SelectMode = 'only'): void => {
    if (selection.pick(id, mode).length > 0) setTab('parts')
  }
  const applyHidden = (next: Set<string>): void => {
    setHidden(next)
    engine.current?.setHidden(next)
  }
  const openAnnotation = (a: Annotation): void => {
    setActive(a._id)
    setTab('annotations')
    const cam = cameraOf(a)
    if (cam) engine.current?.setCamera(cam, true)
  }
  /** Hide everything but these nodes (with what is under them). */
  const isolate = (ids: string[]): void => applyHidden(hiddenExcept(index, ids))
  const restore = (saved: ViewSettings): void => {
    applyHidden(new Set(saved.visibility.hidden))
    // The selection comes back without leaving the Views tab (select() would open Parts); a view
    // that does not remember one leaves it (state/selection.ts).
    const ids = restoredSelection(saved.selection)
    if (ids) selection.set(ids)
    // disableCamera: the view's camera is not applied; the camera's settings stay those drawn now.
    const kept = { ...view.camera, pose: null, disabled: true }
    const state = saved.camera.disabled ? { ...saved, camera: kept } : saved
    setView(state)
    engine.current?.apply(state)
    updateCamera()
  }
  return {
    selected: selection.selected,
    setSelection: selection.set,
    boxMode: selection.boxMode,
    setBoxMode: selection.setBoxMode,
    index,
    hidden,
    tab,
    setTab,
    active,
    camera,
    updateCamera,
    select,
    applyHidden,
    openAnnotation,
    isolate,
    restore,
    view,
    changeView,
    tools,
  }
}

type ViewerState = ReturnType<typeof useViewerState>

/**
 * Picks from the 3D view: a marker opens its annotation; in placing mode a point starts a draft;
 * otherwise the picked part is selected. Markers follow the annotations.
 */
function useEngineBindings(
  engine: RefObject<ViewerEngine | null>,
  state: ViewerState,
  phase: Loading['phase'],
  annotations: Annotation[],
  placing: { on: boolean; set: (on: boolean) => void; draft: (d: Draft) => void },
) {
  const placingRef = useRef(false)
  placingRef.current = placing.on
  useEffect(() => {
    const view = engine.current
    if (!view) return
    view.onPick = (pick, marker) => {
      const annotation = marker ? annotations.find((x) => x._id === marker) : undefined
      if (marker) {
        if (annotation) state.openAnnotation(annotation)
      } else if (placingRef.current && pick.nodeId !== null) {
        placing.draft({ point: pick.point, node: pick.nodeId, camera: view.getCamera() })
        placing.set(false)
        state.setTab('annotations')
      } else state.select(pick.nodeId, view.selection.clickMode)
    }
    view.controls.addEventListener('change', state.updateCamera)
    state.updateCamera()
    return () => view.controls.removeEventListener('change', state.updateCamera)
  }, [phase, annotations])
  useEffect(() => engine.current?.setPlacing(placing.on), [placing.on, phase])
  useEscapeStopsPlacing(placing.on, () => placing.set(false))
  useEffect(() => {
    engine.current?.setMarkers(
      annotations.flatMap((a) => {
        const p = pointOf(a)
        return p ? [{ id: a._id, point: p.position, color: a.color || '#e5484d' }] : []
      }),
      state.active,
    )
  }, [annotations, state.active, phase])
}

/**
 * The viewer's live session (an account's, or a guest's through a link). Someone else changed
 * something: refetch that panel only (its scroll, my selection and the open tab stay).
 */
function useViewerLive(
  props: { id: string; guest?: boolean },
  engine: RefObject<ViewerEngine | null>,
  model: ReturnType<typeof useModel>,
  state: { selected: readonly string[] },
  reload: { annotation: () => void; configuration: () => void },
): LiveView {
  return useLiveSession({
    fileId: props.id,
    guest: props.guest,
    engine,
    phase: model.loading.phase,
    state,
    refetch: { ...reload, attributes: model.reloadAttributes },
  })
}

/** The Parts tab's inputs: the tree and its search, the selection, hidden parts and attributes. */
function partsOf(
  file: string,
  model: ReturnType<typeof useModel>,
  state: ViewerState,
  search: { tree: ReturnType<typeof useTreeSearch>; properties: ReturnType<typeof usePropertySearch> },
  access: ReturnType<typeof accessOf>,
): Parameters<typeof ViewerPanel>[0]['parts'] {
  const { selected } = state
  return {
    file,
    tree: model.tree,
    treeStatus: model.loading.phase === 'ready' ? model.treeStatus : 'loading',
    selected,
    single: selected.length === 1 ? findNode(model.tree, selected[0] as string) : null,
    search: search.tree,
    properties: search.properties,
    hidden: state.hidden,
    attributes: model.attributes,
    access,
    onSelection: state.setSelection,
    onHidden: state.applyHidden,
    onIsolate: state.isolate,
    onShowAll: () => state.applyHidden(new Set()),
    onSaved: (nodeId, a) => model.setAttributes((all) => ({ ...all, [nodeId]: a })),
  }
}

/** `guest`: opened through a link (no account): no way back to the files, read-only panels; `find`: a property search run on open. */
export function ViewerScreen(props: { id: string; guest?: boolean; find?: Query | null }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const engine = useRef<ViewerEngine | null>(null)
  const model = useModel(props.id, canvas, engine)
  const [annotations, reloadAnnotations] = useReloaded(props.id, (id) => client.scene.annotations(id))
  const [views, reloadViews] = useReloaded(props.id, (id) => client.scene.configurations(id))
  const [placing, setPlacing] = useState(false)
  const [draft, setDraft] = useState<Draft | null>(null)
  const state = useViewerState(engine, model.tree, model.loading.phase)
  const search = useTreeSearch(state.index)
  const properties = usePropertySearch(props.id, engine, props.find ?? null)
  const live = useViewerLive(props, engine, model, state, {
    annotation: reloadAnnotations,
    configuration: reloadViews,
  })
  useEngineBindings(engine, state, model.loading.phase, annotations, {
    on: placing,
    set: setPlacing,
    draft: setDraft,
  })

  const { selected, hidden } = state
  // What the server lets me do here (the file's role and capabilities): the panels offer only that.
  const access = accessOf(model.file)
  const current = () => currentView(engine.current, state.view, hidden, selected)
  const ready = model.loading.phase === 'ready'
  const { restore, reload } = { restore: state.restore, reload: reloadViews }
  const follow = useFollowedView({ fileId: props.id, engine, ready, views, access, current, restore, reload })
  return (
    <section class="viewer" aria-label="Viewer">
      <Head model={model} state={state} engine={engine} live={live} guest={props.guest === true} />
      <div class="viewer-body">
        <Viewport
          canvas={canvas}
          engine={engine}
          model={model}
          state={state}
          access={access}
          onClear={() => {
            state.select(null)
            setPlacing(false)
          }}
        />
        <ViewerPanel
          file={props.id}
          tab={state.tab}
          onTab={state.setTab}
          access={access}
          parts={partsOf(props.id, model, state, { tree: search, properties }, access)}
          annotations={{
            annotations,
            active: state.active,
            placing,
            draft,
            onPlace: setPlacing,
            onOpen: state.openAnnotation,
            onChanged: reloadAnnotations,
            onDraftDone: () => setDraft(null),
          }}
          views={{
            views,
            current,
            onRestore: follow.restored,
            onChanged: reloadViews,
            canvas: () => canvas.current,
            model: model.file?.name ?? 'model',
          }}
        />
      </div>
    </section>
  )
}

/** The head bar: back, the file's name, the live session's people and the view's buttons. */
function Head(props: {
  model: ReturnType<typeof useModel>
  state: ViewerState
  engine: RefObject<ViewerEngine | null>
  live: LiveView
  guest: boolean
}) {
  const { state, engine } = props
  return (
    <ViewerHead
      name={props.model.file?.name}
      back={props.guest ? null : backTo(props.model.file)}
      canFitSelection={state.selected.length > 0}
      boxSelect={state.boxMode}
      onBoxSelect={state.setBoxMode}
      canShowAll={state.hidden.size > 0}
      onFit={(selection) => engine.current?.fit(selection ? state.selected : null, true)}
      onShowAll={() => state.applyHidden(new Set())}
    >
      <PresenceStrip live={props.live} />
    </ViewerHead>
  )
}

/** The 3D view: the canvas with its keys, the loading overlay and the keys hint. */
function Viewport(props: {
  canvas: RefObject<HTMLCanvasElement | null>
  engine: RefObject<ViewerEngine | null>
  model: ReturnType<typeof useModel>
  state: ReturnType<typeof useViewerState>
  access: ReturnType<typeof accessOf>
  onClear: () => void
}) {
  const { engine, model, state } = props
  return (
    <div class="viewport" data-phase={model.loading.phase} data-camera={state.camera}>
      {/* biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: "application" tells screen readers to pass the arrow keys to the 3D view */}
      <canvas
        ref={props.canvas}
        role="application"
        aria-label={`3D view of ${model.file?.name ?? 'the model'}`}
        aria-describedby="viewer-keys"
        tabIndex={0}
        onKeyDown={(e) => {
          onCanvasKey(e, engine.current, {
            fit: () => engine.current?.fit(state.selected, true),
            clear: props.onClear,
            projection: () => {
              const camera = state.view.camera
              const projection = camera.projection === 'perspective' ? 'orthographic' : 'perspective'
              state.changeView('camera', { ...camera, projection, pose: null })
            },
            tool: (slice) => state.tools.toggle(slice, true),
          })
        }}
      />
      <LoadingOverlay loading={model.loading} file={model.file} />
      {model.loading.phase === 'ready' && <ViewCube engine={engine.current} />}
      {model.loading.phase === 'ready' && (
        <ViewerToolbar
          view={state.view}
          onChange={state.changeView}
          engine={engine.current}
          access={props.access}
          selection={[...state.selected]}
          panels={state.tools}
        />
      )}
      <p id="viewer-keys" class="keys-hint">
        Drag to orbit, right-drag to pan, wheel to zoom; Ctrl+click adds or removes a part, Shift+drag selects
        with a box. Keys: arrows orbit, + and − zoom, F fits, 1–7 standard views, O orthographic, M measures
        (a tool's letter opens its panel and goes to it), Esc clears the selection. While measuring, the
        arrows move the cursor and Enter places a point.
      </p>
    </div>
  )
}
