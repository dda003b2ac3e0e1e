// Help text of the client commands (`tessera <command> --help`).
const URL_LINE = '  --url URL        the instance (default: TESSERA_URL, else http://127.0.0.1:8080)'
const AUTH_LINE = `  --keep-session   leave the session open at exit (it keeps its license until it expires)
Uses the token stored by \`tessera login\` for that URL, or TESSERA_USERNAME/TESSERA_PASSWORD. Opens a
session for the run (takes one license; says so when it takes over your other session) and ends it
when the command ends, so the license is free at once.`
const TOKEN_LINE = `Uses the token stored by \`tessera login\` for that URL, or TESSERA_USERNAME/TESSERA_PASSWORD.
Needs only the auth token: opens no session, takes no license, leaves your other session alone.`

export const HELP: Record<string, string> = {
  login: `Usage: tessera login --username U [--url URL]

Logs in and stores the auth token in $XDG_CONFIG_HOME/tessera/credentials.json (default
~/.config/tessera/; directory 0700, file 0600). The password is asked on a terminal, else read from
the first line of stdin, or taken from TESSERA_PASSWORD; never an argument. Opens no session: a
login takes no license and leaves your other session (a backend's, a browser's) alone.
  -u, --username U  username or e-mail (default: TESSERA_USERNAME)
${URL_LINE}`,
  upload: `Usage: tessera upload FILE... [--parent /dir] [--wait] [--keep-session] [--url URL]

Uploads each file (a new revision when the path exists) with a progress bar for the bytes, then, with
--wait, for the conversion. Plain lines when stdout is not a terminal. Exit 1 if an upload or a
conversion failed (its reason is printed).
  --parent /dir    directory to upload into (default /)
  --wait           wait for each conversion to end
${URL_LINE}
${AUTH_LINE}`,
  ls: `Usage: tessera ls [PATH] [--shared | --favourites] [--json] [--keep-session] [--url URL]

Lists a directory (default /), every page: its sub-folders first (how many files each holds,
then its path), then its files: ID, state, size, last update, path.
  --shared         the files other accounts shared with you
  --favourites     the files you starred (yours and shared ones), in file ID order
  --json           the file records as JSON
${URL_LINE}
${AUTH_LINE}`,
  download: `Usage: tessera download ID [--optimized] [-o FILE] [--keep-session] [--url URL]

Downloads a file's original bytes, or with --optimized its GLB.
  --optimized      the optimized GLB (409 NOT_READY until converted)
  -o, --output F   where to write (default: the file's name, .glb with --optimized); - for stdout
${URL_LINE}
${AUTH_LINE}`,
  props: `Usage: tessera props FILE [NODE...] [--json] [--keep-session] [--url URL]

The model's own properties of FILE's nodes, as its conversion read them (IFC property sets and
quantities, materials, classification; glTF extras; mesh and material names; read-only): each
node's ID and name, then each group and under it 'name: value unit'. With NODEs (IDs from the scene
tree), those nodes, in that order; without, every node that has properties, in node ID order.
  --json           the answer as JSON: {"nodeIdToProperties": {…}, "units": {group: {name: unit}}}
${URL_LINE}
${AUTH_LINE}`,
  search: `Usage: tessera search FILE EXPR... [--json] [--keep-session] [--url URL]

Prints the nodes of FILE for which every EXPR holds (1 to 16), one per line (ID, then name), in
node ID order, every page; how many matched goes to stderr. No match is no failure (exit 0).
  --json           {"nodes": [node IDs], "total": N}
${URL_LINE}
${AUTH_LINE}

Each EXPR is one argument (quote it for the shell); a bad one is a usage error (exit 2):
  EXPR   = LEFT OP VALUE | LEFT exists
  LEFT   = GROUP.PROPERTY       a property: split at the first '.', so the property may hold dots
         | name                 the node's name (no dot); takes = != ~ only
  GROUP, PROPERTY: bare (spaces around are dropped; a bare group holds no '.'; neither holds a
         quote or = ! < > ~) or "double-quoted" (anything; \\" and \\\\ escape)
  OP     = '=' equal, '!=' has it with another value, '~' contains, '<' '<=' '>' '>=' numbers,
           'exists' has the property (no value)
  VALUE  = the rest, spaces around dropped. Bare: a finite number (4.5, -2, 1e3) is a number, true
         and false are booleans, else text; < <= > >= need a number; ~ and name always take text.
         "Quoted": always text ("60"). A bare value may not start with = ! < > ~ (quote it).
Text compares without regard to case. Examples:
  tessera search FILE 'IFC.class = IfcWall' 'Pset_WallCommon.FireRating = REI60'
  tessera search FILE 'Qto_WallBaseQuantities.Length > 4.5' 'Pset_WallCommon.IsExternal exists'
  tessera search FILE '"Pset Name"."Prop name" ~ fire' 'name ~ Door'`,
  find: `Usage: tessera find EXPR... [--json] [--keep-session] [--url URL]

Prints the files you may read (your own and those shared with you) that hold nodes for which every
EXPR holds (1 to 16), one per line: the file's ID, how many nodes match, its path, and your role
when someone else owns it; in file ID order, every page. How many matched goes to stderr. No match
is no failure (exit 0). EXPR is as for 'tessera search' (tessera search --help).
  --json           {"files": [{"file", "name", "parent", "role", "matches"}]}
${URL_LINE}
${AUTH_LINE}

Example: the models with doors rated EI30, and how many doors each
  tessera find 'IFC.class = IfcDoor' 'Pset_DoorCommon.FireRating = EI30'`,
  bcf: `Usage: tessera bcf export FILE [OUT] [--keep-session] [--url URL]
       tessera bcf import FILE ZIP [--json] [--keep-session] [--url URL]

BCF (buildingSMART's BIM Collaboration Format), for issue trackers and other BIM tools. FILE is a
file ID.
  export FILE [OUT]   FILE's annotations and saved views, as you may see them, as a BCF 3.0 .bcfzip;
                      written to OUT (a directory: the file's name in it), else to the file's name
                      with .bcfzip (house.ifc → house.bcfzip) here; - writes to stdout
  import FILE ZIP     a BCF 2.1 or 3.0 .bcfzip (at most 32 MiB; - reads stdin) into FILE's
                      annotations, replies and saved views (owner or editor); prints what it did:
                      topics → annotations, saved views, comments added, topics unchanged (held
                      already), GlobalIds the model does not have (the first 5), notes on what was
                      left out. Importing the same file again adds nothing.
  --json              import: the report as JSON ({version, topics, annotations: [IDs],
                      configurations: [IDs], comments, unchanged, unknownComponents, notes})
Exit 1 when the server refuses: BCF_INVALID (not a readable BCF), PAYLOAD_TOO_LARGE, FORBIDDEN (a
viewer importing), NOT_FOUND.
${URL_LINE}
${AUTH_LINE}`,
  listen: `Usage: tessera listen [--events e1,e2] [--forward-to URL] [--url URL]

Prints one line per event as it commits (time, event, file, uuid), from GET /events/stream. With
--forward-to, POSTs each envelope byte for byte to URL with Standard Webhooks headers, signed with a
secret printed at start (verify with verifyWebhook from @tessera/client/webhooks), and prints the
answer's status and time. Reconnects with Last-Event-ID, so nothing is missed. Ctrl-C stops.
  --events e1,e2   only these events (default: all)
  --forward-to URL the local receiver
${URL_LINE}
${TOKEN_LINE}`,
  trigger: `Usage: tessera trigger EVENT [--url URL]

Sends a sample EVENT (the contract's sample, about a made-up file) to your own event stream
(POST /events/test): every running 'tessera listen' of yours prints it and forwards it. When you
have a webhook for EVENT, also queues a test delivery to it (POST /webhook/:id/test, header
x-service-test: 1). No webhook is no failure.
${URL_LINE}
${TOKEN_LINE}`,
  webhooks: `Usage: tessera webhooks <action> [--url URL]

  ls [--json]                           your webhooks: ID, event, enabled or disabled:REASON, URL
  deliveries ID [--status S] [--limit N] [--cursor C] [--json]
                                        a page of the delivery log, newest first; the
                                        next page's command is printed on stderr
  retry ID DELIVERY                     make one delivery due now
  recover ID --since T                  failed and paused deliveries since T (ISO) are due now
${URL_LINE}
${TOKEN_LINE}`,
  link: `Usage: tessera link <action> FILE [--url URL]

  create FILE [--expires ISO] [--password] [--json]
                                        share FILE by link (you must own it); prints the link
                                        (<url>/#/link/<token>): it is shown only now. --password
                                        asks a password (terminal, else stdin's first line)
  rotate FILE [--json]                  a new link, same expiry and password; the old one stops
  revoke FILE                           the link stops opening; its guests are cut off
  show FILE [--json]                    the link's settings (never the link itself)
  live-meetings FILE on|off             whether the link's visitors may join the file's live
                                        sessions (off at first); off closes those in one now
Takes a session (one license) for the run.
${URL_LINE}
${TOKEN_LINE}`,
  licenses: `Usage: tessera licenses [--json] [--url URL]

The license pool as the server sees it (GET /admin/licenses; admins only): licenses in use, and who
holds them since when and until when. Works when every license is in use.
${URL_LINE}
${TOKEN_LINE}`,
}
