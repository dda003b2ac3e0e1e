// The viewer screen: three.js is imported here on demand (its own chunk), the GLB downloads with a
// progress bar, and the panels (tree + attributes, annotations, saved views) work on the model.
import { useEffect, useRef, useState } from 'preact/hooks'
import {
  type Annotation,
  type Attributes,
  type Configuration,
  client,
  type FileRecord,
  type SceneNode,
} from '../api/index.ts'
import { linkClick } from '../router.ts'
import { describeError, formatBytes } from '../util.ts'
import type { ViewerEngine } from '../viewer/engine.ts'
import { AnnotationsPanel, cameraOf, type Draft, pointOf } from './annotations.tsx'
import { AttributesPanel } from './attributes.tsx'
import { descendants, parentsOf, SceneTree } from './tree.tsx'
import { type ViewState, ViewsPanel } from './views.tsx'

type Tab = 'parts' | 'annotations' | 'views'
interface Loading {
  phase: 'waiting' | 'downloading' | 'preparing' | 'ready' | 'error'
  loaded: number
  total: number
  message?: string
}

function findNode(tree: SceneNode[], id: string): SceneNode | null {
  for (const n of tree) {
    if (n.id === id) return n
    const inner = findNode(n.children, id)
    if (inner) return inner
  }
  return null
}

