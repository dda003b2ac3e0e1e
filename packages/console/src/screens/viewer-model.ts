// The viewer's data: the model (the conversion's wait, the GLB beside three.js, the scene tree and
// attributes) and the lists that are read again after each change (annotations, saved views).
import type { RefObject } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { type Attributes, client, type FileRecord, type SceneNode } from '../api/index.ts'
import { followViewerBackground } from '../theme.ts'
import { describeError } from '../util.ts'
import type { ViewerEngine } from '../viewer/engine.ts'
import { measureControl } from '../viewer/tools/measure-control.ts'
import { unitOfFile } from '../viewer/tools/measure-format.ts'
import type { Loading, TreeStatus } from './viewer-parts.tsx'

/** Resolves after `count` animation frames (the engine's loop draws in its own frame callback). */
function framesDrawn(count: number): Promise<void> {
  return new Promise((resolve) => {
    const step = (left: number) => requestAnimationFrame(() => (left <= 1 ? resolve() : step(left - 1)))
    step(count)
  })
}

/** Waits for the conversion, downloads the GLB beside three.js, draws it, then reads the tree and attributes. */
export function useModel(
  id: string,
  canvas: RefObject<HTMLCanvasElement | null>,
  engine: RefObject<ViewerEngine | null>,
) {
  const [file, setFile] = useState<FileRecord | null>(null)
  const [loading, setLoading] = useState<Loading>({ phase: 'waiting', loaded: 0, total: 0 })
  const [tree, setTree] = useState<SceneNode[]>([])
  const [treeStatus, setTreeStatus] = useState<TreeStatus>('loading')
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
      performance.mark('tessera:downloaded')
      setLoading((l) => ({ ...l, phase: 'preparing' }))
      const view = new module.ViewerEngine(canvas.current)
      engine.current = view
      unfollowTheme = followViewerBackground(canvas.current, (colour) => view.setBackground(colour))
      // A model of many parts shows a preview while its parts are built: the overlay steps aside.
      view.onPreview = () => !disposed && setLoading((l) => ({ ...l, phase: 'preview' }))
      await view.load(bytes)
      // Dimensions' labels: metres or unitless, by the source format (measure-format.ts).
      measureControl(view.renderer.domElement)?.setUnit(unitOfFile(ready.name))
      // The model is drawn and can be orbited now; the tree ("Loading parts…" until then) and the
      // attributes arrive after it, each on its own: a big tree does not hold back the first frame.
      setLoading((l) => ({ ...l, phase: 'ready' }))
      // One animation frame: the engine's loop has drawn the model (its frame callback runs first)
      // before a big tree's JSON and rows take the main thread. Not more: under software WebGL a
      // frame of millions of triangles takes seconds, and the tree would wait for each.
      await framesDrawn(1)
      if (disposed) return
      void client.scene
        .attributes(id)
        .then((attrs) => !disposed && setAttributes(attrs))
        .catch(() => {})
      try {
        const sceneTree = await client.scene.sceneTree(id)
        if (disposed) return
        setTree(sceneTree)
        setTreeStatus('ready')
      } catch {
        // The model stays drawn; the parts panel says the tree could not be read.
        if (!disposed) setTreeStatus('failed')
      }
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
  /** Someone changed attributes (a live session's notice): read them again, keeping the rest. */
  const reloadAttributes = () =>
    void client.scene
      .attributes(id)
      .then(setAttributes)
      .catch(() => {})
  return { file, loading, tree, treeStatus, attributes, setAttributes, reloadAttributes }
}

/** A list read when the screen opens and again after each change made from it. */
export function useReloaded<T>(id: string, read: (id: string) => Promise<T[]>): [T[], () => void] {
  const [items, setItems] = useState<T[]>([])
  const reload = () =>
    void read(id)
      .then(setItems)
      .catch(() => {})
  useEffect(reload, [id])
  return [items, reload]
}
