// An IFC model's lines and typed values for ifc-properties.ts, with its values in SI units.
// Lines come from GetLine(…, false), so references are not followed for us: attributes are
// { type, name, value } wrappers (reals are web-ifc NumberHandles, whose `value` is a getter),
// references { type: 5, value: expressID }, lists arrays of those.
import { IFCPROJECT, type IfcAPI } from 'web-ifc'
import type { PropertyScalar } from '../properties.ts'

type Line = Record<string, unknown>

/** A unit of the file, as the factor that takes its values to SI; `degrees` keeps angles as they are. */
interface Unit {
  kind: string
  factor: number
  degrees: boolean
}

/** A model being read: class names are looked up once per class, the project's units once. */
export interface IfcLines {
  api: IfcAPI
  modelID: number
  classNames: Map<number, string>
  units: Map<string, Unit>
}

/** A property: its value, in SI units when it has one (`m`, `m²`, `m³`, `kg`, `s`; angles `rad` or `°`). */
export interface Entry {
  name: string
  value: PropertyScalar
  unit?: string | undefined
}
type Measured = Omit<Entry, 'name'>

const SI_SYMBOLS: Record<string, string> = {
  LENGTHUNIT: 'm',
  AREAUNIT: 'm²',
  VOLUMEUNIT: 'm³',
  MASSUNIT: 'kg',
  TIMEUNIT: 's',
  PLANEANGLEUNIT: 'rad',
}

/** The kinds of unit measures are in; other measures (thermal transmittance, …) stay as they are. */
const MEASURE_KINDS: Record<string, string> = {
  IFCLENGTHMEASURE: 'LENGTHUNIT',
  IFCPOSITIVELENGTHMEASURE: 'LENGTHUNIT',
  IFCNONNEGATIVELENGTHMEASURE: 'LENGTHUNIT',
  IFCAREAMEASURE: 'AREAUNIT',
  IFCVOLUMEMEASURE: 'VOLUMEUNIT',
  IFCMASSMEASURE: 'MASSUNIT',
  IFCTIMEMEASURE: 'TIMEUNIT',
  IFCPLANEANGLEMEASURE: 'PLANEANGLEUNIT',
  IFCPOSITIVEPLANEANGLEMEASURE: 'PLANEANGLEUNIT',
}

/** Each quantity class's value attribute and the kind of unit it is in (none for counts). */
const QUANTITIES: Record<string, [string, string | undefined]> = {
  IfcQuantityLength: ['LengthValue', 'LENGTHUNIT'],
  IfcQuantityArea: ['AreaValue', 'AREAUNIT'],
  IfcQuantityVolume: ['VolumeValue', 'VOLUMEUNIT'],
  IfcQuantityWeight: ['WeightValue', 'MASSUNIT'],
  IfcQuantityTime: ['TimeValue', 'TIMEUNIT'],
  IfcQuantityCount: ['CountValue', undefined],
  IfcQuantityNumber: ['NumberValue', undefined],
}

/** SI prefixes, as powers of ten (a Map: the prefix is the file's text). */
const SI_PREFIXES = new Map<string, number>(
  Object.entries({
    EXA: 18,
    PETA: 15,
    TERA: 12,
    GIGA: 9,
    MEGA: 6,
    KILO: 3,
    HECTO: 2,
    DECA: 1,
    DECI: -1,
    CENTI: -2,
    MILLI: -3,
    MICRO: -6,
    NANO: -9,
    PICO: -12,
    FEMTO: -15,
    ATTO: -18,
  }),
)

export function openLines(api: IfcAPI, modelID: number): IfcLines {
  const lines: IfcLines = { api, modelID, classNames: new Map(), units: new Map() }
  lines.units = projectUnits(lines)
  return lines
}

/**
 * A typed value. Measures of a known kind (by their type, or `kind` for a quantity's) are
 * converted with `unitId`, the property's own unit, else with the project's; plain numbers and
 * derived measures keep their value and get no unit. A logical's .U. is 'unknown'.
 */
