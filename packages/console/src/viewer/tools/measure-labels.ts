// The dimensions' labels: DOM text over the canvas (screen readers and axe read it; styles.css gives
// it the theme's colours), each placed at the projection of its 3D anchor. Placed again only when
// the camera, the canvas or the labels changed.
import * as THREE from 'three'

interface Label {
  element: HTMLElement
  anchor: THREE.Vector3
}

export class LabelLayer {
  readonly element: HTMLDivElement
  private readonly labels = new Map<string, Label>()
  private placedFor = ''

  constructor(private readonly canvas: HTMLCanvasElement) {
    this.element = document.createElement('div')
    this.element.className = 'measure-labels'
    canvas.insertAdjacentElement('afterend', this.element)
  }

  set(id: string, text: string, anchor: THREE.Vector3, preview = false): void {
    let label = this.labels.get(id)
    if (!label) {
      const element = document.createElement('span')
      element.className = preview ? 'measure-label preview' : 'measure-label'
      element.dataset.quotation = id
      this.element.append(element)
      label = { element, anchor }
      this.labels.set(id, label)
    }
    if (label.element.textContent !== text) label.element.textContent = text
    label.anchor = anchor
    this.placedFor = ''
  }

  remove(id: string): void {
    this.labels.get(id)?.element.remove()
    this.labels.delete(id)
  }

  text(id: string): string {
    return this.labels.get(id)?.element.textContent ?? ''
  }

  setVisible(visible: boolean): void {
    this.element.hidden = !visible
  }

  /** Put each label at its anchor's projection (hidden when the anchor is behind the camera). */
  place(camera: THREE.Camera): void {
    camera.updateMatrixWorld()
    const { offsetLeft: left, offsetTop: top, clientWidth: w, clientHeight: h } = this.canvas
    const key = `${camera.matrixWorld.elements.join()}|${camera.projectionMatrix.elements.join()}|${left},${top},${w},${h}`
    if (key === this.placedFor) return
    this.placedFor = key
    Object.assign(this.element.style, {
      left: `${left}px`,
      top: `${top}px`,
      width: `${w}px`,
      height: `${h}px`,
    })
    const ndc = new THREE.Vector3()
    for (const { element, anchor } of this.labels.values()) {
      ndc.copy(anchor).project(camera)
      const shown = ndc.z < 1 && Math.abs(ndc.x) <= 1.2 && Math.abs(ndc.y) <= 1.2
      element.style.display = shown ? '' : 'none'
      element.style.transform = `translate(${((ndc.x + 1) / 2) * w}px, ${((1 - ndc.y) / 2) * h}px) translate(-50%, -50%)`
    }
  }

  dispose(): void {
    this.element.remove()
    this.labels.clear()
  }
}
