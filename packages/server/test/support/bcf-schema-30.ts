// BCF 3.0's XSDs as tables (buildingSMART/BCF-XML, branch release_3_0, identical to tag v3.0 in the
// Schemas folder): shared-types.xsd, markup.xsd, visinfo.xsd, project.xsd, extensions.xsd,
// version.xsd and documents.xsd. Each `complex(...)` lists its xs:sequence in schema order; elements
// default to minOccurs=maxOccurs=1 as in XSD, `optional` is minOccurs=0 and
// `wrapper` a container of one unbounded list (Labels > Label).
import {
  attribute,
  choice,
  complex,
  type ElementRule,
  element,
  optional,
  type SimpleType,
  wrapper,
} from './bcf-xsd.ts'
import {
  double,
  enumeration,
  nonEmptyOrBlank,
  pattern,
  xsBoolean,
  xsDateTime,
  xsInt,
} from './bcf-xsd-types.ts'

// shared-types.xsd. Guid: lowercase only (2.1 also allowed A-F); the README adds "must be all-lowercase".
export const guid = pattern('Guid', /^[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$/)
const text: SimpleType = nonEmptyOrBlank

// markup.xsd IfcGuid and visinfo.xsd's IfcGuid attribute: 22 characters of IFC's base-64 alphabet.
const ifcGuid = pattern('IfcGuid', /^[0-9A-Za-z_$]*$/, 22)

// ---- markup.xsd
const file = complex(
  'File',
  [optional('Filename', text), optional('Date', xsDateTime), optional('Reference', text)],
  [
    attribute('IfcProject', ifcGuid),
    attribute('IfcSpatialStructureElement', ifcGuid),
    attribute('IsExternal', xsBoolean),
  ],
)
const header = complex('Header', [optional('Files', wrapper('Files', 'File', file))])
const viewPoint = complex(
  'ViewPoint',
  [optional('Viewpoint', text), optional('Snapshot', text), optional('Index', xsInt)],
  [attribute('Guid', guid, true)],
)
const bimSnippet = complex(
  'BimSnippet',
  [element('Reference', text), element('ReferenceSchema', text)],
  [attribute('SnippetType', text, true), attribute('IsExternal', xsBoolean)],
)
// The XSD's xs:choice holds two minOccurs=0 elements, so it would accept neither; the README says
// DocumentGuid and Url are each required unless the other is given, so one of them is required here.
const documentReference = complex(
  'DocumentReference',
  [choice(1, 1, element('DocumentGuid', guid), element('Url', text)), optional('Description', text)],
  [attribute('Guid', guid, true)],
)
const guidReference = complex('GuidReference', [], [attribute('Guid', guid, true)])
const comment = complex(
  'Comment',
  [
    element('Date', xsDateTime),
    element('Author', text),
    optional('Comment', text),
    optional('Viewpoint', guidReference),
    optional('ModifiedDate', xsDateTime),
    optional('ModifiedAuthor', text),
  ],
  [attribute('Guid', guid, true)],
)
const topic = complex(
  'Topic',
  [
    optional('ReferenceLinks', wrapper('ReferenceLinks', 'ReferenceLink', text)),
    element('Title', text),
    optional('Priority', text),
    optional('Index', xsInt), // deprecated in 3.0, still in the schema
    optional('Labels', wrapper('Labels', 'Label', text)),
    element('CreationDate', xsDateTime),
    element('CreationAuthor', text),
    optional('ModifiedDate', xsDateTime),
    optional('ModifiedAuthor', text),
    optional('DueDate', xsDateTime),
    optional('AssignedTo', text),
    optional('Stage', text),
    optional('Description', text),
    optional('BimSnippet', bimSnippet),
    optional('DocumentReferences', wrapper('DocumentReferences', 'DocumentReference', documentReference)),
    optional('RelatedTopics', wrapper('RelatedTopics', 'RelatedTopic', guidReference)),
    optional('Comments', wrapper('Comments', 'Comment', comment)),
    optional('Viewpoints', wrapper('Viewpoints', 'ViewPoint', viewPoint)),
  ],
  [
    attribute('Guid', guid, true),
    attribute('ServerAssignedId', text),
    attribute('TopicType', text, true),
    attribute('TopicStatus', text, true),
  ],
)
export const markup: ElementRule = element(
  'Markup',
  complex('Markup', [optional('Header', header), element('Topic', topic)]),
)

// ---- visinfo.xsd
const xyz = (name: string) =>
  complex(name, [element('X', double()), element('Y', double()), element('Z', double())])
const point = xyz('Point')
const direction = xyz('Direction')
const positiveDouble = double('PositiveDouble', { above: 0 })
const camera = (name: string, size: ElementRule) =>
  complex(name, [
    element('CameraViewPoint', point),
    element('CameraDirection', direction),
    element('CameraUpVector', direction),
    size,
    element('AspectRatio', positiveDouble),
  ])
// ViewToWorldScale: "view's visible vertical size in meters"; FieldOfView: vertical, in degrees, (0, 180).
const orthogonalCamera = camera('OrthogonalCamera', element('ViewToWorldScale', double()))
const perspectiveCamera = camera(
  'PerspectiveCamera',
  element('FieldOfView', double('FieldOfView', { above: 0, below: 180 })),
)
const component = complex(
  'Component',
  [optional('OriginatingSystem', text), optional('AuthoringToolId', text)],
  [attribute('IfcGuid', ifcGuid)],
)
const viewSetupHints = complex(
  'ViewSetupHints',
  [],
  [
    attribute('SpacesVisible', xsBoolean),
    attribute('SpaceBoundariesVisible', xsBoolean),
    attribute('OpeningsVisible', xsBoolean),
  ],
)
const visibility = complex(
  'ComponentVisibility',
  [
    optional('ViewSetupHints', viewSetupHints),
    optional('Exceptions', wrapper('Exceptions', 'Component', component)),
  ],
  [attribute('DefaultVisibility', xsBoolean)],
)
const color = complex(
  'Color',
  [element('Components', wrapper('Components', 'Component', component, 1))],
  [attribute('Color', pattern('Color', /^[0-9A-Fa-f]{6}(?:[0-9A-Fa-f]{2})?$/), true)],
)
const components = complex('Components', [
  optional('Selection', wrapper('ComponentSelection', 'Component', component)),
  optional('Visibility', visibility),
  optional('Coloring', wrapper('ComponentColoring', 'Color', color)),
])
const line = complex('Line', [element('StartPoint', point), element('EndPoint', point)])
const clippingPlane = complex('ClippingPlane', [element('Location', point), element('Direction', direction)])
const bitmap = complex('Bitmap', [
  element('Format', enumeration('BitmapFormat', ['png', 'jpg'])),
  element('Reference', text),
  element('Location', point),
  element('Normal', direction),
  element('Up', direction),
  element('Height', double()),
])
export const visualizationInfo: ElementRule = element(
  'VisualizationInfo',
  complex(
    'VisualizationInfo',
    [
      optional('Components', components),
      choice(
        1,
        1,
        element('OrthogonalCamera', orthogonalCamera),
        element('PerspectiveCamera', perspectiveCamera),
      ),
      optional('Lines', wrapper('Lines', 'Line', line)),
      optional('ClippingPlanes', wrapper('ClippingPlanes', 'ClippingPlane', clippingPlane)),
      optional('Bitmaps', wrapper('Bitmaps', 'Bitmap', bitmap)),
    ],
    [attribute('Guid', guid, true)],
  ),
)

// ---- project.xsd, extensions.xsd, version.xsd, documents.xsd
const project = complex('Project', [optional('Name', text)], [attribute('ProjectId', text, true)])
export const projectInfo: ElementRule = element(
  'ProjectInfo',
  complex('ProjectInfo', [element('Project', project)]),
)

/** extensions.xml's lists, in schema order: [list element, item element]. */
export const EXTENSION_LISTS = [
  ['TopicTypes', 'TopicType'],
  ['TopicStatuses', 'TopicStatus'],
  ['Priorities', 'Priority'],
  ['TopicLabels', 'TopicLabel'],
  ['Users', 'User'],
  ['SnippetTypes', 'SnippetType'],
  ['Stages', 'Stage'],
] as const
export const extensions: ElementRule = element(
  'Extensions',
  complex(
    'Extensions',
    EXTENSION_LISTS.map(([name, item]) => optional(name, wrapper(name, item, text))),
  ),
)

// version.xsd 3.0: only the required VersionId attribute (2.1's DetailedVersion element is gone).
export const version: ElementRule = element(
  'Version',
  complex('Version', [], [attribute('VersionId', text, true)]),
)

const documentType = complex(
  'Document',
  [element('Filename', text), optional('Description', text)],
  [attribute('Guid', guid, true)],
)
export const documentInfo: ElementRule = element(
  'DocumentInfo',
  complex('DocumentInfo', [optional('Documents', wrapper('Documents', 'Document', documentType))]),
)