export function measure(
  lines: IfcLines,
  attribute: unknown,
  unitId?: number,
  kind?: string,
): Measured | undefined {
  if (typeof attribute !== 'object' || attribute === null || field(attribute, 'type') === 5) return undefined
  const value = field(attribute, 'value')
  const typeName = field(attribute, 'name')
  if (value === undefined || value === null) {
    return typeName === 'IFCLOGICAL' || typeName === 'IFCBOOLEAN' ? { value: 'unknown' } : undefined
  }
  if (typeof value === 'string' || typeof value === 'boolean') return { value }
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined
  const unitKind = kind ?? MEASURE_KINDS[String(typeName)]
  if (!unitKind) return { value }
  const own = unitId === undefined ? undefined : namedUnit(lines, unitId, 0)
  const unit = own?.kind === unitKind ? own : lines.units.get(unitKind)
  if (unit?.degrees) return { value, unit: '°' }
  const factor = unit?.factor ?? 1
  // 12 significant digits: 3000 mm is 3 m, not 2.9999999999999996.
  const converted = factor === 1 ? value : Number((value * factor).toPrecision(12))
  return { value: converted, unit: SI_SYMBOLS[unitKind] }
}

/**
 * One property or quantity. A bounded value becomes `Name.lower`, `Name.upper` (and IFC4's
 * `Name.setPoint`): numbers stay numbers, searchable with lt/gt, each with its unit.
 */
export function property(lines: IfcLines, id: number): Entry[] {
  const line = lineOf(lines, id)
  const name = text(field(line, 'Name'))
  if (!line || !name) return []
  const className = classOf(lines, line)
  const unit = reference(field(line, 'Unit'))
  const quantity = QUANTITIES[className]
  const one = (value: Measured | undefined): Entry[] => (value ? [{ name, ...value }] : [])
  if (quantity) return one(measure(lines, field(line, quantity[0]), unit, quantity[1]))
  if (className === 'IfcPropertySingleValue') return one(measure(lines, field(line, 'NominalValue'), unit))
  if (className === 'IfcPropertyEnumeratedValue') return one(joined(lines, field(line, 'EnumerationValues')))
  if (className === 'IfcPropertyListValue') return one(joined(lines, field(line, 'ListValues'), unit))
  if (className !== 'IfcPropertyBoundedValue') return []
  const bounds: [string, string][] = [
    ['lower', 'LowerBoundValue'],
    ['upper', 'UpperBoundValue'],
    ['setPoint', 'SetPointValue'],
  ]
  return bounds.flatMap(([suffix, key]) => {
    const value = measure(lines, field(line, key), unit)
    return value ? [{ name: `${name}.${suffix}`, ...value }] : []
  })
}

/** List and enumerated values as one text, "a, b"; with a unit when the items have one. */
function joined(lines: IfcLines, list: unknown, unit?: number): Measured | undefined {
  if (!Array.isArray(list)) return undefined
  const values = list.map((item) => measure(lines, item, unit)).filter((value) => value !== undefined)
  if (values.length === 0) return undefined
  return { value: values.map((item) => String(item.value)).join(', '), unit: values[0]?.unit }
}

/** A classification reference as [system, "Identification Name"] (IFC2x3: ItemReference). */
export function classification(lines: IfcLines, id: number): [string, string] | undefined {
  const line = lineOf(lines, id)
  if (!line || classOf(lines, line) !== 'IfcClassificationReference') return undefined
  const code = text(field(line, 'Identification')) ?? text(field(line, 'ItemReference'))
  const value = [code, text(field(line, 'Name'))].filter(Boolean).join(' ')
  return value ? [classificationSystem(lines, line) || 'Classification', value] : undefined
}

/** The name of the IfcClassification a reference's ReferencedSource chain (IFC4 nests them) ends at. */
function classificationSystem(lines: IfcLines, start: unknown): string | undefined {
  let source = start
  // Bounded: in a damaged file the chain may be a cycle.
  for (let depth = 0; depth < 8; depth++) {
    const next = lineOf(lines, reference(field(source, 'ReferencedSource')))
    const className = next ? classOf(lines, next) : undefined
    if (className !== 'IfcClassificationReference') {
      return className === 'IfcClassification' ? text(field(next, 'Name')) : undefined
    }
    source = next
  }
  return undefined
}

