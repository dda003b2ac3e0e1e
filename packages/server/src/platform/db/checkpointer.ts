// SQLite WAL checkpoints on a thread of their own.
//
// In WAL mode every commit appends pages to the -wal file, and by default the committing
// connection copies them back into the database file (a checkpoint, with an fsync) each time the
// WAL passes 1000 pages: a pause of several milliseconds on the event loop, and on a busy server
// a fifth of each write's cost. Here the server's connection never checkpoints
// (wal_autocheckpoint = 0); a worker thread with its own connection runs PASSIVE checkpoints every
// CHECKPOINT_EVERY_MS, on the other core. PASSIVE never waits for or blocks a writer or a reader.
// A WAL that still grows past HARD_LIMIT_FRAMES (a checkpoint never catching up under a constant
// stream of writes, so the log is never rewound) gets a RESTART checkpoint, which waits briefly
// for the writer and rewinds the log. Should the thread fail, the connection goes back to
// checkpointing itself: the WAL never grows without bound. Nothing here touches durability:
// commits are exactly as durable as before (synchronous = NORMAL, WAL).
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type SqliteDatabase from 'better-sqlite3'

const CHECKPOINT_EVERY_MS = 100
/** 16,384 pages of 4 KiB: 64 MiB of WAL. */
const HARD_LIMIT_FRAMES = 16_384

// Plain CommonJS so that it runs from the sources (tsx) and from the build output alike.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.modulePath)
const db = new Database(workerData.file, { fileMustExist: true })
db.pragma('busy_timeout = 2000')
const checkpoint = () => {
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)')
    if (passive && passive.log > workerData.hardLimit) db.pragma('wal_checkpoint(RESTART)')
  } catch (error) {
    // SQLITE_BUSY from RESTART under load: the next round tries again.
    if (!(error && error.code === 'SQLITE_BUSY')) throw error
  }
}
const timer = setInterval(checkpoint, workerData.everyMs)
parentPort.on('message', () => {
  clearInterval(timer)
  checkpoint()
  db.close()
  parentPort.close()
})
`

export interface Checkpointer {
  /** Runs a last checkpoint and ends the thread. */
  stop(): Promise<void>
}

/** Moves `database`'s WAL checkpoints to a worker thread (see above). */
export function startCheckpointer(database: SqliteDatabase.Database, file: string): Checkpointer {
  const modulePath = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { modulePath, file, everyMs: CHECKPOINT_EVERY_MS, hardLimit: HARD_LIMIT_FRAMES },
  })
  // The thread must never keep a process alive that is otherwise done.
  worker.unref()
  database.pragma('wal_autocheckpoint = 0')
  let stopped = false
  const fallBack = () => {
    // The thread is gone: checkpoint on the connection again (the default), never let the WAL grow.
    if (database.open) database.pragma('wal_autocheckpoint = 1000')
  }
  worker.on('error', fallBack)
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      if (!stopped) fallBack()
      resolve()
    })
  })
  return {
    async stop() {
      if (stopped) return
      stopped = true
      // Referenced again, or a process with nothing else to do would exit before the thread ends.
      worker.ref()
      worker.postMessage('stop')
      await exited
    },
  }
}
