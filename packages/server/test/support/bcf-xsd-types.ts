// The XSD simple types BCF uses, as lexical-space checkers (see SimpleType in bcf-xsd.ts). Built-ins
// follow XML Schema 1.0 Part 2 (the version the BCF XSDs are written against): their whiteSpace facet
// is "collapse", so surrounding whitespace is allowed; xs:string-derived BCF types keep it ("preserve"),
// so a Guid with a trailing space does not match its pattern, exactly as a validating parser would say.
import type { SimpleType } from './bcf-xsd.ts'

const collapse = (value: string) => value.replace(/[\t\n\r ]+/g, ' ').trim()

const simple = (name: string, check: (value: string) => string | undefined): SimpleType => ({ name, check })

/** xs:string restricted by an (implicitly anchored) XSD pattern and optionally a length. */
export const pattern = (name: string, regex: RegExp, length?: number): SimpleType =>
  simple(name, (value) => {
    if (length !== undefined && value.length !== length)
      return `is not a valid ${name}: length must be ${length}`
    return regex.test(value) ? undefined : `is not a valid ${name}: must match ${regex.source}`
  })

export const enumeration = (name: string, values: readonly string[]): SimpleType =>
  simple(name, (value) =>
    values.includes(value) ? undefined : `is not a valid ${name}: one of ${values.join(', ')}`,
  )

export const xsString = simple('xs:string', () => undefined)

/**
 * xs:anyURI: XSD 1.0 maps the value through XLink's escaping before parsing it as a URI reference, so
 * practically any string is in its lexical space (a relative path such as `extensions.xsd` included).
 */
export const xsAnyUri = simple('xs:anyURI', () => undefined)

/** BCF 3.0 NonEmptyOrBlankString: xs:string, whiteSpace=collapse, minLength=1. */
export const nonEmptyOrBlank = simple('NonEmptyOrBlankString', (value) =>
  collapse(value).length >= 1 ? undefined : 'is empty or blank (NonEmptyOrBlankString)',
)

export const xsBoolean = simple('xs:boolean', (value) =>
  /^(?:true|false|1|0)$/.test(collapse(value)) ? undefined : 'is not an xs:boolean (true, false, 1, 0)',
)

export const xsInt = simple('xs:int', (value) => {
  const text = collapse(value)
  if (!/^[+-]?[0-9]+$/.test(text)) return 'is not an xs:int'
  const number = Number(text)
  return number >= -2147483648 && number <= 2147483647 ? undefined : 'is out of the xs:int range'
})

const DOUBLE = /^(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|-?INF|NaN)$/

/**
 * xs:double with optional bounds. INF and NaN are in xs:double's lexical space, but every BCF double is
 * a coordinate, vector component, angle, scale or ratio, for which they are meaningless: a writer that
 * produces them has a bug, so they are reported too.
 */
export const double = (
  name = 'xs:double',
  bounds: { above?: number; below?: number; from?: number; to?: number } = {},
) =>
  simple(name, (value) => {
    const text = collapse(value)
    if (!DOUBLE.test(text)) return `is not an ${name === 'xs:double' ? name : `xs:double (${name})`}`
    const number = Number(text.replace(/INF$/, 'Infinity'))
    if (!Number.isFinite(number)) return `is not a finite number (${name})`
    if (bounds.above !== undefined && !(number > bounds.above)) return `must be > ${bounds.above} (${name})`
    if (bounds.below !== undefined && !(number < bounds.below)) return `must be < ${bounds.below} (${name})`
    if (bounds.from !== undefined && !(number >= bounds.from)) return `must be >= ${bounds.from} (${name})`
    if (bounds.to !== undefined && !(number <= bounds.to)) return `must be <= ${bounds.to} (${name})`
    return undefined
  })

const DATE_TIME =
  /^-?([0-9]{4,})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(Z|[+-]([0-9]{2}):([0-9]{2}))?$/

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

type Fields = [number, number, number, number, number, number]

function dateTimeFields(match: RegExpExecArray): string | undefined {
  const yearText = match[1] ?? ''
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as Fields
  if (yearText.length > 4 && yearText.startsWith('0')) return 'year has a leading zero'
  if (year === 0) return 'year 0000 does not exist in XSD 1.0'
  if (month < 1 || month > 12) return 'month out of range'
  if (day < 1 || day > daysInMonth(year, month)) return 'day out of range'
  // 24:00:00 is XSD 1.0's other spelling of the next midnight.
  const midnight = hour === 24 && minute === 0 && second === 0 && !/[1-9]/.test(match[7] ?? '')
  if (hour > 23 && !midnight) return 'hour out of range'
  if (minute > 59 || second > 59) return 'minute or second out of range'
  const zoneHours = Number(match[9] ?? 0)
  const zoneMinutes = Number(match[10] ?? 0)
  if (zoneMinutes > 59 || zoneHours * 60 + zoneMinutes > 14 * 60) return 'zone offset out of range'
  return undefined
}

/**
 * xs:dateTime: `[-]YYYY-MM-DDThh:mm:ss[.fff][Z|±hh:mm]`. The BCF 3.0 README says the colon in a zone
 * offset is optional (`+0200`) and that a missing zone means UTC; the XSD type, which a validating
 * reader applies, requires the colon, so `+0200` is reported (with that hint).
 */
export const xsDateTime = simple('xs:dateTime', (value) => {
  const text = collapse(value)
  const match = DATE_TIME.exec(text)
  if (!match) {
    const hint = /[+-][0-9]{4}$/.test(text) ? ' (zone offset needs a colon, +hh:mm)' : ''
    return `is not an xs:dateTime${hint}`
  }
  const problem = dateTimeFields(match)
  return problem ? `is not an xs:dateTime: ${problem}` : undefined
})
