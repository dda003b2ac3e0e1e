// The live session route's schemas: the upgrade's path and its one success answer. What flows over
// the WebSocket is protocol.ts (hand-checked) and docs/live.md.
import { Type } from 'typebox'

export const FileParams = Type.Object({ fileId: Type.String({ maxLength: 64 }) })

export const LiveUpgradeResponse = Type.Null({ description: 'Switching Protocols: the WebSocket is open.' })
