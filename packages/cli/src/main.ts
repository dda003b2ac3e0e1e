// `tessera`: the client commands (login, upload, ls, download, props, search, find, bcf, listen,
// trigger, webhooks, link, licenses) talk to a running instance through @tessera/client; the
// server's admin commands are run by
// `tessera-server` from @tessera/server when it is installed (server-commands.ts).
import { readFileSync } from 'node:fs'
import { CLIENT_COMMAND_NAMES, runClientCommand } from './client-commands.ts'
import { runServerCommand, SERVER_COMMANDS, serverBin } from './server-commands.ts'

function version(): string {
  // dist/main.js and src/main.ts are both one folder below the package's root.
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return manifest.version
}

function usage(): string {
  const server = serverBin()
    ? 'installed here: run by tessera-server'
    : "NOT installed here: they come with @tessera/server (binary 'tessera-server'); run them where the server runs"
  return `Usage: tessera <command> [options]        (tessera --version, tessera <command> --help)

Client commands: talk to a running instance at --url or TESSERA_URL (default http://127.0.0.1:8080)
  login --username U            log in (the password is asked, or read from stdin); stores the token
  upload FILE... [--parent /dir] [--wait]
  ls [PATH] [--shared | --favourites] [--json]
  download ID [--optimized] [-o FILE]
  props FILE [NODE...]          the model's own properties of its nodes (IFC property sets, extras)
  search FILE EXPR...           the nodes matching every EXPR, e.g. 'IFC.class = IfcDoor'
  find EXPR...                  the files you may read with nodes matching every EXPR
  bcf export FILE [OUT] | bcf import FILE ZIP   annotations and saved views as BCF, out and in
  listen [--events e1,e2] [--forward-to URL]
  trigger EVENT [--listen]      a test delivery to your webhook for EVENT (or to 'tessera listen')
  webhooks ls | deliveries ID | retry ID DELIVERY | recover ID --since T
  link create|rotate|revoke|show FILE   share a file by link (owner)
  link live-meetings FILE on|off        let the link's visitors join live sessions, or not (owner)
  licenses                      the license pool and who holds it (admins; GET /admin/licenses)
upload, ls, download, props, search, find, bcf and link open a session (one license) for the run and end it
when they finish
(--keep-session leaves it open); the others need only the auth token and hold no license.

Server commands (${server}):
  serve [--no-workers] [--processes N|auto]   run the API server
  worker [--metrics-port P] [--only deliveries|conversions]
  migrate | backup --to DIR | restore --from DIR
  accounts create|list|disable|passwd|set-email   (tessera accounts --help)
  token sign --account A [--ttl 24h] | keys show
They open the database: run them where the server runs ('tessera serve --help' for its variables).`
}

export async function main(argv: string[]): Promise<number> {
  const [command] = argv
  if (command === '--version' || command === '-V' || command === 'version') {
    process.stdout.write(`${version()}\n`)
    return 0
  }
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${usage()}\n`)
    return command ? 0 : 2
  }
  if (CLIENT_COMMAND_NAMES.includes(command)) return runClientCommand(argv)
  if (SERVER_COMMANDS.includes(command)) return runServerCommand(argv)
  process.stderr.write(`tessera: unknown command ${command} (tessera --help lists them)\n`)
  return 2
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`tessera: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  },
)
