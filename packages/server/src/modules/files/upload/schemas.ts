// The upload route's documented body (upload/routes.ts).
import { Type } from 'typebox'

/** Documents the multipart body; the handler reads the stream itself (nothing is buffered). */
export const UploadBody = Type.Object({
  file: Type.String({ format: 'binary', description: 'the file; its name is the part filename' }),
  parent: Type.Optional(
    Type.String({ description: 'directory to upload into, default `/`; created implicitly' }),
  ),
})
