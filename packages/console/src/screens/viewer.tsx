// The viewer screen: three.js is imported here on demand (its own chunk), the GLB downloads with a
// progress bar, and the panels (tree + attributes, annotations, saved views) work on the model.
// The pieces that only draw are in viewer-parts.tsx; the state and its effects are here.
import type { RefObject } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { type Annotation, type Attributes, client, type FileRecord, type SceneNode } from '../api/index.ts'
import { folderUrl } from '../router.ts'
import { followViewerBackground } from '../theme.ts'
import { describeError } from '../util.ts'
import type { ViewerEngine } from '../viewer/engine.ts'
import { accessOf } from './access.ts'
import { cameraOf, type Draft, pointOf } from './annotations.tsx'
import { descendants, parentsOf } from './tree.tsx'
import { onCanvasKey, useEscapeStopsPlacing } from './viewer-keys.ts'
import { type Loading, LoadingOverlay, type Tab, ViewerHead, ViewerPanel } from './viewer-parts.tsx'
import type { ViewState } from './views.tsx'

/** "← Files": the folder of my own file, "Shared with me" for another account's. */
function backTo(file: FileRecord | null): string {
  if (!file) return '/files'
  return file.owner === client.session.identity?.email ? folderUrl(file.parent) : '/shared'
}

function findNode(tree: SceneNode[], id: string): SceneNode | null {
  for (const n of tree) {
    if (n.id === id) return n
    const inner = findNode(n.children, id)
    if (inner) return inner
  }
  return null
}

/** Waits for the conversion, downloads the GLB beside three.js, draws it, then reads tree and attributes. */
function useModel(
  id: string,
  canvas: RefObject<HTMLCanvasElement | null>,
  engine: RefObject<ViewerEngine | null>,
) {
  const [file, setFile] = useState<FileRecord | null>(null)
  const [loading, setLoading] = useState<Loading>({ phase: 'waiting', loaded: 0, total: 0 })
  const [tree, setTree] = useState<SceneNode[]>([])
  const [attributes, setAttributes] = useState<Record<string, Attributes>>({})
  useEffect(() => {
    const abort = new AbortController()
    let disposed = false
    let unfollowTheme = (): void => {}
    async function open(): Promise<void> {
      const ready = await client.files.waitUntilReady(id, setFile, { signal: abort.signal, intervalMs: 1500 })
      if (ready.state === 'error')
        throw new Error(`The conversion failed: ${ready.error ?? 'unknown reason'}`)
      // three.js arrives only now, in its own chunk, while the GLB downloads.
      const [module, bytes] = await Promise.all([
        import('../viewer/engine.ts'),
        client.files.fetchBytes(
          id,
          'optimized',
          (p) => setLoading({ phase: 'downloading', ...p }),
          abort.signal,
        ),
      ])
      if (disposed || !canvas.current) return
      setLoading((l) => ({ ...l, phase: 'preparing' }))
      const view = new module.ViewerEngine(canvas.current)
      engine.current = view
      unfollowTheme = followViewerBackground(canvas.current, (colour) => view.setBackground(colour))
      await view.load(bytes)
      const [sceneTree, attrs] = await Promise.all([
        client.scene.sceneTree(id),
        client.scene.attributes(id).catch(() => ({})),
      ])
      setTree(sceneTree)
      setAttributes(attrs)
      setLoading((l) => ({ ...l, phase: 'ready' }))
    }
    open().catch((e: unknown) => {
      if (!disposed) setLoading({ phase: 'error', loaded: 0, total: 0, message: describeError(e) })
    })
    return () => {
      disposed = true
      abort.abort()
      unfollowTheme()
      engine.current?.dispose()
      engine.current = null
    }
  }, [id])
  return { file, loading, tree, attributes, setAttributes }
}

/** A list read when the screen opens and again after each change made from it. */
function useReloaded<T>(id: string, read: (id: string) => Promise<T[]>): [T[], () => void] {
  const [items, setItems] = useState<T[]>([])
  const reload = () =>
    void read(id)
      .then(setItems)
      .catch(() => {})
  useEffect(reload, [id])
  return [items, reload]
}

