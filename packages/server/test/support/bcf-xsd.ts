// A hand-written subset of XML Schema, enough for the BCF schemas: each complex type is a table of
// its xs:sequence (element name, type, minOccurs, maxOccurs, with xs:choice groups) and its attributes,
// and `validateElement` walks an element tree against it. Simple types are small checkers of the
// lexical space of the XSD built-ins BCF uses (xs:dateTime, xs:double, xs:boolean, xs:int) and of the
// BCF restrictions on them (patterns, ranges, enumerations). The tables live in bcf-schema-30.ts and
// bcf-schema-21.ts, each transcribed from buildingSMART's XSD files of that version.
import type { XmlElement } from './bcf-xml.ts'

/** An XSD simple type: `check` returns why a value is not in its lexical space, or undefined. */
export interface SimpleType {
  readonly name: string
  check(value: string): string | undefined
}

export interface AttributeRule {
  readonly name: string
  readonly type: SimpleType
  readonly required: boolean
}

export interface ElementRule {
  readonly name: string
  readonly type: SimpleType | ComplexType
  readonly min: number
  readonly max: number
}

/** An xs:choice inside a sequence: one of `options`, `min`..`max` times. */
export interface ChoiceRule {
  readonly choice: readonly ElementRule[]
  readonly min: number
  readonly max: number
}

export type Particle = ElementRule | ChoiceRule

export interface ComplexType {
  readonly name: string
  readonly sequence: readonly Particle[]
  readonly attributes: readonly AttributeRule[]
}

// Table builders: `element('Title', nonEmpty)` is minOccurs=1 maxOccurs=1 like the XSD default.
export const element = (name: string, type: SimpleType | ComplexType, min = 1, max = 1): ElementRule => ({
  name,
  type,
  min,
  max,
})
export const optional = (name: string, type: SimpleType | ComplexType): ElementRule => element(name, type, 0)
export const list = (name: string, type: SimpleType | ComplexType, min = 0): ElementRule =>
  element(name, type, min, Number.POSITIVE_INFINITY)
export const attribute = (name: string, type: SimpleType, required = false): AttributeRule => ({
  name,
  type,
  required,
})
export const complex = (
  name: string,
  sequence: readonly Particle[],
  attributes: readonly AttributeRule[] = [],
): ComplexType => ({ name, sequence, attributes })

export const choice = (min: number, max: number, ...options: ElementRule[]): ChoiceRule => ({
  choice: options,
  min,
  max,
})

/** A complex type with one list child, the BCF "wrapper" pattern (Labels > Label, Comments > Comment...). */
export const wrapper = (name: string, item: string, type: SimpleType | ComplexType, min = 0): ComplexType =>
  complex(name, [list(item, type, min)])

function isComplex(type: SimpleType | ComplexType): type is ComplexType {
  return 'sequence' in type
}

function isChoice(particle: Particle): particle is ChoiceRule {
  return 'choice' in particle
}

function particleNames(particle: Particle): string[] {
  return isChoice(particle) ? particle.choice.map((option) => option.name) : [particle.name]
}

function describe(particle: Particle): string {
  return particleNames(particle).join(' | ')
}

function ruleFor(particle: Particle, name: string): ElementRule | undefined {
  return isChoice(particle) ? particle.choice.find((option) => option.name === name) : particle
}

// Namespace declarations and xsi:schemaLocation-style hints are allowed on any element by XSD itself.
function isSchemaInstanceAttribute(name: string): boolean {
  return name === 'xmlns' || name.startsWith('xmlns:') || name.startsWith('xsi:')
}

function checkAttributes(node: XmlElement, attributes: readonly AttributeRule[], at: string, out: string[]) {
  if (node.attributes.has('xmlns')) {
    out.push(`${at}: declares a default namespace; the BCF schemas have no target namespace`)
  }
  for (const rule of attributes) {
    const value = node.attributes.get(rule.name)
    if (value === undefined) {
      if (rule.required) out.push(`${at}: missing required attribute ${rule.name}`)
      continue
    }
    const problem = rule.type.check(value)
    if (problem) out.push(`${at}/@${rule.name}: '${value}' ${problem}`)
  }
  for (const name of node.attributes.keys()) {
    if (isSchemaInstanceAttribute(name)) continue
    if (!attributes.some((rule) => rule.name === name)) out.push(`${at}: unknown attribute ${name}`)
  }
}

function checkMinimum(particle: Particle, count: number, at: string, out: string[]) {
  if (count < particle.min) {
    const what = describe(particle)
    out.push(
      particle.min === 1
        ? `${at}: missing required element ${what}`
        : `${at}: needs at least ${particle.min} ${what}, has ${count}`,
    )
  }
}

