// The client commands' names, apart from their code (client-commands.ts), so that `tessera` can
// route to them without loading the SDK for every other command.
export const CLIENT_COMMANDS: readonly string[] = [
  'login',
  'upload',
  'ls',
  'download',
  'listen',
  'trigger',
  'webhooks',
]
