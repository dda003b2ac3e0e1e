// XML in and out, through fast-xml-parser. Reading refuses what BCF never needs and an attacker
// would: a DOCTYPE (entities, external or expanding ones), nesting past BCF_MAX_XML_DEPTH, text that
// is not UTF-8, a document that is not well-formed. Every element is read as an array (the parser's
// `isArray`), so one and many look alike; `first`, `all`, `text` and `attr` walk the result.
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser'
import { AppError } from '../../platform/errors.ts'
import { BCF_MAX_XML_DEPTH } from './limits.ts'

/** An element as the parser gives it: children by name (arrays), `@_name` attributes, `#text`. */
export type XmlElement = { [key: string]: unknown }

const ATTRIBUTE = '@_'

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  htmlEntities: true,
  maxNestedTags: BCF_MAX_XML_DEPTH,
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
})

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE,
  format: true,
  suppressEmptyNode: true,
  // DefaultVisibility="true" is written whole, never as a bare attribute (not XML).
  suppressBooleanAttributes: false,
})

function invalid(what: string, why: string): AppError {
  return new AppError('BCF_INVALID', `${what}: ${why}`)
}

/** The document in `bytes` (the file `what`), its root element by name. */
export function parseXml(bytes: Uint8Array, what: string): XmlElement {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    throw invalid(what, 'the file is not UTF-8 text')
  }
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw invalid(what, 'a DOCTYPE or ENTITY declaration is not accepted')
  const valid = XMLValidator.validate(text)
  if (valid !== true) throw invalid(what, `not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`)
  try {
    return parser.parse(text) as XmlElement
  } catch (error) {
    throw invalid(what, (error as Error).message)
  }
}

const asElement = (value: unknown): XmlElement =>
  typeof value === 'object' && value !== null ? (value as XmlElement) : { '#text': String(value ?? '') }

/** Every child element `name` of `element`. */
export function all(element: XmlElement | undefined, name: string): XmlElement[] {
  const value = element?.[name]
  return Array.isArray(value) ? value.map(asElement) : []
}

/** The first child element `name`, if any. */
export function first(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return all(element, name)[0]
}

/** The text of the first child element `name` (undefined when absent). */
export function text(element: XmlElement | undefined, name: string): string | undefined {
  const child = first(element, name)
  if (!child) return undefined
  const value = child['#text']
  return typeof value === 'string' ? value : ''
}

export function attr(element: XmlElement | undefined, name: string): string | undefined {
  const value = element?.[`${ATTRIBUTE}${name}`]
  return typeof value === 'string' ? value : undefined
}

/** Whether XML 1.0 can hold the code point (its Char production: no C0 controls but tab, newline and
 * return, no lone surrogates, no U+FFFE or U+FFFF). */
function isXmlChar(code: number): boolean {
  if (code < 0x20) return code === 0x9 || code === 0xa || code === 0xd
  return code <= 0xd7ff || (code >= 0xe000 && code <= 0xfffd) || code >= 0x10000
}

/** `value` without the characters XML cannot hold: an annotation may hold them, a BCF file may not. */
export function xmlText(value: string): string {
  let out = ''
  for (const char of value) if (isXmlChar(char.codePointAt(0) ?? 0)) out += char
  return out
}

/** A UTF-8 XML document of `root` (element names as keys, in order; `@_name` for attributes). */
export function buildXml(root: XmlElement): Uint8Array {
  return new TextEncoder().encode(`<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(root)}`)
}