/**
 * Matches `children` against an xs:sequence, reporting missing, surplus, out-of-order and unknown
 * elements. The BCF sequences obey XSD's unique particle attribution, so taking each child by the
 * first particle at or after the current one that still accepts it is exact. To report one misplaced
 * element once (not every element after it), a child that would skip over particles whose elements
 * still follow is itself reported as out of order, and a required element reported out of order is
 * not also reported missing.
 */
class SequenceMatcher {
  position = 0
  count = 0
  readonly remaining = new Map<string, number>()
  readonly misplacedNames = new Set<string>()
  readonly matched: Array<[XmlElement, ElementRule, string]> = []
  readonly sequence: readonly Particle[]
  readonly at: string
  readonly out: string[]

  constructor(sequence: readonly Particle[], at: string, out: string[]) {
    this.sequence = sequence
    this.at = at
    this.out = out
  }

  accepts(index: number, name: string): boolean {
    const particle = this.sequence[index]
    if (!particle || index < this.position || !particleNames(particle).includes(name)) return false
    return index > this.position || this.count < particle.max
  }

  /** The first particle from `from` up to `to` (exclusive) of which an element still follows. */
  stillToCome(from: number, to: number): Particle | undefined {
    return this.sequence
      .slice(from, to)
      .find((particle) => particleNames(particle).some((name) => (this.remaining.get(name) ?? 0) > 0))
  }

  /** Reports particles from `from` up to `to` (exclusive) left below their minOccurs. */
  close(from: number, to: number) {
    this.sequence.slice(from, to).forEach((particle, offset) => {
      const count = from + offset === this.position ? this.count : 0
      if (particleNames(particle).some((name) => this.misplacedNames.has(name))) return
      checkMinimum(particle, count, this.at, this.out)
    })
  }

  misplaced(child: XmlElement, childAt: string) {
    const current = this.sequence[this.position]
    if (current && particleNames(current).includes(child.name)) {
      this.out.push(`${childAt}: too many ${describe(current)} (at most ${current.max})`)
    } else if (this.sequence.some((particle) => particleNames(particle).includes(child.name))) {
      this.misplacedNames.add(child.name)
      const next = current ? describe(current) : 'the end'
      this.out.push(`${childAt}: out of order, ${child.name} must come before ${next}`)
    } else {
      this.out.push(`${childAt}: unknown element ${child.name}`)
    }
  }

  take(child: XmlElement, childAt: string) {
    const found = this.sequence.findIndex((_, i) => this.accepts(i, child.name))
    if (found === -1) return this.misplaced(child, childAt)
    if (found > this.position) {
      const skipped = this.stillToCome(this.count > 0 ? this.position + 1 : this.position, found)
      if (skipped) {
        this.misplacedNames.add(child.name)
        this.out.push(`${childAt}: out of order, ${child.name} must come after ${describe(skipped)}`)
        return
      }
      this.close(this.position, found)
      this.position = found
      this.count = 0
    }
    this.count += 1
    const rule = ruleFor(this.sequence[found] as Particle, child.name)
    if (rule) this.matched.push([child, rule, childAt])
  }

  run(children: XmlElement[]) {
    for (const child of children) this.remaining.set(child.name, (this.remaining.get(child.name) ?? 0) + 1)
    const seen = new Map<string, number>()
    for (const child of children) {
      this.remaining.set(child.name, (this.remaining.get(child.name) ?? 1) - 1)
      const index = (seen.get(child.name) ?? 0) + 1
      seen.set(child.name, index)
      this.take(child, `${this.at}/${child.name}[${index}]`)
    }
    this.close(this.position, this.sequence.length)
    return this.matched
  }
}

/** Checks `node` (already known to be named `rule.name`) and its subtree against `rule.type`. */
export function validateElement(node: XmlElement, rule: ElementRule, at: string, out: string[]): void {
  const type = rule.type
  if (!isComplex(type)) {
    checkAttributes(node, [], at, out)
    for (const child of node.children) out.push(`${at}: unexpected element ${child.name} in a ${type.name}`)
    const problem = type.check(node.text)
    if (problem) out.push(`${at}: '${node.text}' ${problem}`)
    return
  }
  checkAttributes(node, type.attributes, at, out)
  if (node.text.trim() !== '') out.push(`${at}: unexpected text '${node.text.trim()}' (element-only content)`)
  const matcher = new SequenceMatcher(type.sequence, at, out)
  for (const [child, childRule, childAt] of matcher.run(node.children)) {
    validateElement(child, childRule, childAt, out)
  }
}