export function ViewerScreen(props: { id: string }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const engine = useRef<ViewerEngine | null>(null)
  const [file, setFile] = useState<FileRecord | null>(null)
  const [loading, setLoading] = useState<Loading>({ phase: 'waiting', loaded: 0, total: 0 })
  const [tree, setTree] = useState<SceneNode[]>([])
  const [attributes, setAttributes] = useState<Record<string, Attributes>>({})
  const [selected, setSelected] = useState<string | null>(null)
  const [hidden, setHidden] = useState<Set<string>>(new Set())
  const [tab, setTab] = useState<Tab>('parts')
  const [annotations, setAnnotations] = useState<Annotation[]>([])
  const [views, setViews] = useState<Configuration[]>([])
  const [active, setActive] = useState<string | null>(null)
  const [placing, setPlacing] = useState(false)
  const [draft, setDraft] = useState<Draft | null>(null)
  const [camera, setCamera] = useState('')
  const placingRef = useRef(false)
  placingRef.current = placing

  const reloadAnnotations = () =>
    void client.scene
      .annotations(props.id)
      .then(setAnnotations)
      .catch(() => {})
  const reloadViews = () =>
    void client.scene
      .configurations(props.id)
      .then(setViews)
      .catch(() => {})

  useEffect(() => {
    const abort = new AbortController()
    let disposed = false
    async function open(): Promise<void> {
      const ready = await client.files.waitUntilReady(props.id, setFile, {
        signal: abort.signal,
        intervalMs: 1500,
      })
      if (ready.state === 'error')
        throw new Error(`The conversion failed: ${ready.error ?? 'unknown reason'}`)
      // three.js arrives only now, in its own chunk, while the GLB downloads.
      const [module, bytes] = await Promise.all([
        import('../viewer/engine.ts'),
        client.files.fetchBytes(
          props.id,
          'optimized',
          (p) => setLoading({ phase: 'downloading', ...p }),
          abort.signal,
        ),
      ])
      if (disposed || !canvas.current) return
      setLoading((l) => ({ ...l, phase: 'preparing' }))
      const view = new module.ViewerEngine(canvas.current)
      engine.current = view
      await view.load(bytes)
      const [sceneTree, attrs] = await Promise.all([
        client.scene.sceneTree(props.id),
        client.scene.attributes(props.id).catch(() => ({})),
      ])
      setTree(sceneTree)
      setAttributes(attrs)
      setLoading((l) => ({ ...l, phase: 'ready' }))
    }
    open().catch((e: unknown) => {
      if (!disposed) setLoading({ phase: 'error', loaded: 0, total: 0, message: describeError(e) })
    })
    reloadAnnotations()
    reloadViews()
    return () => {
      disposed = true
      abort.abort()
      engine.current?.dispose()
      engine.current = null
    }
  }, [props.id])

  // Picks from the 3D view: a marker opens its annotation; in placing mode a point starts a draft.
  useEffect(() => {
    const view = engine.current
    if (!view) return
    view.onPick = (pick, marker) => {
      if (marker) {
        const a = annotations.find((x) => x._id === marker)
        if (a) openAnnotation(a)
        return
      }
      if (placingRef.current && pick.nodeId !== null) {
        setDraft({ point: pick.point, node: pick.nodeId, camera: view.getCamera() })
        setPlacing(false)
        setTab('annotations')
        return
      }
      select(pick.nodeId)
    }
    view.controls.addEventListener('change', updateCamera)
    updateCamera()
    return () => view.controls.removeEventListener('change', updateCamera)
  }, [loading.phase, annotations])

  useEffect(() => {
    engine.current?.setMarkers(
      annotations.flatMap((a) => {
        const p = pointOf(a)
        return p ? [{ id: a._id, point: p.position, color: a.color || '#e5484d' }] : []
      }),
      active,
    )
  }, [annotations, active, loading.phase])

  function updateCamera(): void {
    const c = engine.current?.getCamera()
    if (c) setCamera([...c.position, ...c.target].map((n) => n.toFixed(4)).join(','))
  }

  function select(id: string | null): void {
    setSelected(id)
    engine.current?.select(id)
    if (id) setTab('parts')
  }

  function applyHidden(next: Set<string>): void {
    setHidden(next)
    engine.current?.setHidden(next)
  }

  function openAnnotation(a: Annotation): void {
    setActive(a._id)
    setTab('annotations')
    const cam = cameraOf(a)
    if (cam) engine.current?.setCamera(cam, true)
  }

  function isolate(node: SceneNode): void {
    const keep = new Set(descendants(node))
    const parents = parentsOf(tree)
    for (let p = parents.get(node.id) ?? null; p; p = parents.get(p) ?? null) keep.add(p)
    applyHidden(new Set([...parents.keys()].filter((id) => !keep.has(id))))
  }

  function restore(state: ViewState): void {
    applyHidden(new Set(state.hidden))
    select(state.selected)
    engine.current?.setCamera(state.camera, false)
    updateCamera()
  }

  const canWrite = file !== null && file.role !== 'viewer'
  const selectedNode = selected ? findNode(tree, selected) : null
  const pct = loading.total > 0 ? (loading.loaded / loading.total) * 100 : 0
  return (
    <section class="viewer" aria-label="Viewer">
      <div class="viewer-head">
        <a href="/files" onClick={(e) => linkClick(e, '/files')}>
          ← Files
        </a>
        <h1 title={file?.name}>{file?.name ?? 'Model'}</h1>
        <button type="button" class="ghost small" onClick={() => engine.current?.fit(null, true)}>
          Fit all
        </button>
        <button
          type="button"
          class="ghost small"
          disabled={!selected}
          onClick={() => engine.current?.fit(selected, true)}
        >
          Fit selection
        </button>
        <button
          type="button"
          class="ghost small"
          disabled={hidden.size === 0}
          onClick={() => applyHidden(new Set())}
        >
          Show all
        </button>
      </div>
      <div class="viewer-body">
        <div class="viewport" data-phase={loading.phase} data-camera={camera}>
          <canvas
            ref={canvas}
            class={placing ? 'placing' : ''}
            aria-label="3D view: drag to orbit, right-drag to pan, wheel to zoom"
            tabIndex={0}
          />
          {loading.phase !== 'ready' && (
            <div class="overlay" role="status">
              {loading.phase === 'error' ? (
                <p class="error">{loading.message}</p>
              ) : loading.phase === 'waiting' ? (
                <p>
                  {file && file.state !== 'ready'
                    ? `Waiting for the conversion (${file.state} ${Math.round(file.progress ?? 0)}%)…`
                    : 'Opening…'}
                </p>
              ) : (
                <>
                  <p>
                    {loading.phase === 'preparing'
                      ? 'Preparing the model…'
                      : `Loading model ${formatBytes(loading.loaded)} of ${formatBytes(loading.total)}`}
                  </p>
                  <progress
                    max={100}
                    value={loading.phase === 'preparing' ? 100 : pct}
                    aria-label="Model download"
                  />
                </>
              )}
            </div>
          )}
        </div>
        <aside class="panel">
          <div class="tabs" role="tablist">
            {(['parts', 'annotations', 'views'] as Tab[]).map((t) => (
              <button key={t} type="button" role="tab" aria-selected={tab === t} onClick={() => setTab(t)}>
                {t === 'parts'
                  ? 'Parts'
                  : t === 'annotations'
                    ? `Annotations (${annotations.length})`
                    : `Views (${views.length})`}
              </button>
            ))}
          </div>
          <div class="tab-body" role="tabpanel">
            {tab === 'parts' && (
              <>
                {tree.length === 0 && loading.phase === 'ready' && (
                  <p class="hint">This model has no parts.</p>
                )}
                <SceneTree
                  key={tree.length}
                  tree={tree}
                  selected={selected}
                  hidden={hidden}
                  onSelect={select}
                  onToggle={(node) => {
                    const next = new Set(hidden)
                    if (next.has(node.id)) next.delete(node.id)
                    else next.add(node.id)
                    applyHidden(next)
                  }}
                  onIsolate={isolate}
                />
                {selectedNode && (
                  <AttributesPanel
                    file={props.id}
                    nodeId={selectedNode.id}
                    nodeName={selectedNode.name}
                    attributes={attributes[selectedNode.id] ?? {}}
                    canWrite={canWrite}
                    onSaved={(a) => setAttributes((all) => ({ ...all, [selectedNode.id]: a }))}
                  />
                )}
              </>
            )}
            {tab === 'annotations' && (
              <AnnotationsPanel
                file={props.id}
                annotations={annotations}
                active={active}
                placing={placing}
                draft={draft}
                canWrite={canWrite}
                onPlace={setPlacing}
                onOpen={openAnnotation}
                onChanged={reloadAnnotations}
                onDraftDone={() => setDraft(null)}
              />
            )}
            {tab === 'views' && (
              <ViewsPanel
                file={props.id}
                views={views}
                canWrite={canWrite}
                current={() => ({
                  camera: engine.current?.getCamera() ?? { position: [0, 0, 5], target: [0, 0, 0] },
                  hidden: [...hidden],
                  selected,
                })}
                onRestore={restore}
                onChanged={reloadViews}
              />
            )}
          </div>
        </aside>
      </div>
    </section>
  )
}
