// Reading one XML file of a BCF archive into a small element tree for the schema walker in bcf-xsd.ts.
// fast-xml-parser (preserveOrder, so the order of child elements survives) does the tokenising; what
// it lets through is checked here: the bytes must be UTF-8 (the BCF schemas' files all declare it), the
// document must have exactly one root element, and every entity reference must be one of XML's five
// predefined ones or a character reference (no DTD is allowed to define others).
import { XMLParser, XMLValidator } from 'fast-xml-parser'

/** An element: its attributes in document order and its child elements; `text` joins its text. */
export interface XmlElement {
  name: string
  attributes: Map<string, string>
  children: XmlElement[]
  text: string
}

// Entities are decoded here rather than by the parser: it would leave character references like
// `&#65;` undecoded, and decoding them afterwards would double-decode `&amp;#65;`.
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  cdataPropName: '#cdata',
})

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }
const REFERENCE = /&(#x[0-9A-Fa-f]+|#[0-9]+|[A-Za-z_][\w.-]*);/g

function decodeReferences(raw: string): string {
  return raw.replace(REFERENCE, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16))
    if (ref.startsWith('#')) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10))
    return PREDEFINED[ref] ?? whole
  })
}

/** Text outside comments and CDATA sections, where `&` always starts a reference. */
function markupText(xml: string): string {
  return xml.replace(/<!--[\s\S]*?-->/g, '').replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '')
}

function checkReferences(xml: string): string | undefined {
  const text = markupText(xml)
  const bare = /&(?!(?:#x[0-9A-Fa-f]+|#[0-9]+|lt|gt|amp|quot|apos);)([^\s;<]{0,20};?)/.exec(text)
  return bare ? `undefined entity or bare '&' at '&${bare[1] ?? ''}'` : undefined
}

/** The bytes as text, or a problem: not UTF-8, or a declaration naming another encoding. */
function decodeUtf8(bytes: Uint8Array): { text: string } | { problem: string } {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { problem: 'is UTF-16 (byte order mark); BCF files are UTF-8' }
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return { problem: 'is not valid UTF-8' }
  }
  const declared = /^<\?xml[^>]*?\bencoding\s*=\s*["']([^"']+)["']/.exec(text)?.[1]
  if (declared !== undefined && declared.toLowerCase() !== 'utf-8') {
    return { problem: `declares encoding '${declared}'; BCF files are UTF-8` }
  }
  return { text }
}

type OrderedNode = Record<string, unknown>

function isNode(value: unknown): value is OrderedNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function nodeName(node: OrderedNode): string | undefined {
  return Object.keys(node).find((key) => key !== ':@')
}

function toElement(name: string, node: OrderedNode): XmlElement {
  const attributes = new Map<string, string>()
  const rawAttributes = node[':@']
  if (isNode(rawAttributes)) {
    for (const [key, value] of Object.entries(rawAttributes)) {
      // XML attribute-value normalisation: literal tabs and line breaks read as spaces.
      attributes.set(key, decodeReferences(String(value).replace(/[\t\n\r]/g, ' ')))
    }
  }
  const element: XmlElement = { name, attributes, children: [], text: '' }
  const content = node[name]
  for (const child of Array.isArray(content) ? content : []) {
    if (!isNode(child)) continue
    const childName = nodeName(child)
    if (childName === '#text') element.text += decodeReferences(String(child[childName]))
    else if (childName === '#cdata') element.text += cdataText(child[childName])
    else if (childName !== undefined && !childName.startsWith('?')) {
      element.children.push(toElement(childName, child))
    }
  }
  return element
}

function cdataText(value: unknown): string {
  if (!Array.isArray(value)) return String(value)
  return value.map((part) => (isNode(part) ? String(part['#text'] ?? '') : '')).join('')
}

/**
 * Parses `bytes` as one BCF XML document. Returns the root element, or undefined after adding to
 * `problems` (each prefixed with `file`) why the file cannot be read as well-formed UTF-8 XML.
 */
export function parseXml(file: string, bytes: Uint8Array, problems: string[]): XmlElement | undefined {
  const decoded = decodeUtf8(bytes)
  if ('problem' in decoded) {
    problems.push(`${file}: ${decoded.problem}`)
    return undefined
  }
  const xml = decoded.text.replace(/^\uFEFF/, '')
  if (/<!DOCTYPE/i.test(xml)) {
    problems.push(`${file}: has a DOCTYPE; BCF files are plain schema-validated XML`)
    return undefined
  }
  const valid = XMLValidator.validate(xml)
  if (valid !== true) {
    problems.push(`${file}: not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`)
    return undefined
  }
  const badReference = checkReferences(xml)
  if (badReference) problems.push(`${file}: not well-formed XML: ${badReference}`)
  const parsed: unknown = parser.parse(xml)
  const top = (Array.isArray(parsed) ? parsed : []).filter(isNode)
  const roots = top.flatMap((node) => {
    const name = nodeName(node)
    return name === undefined || name.startsWith('?') || name === '#text' ? [] : [toElement(name, node)]
  })
  const strayText = top.some((node) => nodeName(node) === '#text' && String(node['#text']).trim() !== '')
  if (roots.length !== 1 || strayText) {
    problems.push(`${file}: not well-formed XML: expected one root element, found ${roots.length}`)
    return undefined
  }
  return roots[0]
}