/** Selection, hidden parts, the open annotation and the camera readout, kept in step with the 3D view. */
function useViewerState(engine: RefObject<ViewerEngine | null>, tree: SceneNode[]) {
  const [selected, setSelected] = useState<string | null>(null)
  const [hidden, setHidden] = useState<Set<string>>(new Set())
  const [tab, setTab] = useState<Tab>('parts')
  const [active, setActive] = useState<string | null>(null)
  const [camera, setCamera] = useState('')
  const updateCamera = (): void => {
    const c = engine.current?.getCamera()
    if (c) setCamera([...c.position, ...c.target].map((n) => n.toFixed(4)).join(','))
  }
  const mark = (id: string | null): void => {
    setSelected(id)
    engine.current?.select(id)
  }
  const select = (id: string | null): void => {
    mark(id)
    if (id) setTab('parts')
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
  const isolate = (node: SceneNode): void => {
    const keep = new Set(descendants(node))
    const parents = parentsOf(tree)
    for (let p = parents.get(node.id) ?? null; p; p = parents.get(p) ?? null) keep.add(p)
    applyHidden(new Set([...parents.keys()].filter((id) => !keep.has(id))))
  }
  const restore = (state: ViewState): void => {
    applyHidden(new Set(state.hidden))
    // The selection comes back without leaving the Views tab (select() would open Parts).
    mark(state.selected)
    engine.current?.setCamera(state.camera, false)
    updateCamera()
  }
  return {
    selected,
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
      } else state.select(pick.nodeId)
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

export function ViewerScreen(props: { id: string }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const engine = useRef<ViewerEngine | null>(null)
  const model = useModel(props.id, canvas, engine)
  const [annotations, reloadAnnotations] = useReloaded(props.id, (id) => client.scene.annotations(id))
  const [views, reloadViews] = useReloaded(props.id, (id) => client.scene.configurations(id))
  const [placing, setPlacing] = useState(false)
  const [draft, setDraft] = useState<Draft | null>(null)
  const state = useViewerState(engine, model.tree)
  useEngineBindings(engine, state, model.loading.phase, annotations, {
    on: placing,
    set: setPlacing,
    draft: setDraft,
  })

  const { selected, hidden } = state
  // What the server lets me do here (the file's role and capabilities): the panels offer only that.
  const access = accessOf(model.file)
  return (
    <section class="viewer" aria-label="Viewer">
      <ViewerHead
        name={model.file?.name}
        back={backTo(model.file)}
        canFitSelection={selected !== null}
        canShowAll={hidden.size > 0}
        onFit={(selection) => engine.current?.fit(selection ? selected : null, true)}
        onShowAll={() => state.applyHidden(new Set())}
      />
      <div class="viewer-body">
        <Viewport
          canvas={canvas}
          engine={engine}
          model={model}
          state={state}
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
          parts={{
            file: props.id,
            tree: model.tree,
            ready: model.loading.phase === 'ready',
            selected: selected ? findNode(model.tree, selected) : null,
            hidden,
            attributes: model.attributes,
            access,
            onSelect: state.select,
            onHidden: state.applyHidden,
            onIsolate: state.isolate,
            onSaved: (nodeId, a) => model.setAttributes((all) => ({ ...all, [nodeId]: a })),
          }}
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
            current: () => currentView(engine.current, hidden, selected),
            onRestore: state.restore,
            onChanged: reloadViews,
          }}
        />
      </div>
    </section>
  )
}

/** The 3D view: the canvas with its keys, the loading overlay and the keys hint. */
function Viewport(props: {
  canvas: RefObject<HTMLCanvasElement | null>
  engine: RefObject<ViewerEngine | null>
  model: ReturnType<typeof useModel>
  state: ReturnType<typeof useViewerState>
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
        onKeyDown={(e) =>
          onCanvasKey(e, engine.current, {
            fit: () => engine.current?.fit(state.selected, true),
            clear: props.onClear,
          })
        }
      />
      <LoadingOverlay loading={model.loading} file={model.file} />
      <p id="viewer-keys" class="keys-hint">
        Drag to orbit, right-drag to pan, wheel to zoom. Keys: arrows orbit, + and − zoom, F fits, Esc clears
        the selection.
      </p>
    </div>
  )
}

/** What "Save view" stores: the camera (a default one before the engine is up), hidden and selected parts. */
function currentView(engine: ViewerEngine | null, hidden: Set<string>, selected: string | null): ViewState {
  return {
    camera: engine?.getCamera() ?? { position: [0, 0, 5], target: [0, 0, 0] },
    hidden: [...hidden],
    selected,
  }
}