/** The project's units (IfcProject.UnitsInContext) by kind; a kind it leaves out is taken to be SI. */
function projectUnits(lines: IfcLines): Map<string, Unit> {
  const units = new Map<string, Unit>()
  const project = lineOf(lines, idsOfType(lines, IFCPROJECT)[0])
  const assignment = lineOf(lines, reference(field(project, 'UnitsInContext')))
  for (const id of references(field(assignment, 'Units'))) {
    const unit = namedUnit(lines, id, 0)
    if (unit && !units.has(unit.kind)) units.set(unit.kind, unit)
  }
  return units
}

/**
 * An IfcSIUnit (prefix × base: MILLI METRE is 0.001, GRAM 0.001 kg), or an IfcConversionBasedUnit
 * through its ConversionFactor (foot, inch, degree), whose own unit may be converted again.
 */
function namedUnit(lines: IfcLines, id: number, depth: number): Unit | undefined {
  const line = lineOf(lines, id)
  const kind = text(field(line, 'UnitType'))
  if (!line || !kind || depth > 4) return undefined
  const name = text(field(line, 'Name'))?.toUpperCase()
  if (classOf(lines, line) === 'IfcSIUnit') {
    const power = name === 'SQUARE_METRE' ? 2 : name === 'CUBIC_METRE' ? 3 : 1
    const prefix = SI_PREFIXES.get(text(field(line, 'Prefix')) ?? '') ?? 0
    return { kind, factor: 10 ** (prefix * power + (name === 'GRAM' ? -3 : 0)), degrees: false }
  }
  const conversion = lineOf(lines, reference(field(line, 'ConversionFactor')))
  const value = field(field(conversion, 'ValueComponent'), 'value')
  if (typeof value !== 'number' || !Number.isFinite(value) || value === 0) return undefined
  const base = namedUnit(lines, reference(field(conversion, 'UnitComponent')) ?? -1, depth + 1)
  const factor = value * (base?.factor ?? 1)
  // Some exporters write DEGREE with a factor of 1: the values are degrees all the same.
  const degree = name === 'DEGREE' || Math.abs(factor / (Math.PI / 180) - 1) < 1e-5
  return { kind, factor, degrees: kind === 'PLANEANGLEUNIT' && degree }
}

/** GetLine, or undefined for a missing line or one web-ifc cannot read: what needs it is skipped. */
export function lineOf(lines: IfcLines, id: number | undefined): Line | undefined {
  if (id === undefined) return undefined
  try {
    const line: unknown = lines.api.GetLine(lines.modelID, id, false)
    return typeof line === 'object' && line !== null ? (line as Line) : undefined
  } catch {
    return undefined
  }
}

/** `IfcWall`, as web-ifc spells its classes. */
export function classOf(lines: IfcLines, line: Line): string {
  const code = field(line, 'type')
  if (typeof code !== 'number') return ''
  let name = lines.classNames.get(code)
  if (name === undefined) {
    name = lines.api.GetNameFromTypeCode(code) ?? ''
    lines.classNames.set(code, name)
  }
  return name
}

/** The IDs copied out, and the wasm-side vector freed (embind does not collect it). */
export function idsOfType(lines: IfcLines, type: number): number[] {
  const vector = lines.api.GetLineIDsWithType(lines.modelID, type)
  const ids = [...vector]
  ;(vector as { delete?: () => void }).delete?.()
  return ids
}

export function field(line: unknown, key: string): unknown {
  return typeof line === 'object' && line !== null ? (line as Record<string, unknown>)[key] : undefined
}

export function text(attribute: unknown): string | undefined {
  const value = field(attribute, 'value')
  return typeof value === 'string' ? value : undefined
}

export function reference(attribute: unknown): number | undefined {
  const value = field(attribute, 'value')
  return field(attribute, 'type') === 5 && typeof value === 'number' ? value : undefined
}

export function references(attribute: unknown): number[] {
  return Array.isArray(attribute) ? attribute.map(reference).filter((id) => id !== undefined) : []
}
