import { Type } from 'typebox'

export const FileParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

/** A node of a file's scene tree; `children` nest the same shape. */
const SceneNode = Type.Cyclic(
  {
    SceneNode: Type.Object({
      id: Type.String({ description: 'stable node ID: what POST /scene/attributes accepts' }),
      name: Type.String(),
      children: Type.Array(Type.Ref('SceneNode')),
    }),
  },
  'SceneNode',
)

export const SceneTreeAnswer = Type.Object({
  success: Type.Literal(true),
  tree: Type.Array(SceneNode, { description: "the scene's root nodes" }),
})
