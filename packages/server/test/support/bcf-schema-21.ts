// BCF 2.1's XSDs as tables (buildingSMART/BCF-XML, branch release_2_1 = tag v2.1 in Schemas):
// markup.xsd, visinfo.xsd, project.xsd and version.xsd. 2.1 has no extensions.xml (project.bcfp
// points at an extensions.xsd that redefines the markup types) and no documents.xml. Strings are plain
// xs:string (3.0 made them NonEmptyOrBlankString), and the layout differs from 3.0; see the list in
// bcf-structure-21.ts.
import { attribute, complex, type ElementRule, element, list, optional, wrapper } from './bcf-xsd.ts'
import {
  double,
  enumeration,
  pattern,
  xsAnyUri,
  xsBoolean,
  xsDateTime,
  xsInt,
  xsString,
} from './bcf-xsd-types.ts'

// 2.1's Guid pattern accepts upper-case hex digits too.
export const guid21 = pattern(
  'Guid',
  /^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$/,
)
// The 2.1 pattern is `[0-9,A-Z,a-z,_$]*`: the commas are a slip in the schema, but a validating reader
// accepts them, so this does too.
const ifcGuid = pattern('IfcGuid', /^[0-9,A-Za-z_$]*$/, 22)
const s = xsString

// ---- markup.xsd: Header holds File elements directly (no Files wrapper); Comment and Viewpoints
// are children of Markup, after Topic; lists inside Topic are repeated elements, not wrappers.
const file = complex(
  'File',
  [optional('Filename', s), optional('Date', xsDateTime), optional('Reference', s)],
  [
    attribute('IfcProject', ifcGuid),
    attribute('IfcSpatialStructureElement', ifcGuid),
    attribute('isExternal', xsBoolean),
  ],
)
const viewPoint = complex(
  'ViewPoint',
  [optional('Viewpoint', s), optional('Snapshot', s), optional('Index', xsInt)],
  [attribute('Guid', guid21, true)],
)
const bimSnippet = complex(
  'BimSnippet',
  [element('Reference', s), element('ReferenceSchema', s)],
  [attribute('SnippetType', s, true), attribute('isExternal', xsBoolean)],
)
const documentReference = complex(
  'DocumentReference',
  [optional('ReferencedDocument', s), optional('Description', s)],
  [attribute('Guid', guid21), attribute('isExternal', xsBoolean)],
)
const guidReference = complex('GuidReference', [], [attribute('Guid', guid21, true)])
const comment = complex(
  'Comment',
  [
    element('Date', xsDateTime),
    element('Author', s),
    element('Comment', s), // required in 2.1, optional (if a Viewpoint is given) in 3.0
    optional('Viewpoint', guidReference),
    optional('ModifiedDate', xsDateTime),
    optional('ModifiedAuthor', s),
  ],
  [attribute('Guid', guid21, true)],
)
const topic = complex(
  'Topic',
  [
    list('ReferenceLink', s),
    element('Title', s),
    optional('Priority', s),
    optional('Index', xsInt),
    list('Labels', s),
    element('CreationDate', xsDateTime),
    element('CreationAuthor', s),
    optional('ModifiedDate', xsDateTime),
    optional('ModifiedAuthor', s),
    optional('DueDate', xsDateTime),
    optional('AssignedTo', s),
    optional('Stage', s),
    optional('Description', s),
    optional('BimSnippet', bimSnippet),
    list('DocumentReference', documentReference),
    list('RelatedTopic', guidReference),
  ],
  // TopicType and TopicStatus are optional in 2.1, required in 3.0.
  [attribute('Guid', guid21, true), attribute('TopicType', s), attribute('TopicStatus', s)],
)
export const markup21: ElementRule = element(
  'Markup',
  complex('Markup', [
    optional('Header', complex('Header', [list('File', file, 1)])),
    element('Topic', topic),
    list('Comment', comment),
    list('Viewpoints', viewPoint),
  ]),
)

// ---- visinfo.xsd: no AspectRatio; FieldOfView restricted to [45, 60]; both cameras optional (and
// not exclusive); ViewSetupHints sits in Components, whose Visibility is required; non-empty lists.
const xyz = (name: string) =>
  complex(name, [element('X', double()), element('Y', double()), element('Z', double())])
const point = xyz('Point')
const direction = xyz('Direction')
const cameraStart = [
  element('CameraViewPoint', point),
  element('CameraDirection', direction),
  element('CameraUpVector', direction),
]
const orthogonalCamera = complex('OrthogonalCamera', [...cameraStart, element('ViewToWorldScale', double())])
const perspectiveCamera = complex('PerspectiveCamera', [
  ...cameraStart,
  element('FieldOfView', double('FieldOfView', { from: 45, to: 60 })),
])
const component = complex(
  'Component',
  [optional('OriginatingSystem', s), optional('AuthoringToolId', s)],
  [attribute('IfcGuid', ifcGuid)],
)
const color = complex(
  'Color',
  [list('Component', component, 1)],
  [attribute('Color', pattern('Color', /^[0-9,A-F]{6}(?:[0-9,A-F]{2})?$/))],
)
const components = complex('Components', [
  optional(
    'ViewSetupHints',
    complex(
      'ViewSetupHints',
      [],
      [
        attribute('SpacesVisible', xsBoolean),
        attribute('SpaceBoundariesVisible', xsBoolean),
        attribute('OpeningsVisible', xsBoolean),
      ],
    ),
  ),
  optional('Selection', wrapper('ComponentSelection', 'Component', component, 1)),
  element(
    'Visibility',
    complex(
      'ComponentVisibility',
      [optional('Exceptions', wrapper('Exceptions', 'Component', component, 1))],
      [attribute('DefaultVisibility', xsBoolean)],
    ),
  ),
  optional('Coloring', wrapper('ComponentColoring', 'Color', color, 1)),
])
const bitmap = complex('Bitmap', [
  element('Bitmap', enumeration('BitmapFormat', ['PNG', 'JPG'])),
  element('Reference', s),
  element('Location', point),
  element('Normal', direction),
  element('Up', direction),
  element('Height', double()),
])
export const visualizationInfo21: ElementRule = element(
  'VisualizationInfo',
  complex(
    'VisualizationInfo',
    [
      optional('Components', components),
      optional('OrthogonalCamera', orthogonalCamera),
      optional('PerspectiveCamera', perspectiveCamera),
      optional(
        'Lines',
        wrapper(
          'Lines',
          'Line',
          complex('Line', [element('StartPoint', point), element('EndPoint', point)]),
          1,
        ),
      ),
      optional(
        'ClippingPlanes',
        wrapper(
          'ClippingPlanes',
          'ClippingPlane',
          complex('ClippingPlane', [element('Location', point), element('Direction', direction)]),
        ),
      ),
      list('Bitmap', bitmap),
    ],
    [attribute('Guid', guid21, true)],
  ),
)

// ---- project.xsd (root ProjectExtension, ExtensionSchema required) and version.xsd (VersionId optional).
export const projectExtension21: ElementRule = element(
  'ProjectExtension',
  complex('ProjectExtension', [
    optional('Project', complex('Project', [optional('Name', s)], [attribute('ProjectId', s, true)])),
    element('ExtensionSchema', xsAnyUri),
  ]),
)
export const version21: ElementRule = element(
  'Version',
  complex('Version', [optional('DetailedVersion', s)], [attribute('VersionId', s)]),
)
