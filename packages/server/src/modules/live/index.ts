// Live sessions on a file (docs/live.md): a WebSocket per participant, presence, cameras, selections,
// follow and change notices, relayed between server processes (bus.ts). The only door of the module.
export { subscribeLiveChanges } from './changes.ts'
export { liveRoutes } from './routes.ts'
export { liveSettings } from './settings.ts'
export { relayLiveOverIpc } from './sqlite/ipc.ts'
