// The measure tool's keyboard cursor: while a dimension is placed and the 3D view has focus, the
// arrows move a crosshair over the canvas (Shift: farther) and Enter or Space places a point where
// it is, snapped as the pointer's would be. A step is smaller than the snap distance (10 px), so a
// corner can always be reached. The crosshair is a DOM element over the canvas, hidden from screen
// readers (the panel's status line says what was placed); the pointer moving hides it.

const STEP_PX = 8
const BIG_STEP_PX = 40
const MOVES: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
}

/** What a key does to the cursor: moved it, asks to place a point there, or is not the cursor's. */
export type CursorKey = 'move' | 'place' | null

export class KeyCursor {
  private readonly element: HTMLDivElement
  /** Canvas coordinates (CSS px from its top left); null: the centre, until a key moves it. */
  private at: { x: number; y: number } | null = null

  constructor(private readonly canvas: HTMLCanvasElement) {
    this.element = document.createElement('div')
    this.element.className = 'measure-cursor'
    this.element.setAttribute('aria-hidden', 'true')
    this.element.hidden = true
    canvas.insertAdjacentElement('afterend', this.element)
  }

  /** Whether the crosshair is drawn (the keyboard, not the pointer, is placing). */
  get shown(): boolean {
    return !this.element.hidden
  }

  /** Client coordinates, as a pointer event has them (snapAt takes those). */
  client(): { x: number; y: number } {
    const rect = this.canvas.getBoundingClientRect()
    const { x, y } = this.clamped()
    return { x: rect.left + x, y: rect.top + y }
  }

  key(event: KeyboardEvent): CursorKey {
    if (event.altKey || event.ctrlKey || event.metaKey) return null
    const move = MOVES[event.key]
    if (event.key !== 'Enter' && event.key !== ' ' && !move) return null
    const { x, y } = this.clamped()
    const step = event.shiftKey ? BIG_STEP_PX : STEP_PX
    this.at = move ? { x: x + move[0] * step, y: y + move[1] * step } : { x, y }
    this.at = this.clamped()
    this.draw()
    return move ? 'move' : 'place'
  }

  /** Back to the centre, hidden: a new placing mode starts from there. */
  reset(): void {
    this.at = null
    this.hide()
  }

  hide(): void {
    this.element.hidden = true
  }

  private clamped(): { x: number; y: number } {
    const { clientWidth: w, clientHeight: h } = this.canvas
    const { x, y } = this.at ?? { x: w / 2, y: h / 2 }
    return { x: Math.min(Math.max(x, 0), w - 1), y: Math.min(Math.max(y, 0), h - 1) }
  }

  private draw(): void {
    const { x, y } = this.clamped()
    this.element.hidden = false
    this.element.style.transform = `translate(${this.canvas.offsetLeft + x}px, ${this.canvas.offsetTop + y}px)`
  }

  dispose(): void {
    this.element.remove()
  }
}
