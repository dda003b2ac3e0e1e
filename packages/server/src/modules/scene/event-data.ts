// The `data` of attribute_updated, within TESSERA_EVENT_MAX_DATA_BYTES. A write may name thousands of
// nodes with megabytes of values; the event is stored (and kept for the retention period) once plus
// once per delivery attempt's log read, so carrying it whole would let attribute writes grow the
// event log far past the attributes themselves. A write that fits is carried whole, as the spec
// shows it. A larger one carries the values that fit, in the order written, names the attributes
// whose values were left out (`omitted`), counts the nodes not even named (`omittedNodes`), and says
// so (`truncated: true`): the receiver reads the current values with GET /scene/attributes.
import type { EventData } from '../../contract/index.ts'

type Written = Record<string, Record<string, unknown>>
type Data = EventData<'attribute_updated'>

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

/** `{"key":…,` once more: the key, its colon and a comma. */
const entryCost = (key: string) => bytes(key) + 2

export function attributeEventData(email: string, written: Written, maxBytes: number): Data {
  const whole: Data = { user: { email }, nodeIdToAttributes: written }
  if (bytes(whole) <= maxBytes) return whole
  const skeleton: Required<Data> = {
    user: { email },
    nodeIdToAttributes: {},
    truncated: true,
    omitted: {},
    omittedNodes: Number.MAX_SAFE_INTEGER,
  }
  let room = maxBytes - bytes(skeleton)
  // Entry lists, not objects: a node or attribute named __proto__ must stay a plain key.
  const values: [string, Record<string, unknown>][] = []
  const omitted: [string, string[]][] = []
  let omittedNodes = 0
  for (const [nodeId, attributes] of Object.entries(written)) {
    const nodeCost = entryCost(nodeId) + 2 // the key plus the braces (or brackets) of its entry
    let kept: [string, unknown][] | null = null
    let named: string[] | null = null
    let unnamed = false
    for (const [name, value] of Object.entries(attributes)) {
      const valueCost = entryCost(name) + bytes(value) + (kept ? 0 : nodeCost)
      if (valueCost <= room) {
        kept ??= []
        kept.push([name, value])
        room -= valueCost
        continue
      }
      const nameCost = bytes(name) + 1 + (named ? 0 : nodeCost)
      if (nameCost <= room) {
        named ??= []
        named.push(name)
        room -= nameCost
      } else unnamed = true
    }
    if (kept) values.push([nodeId, Object.fromEntries(kept)])
    if (named) omitted.push([nodeId, named])
    if (unnamed) omittedNodes += 1
  }
  return {
    user: { email },
    nodeIdToAttributes: Object.fromEntries(values),
    truncated: true,
    omitted: Object.fromEntries(omitted),
    omittedNodes,
  }
}
