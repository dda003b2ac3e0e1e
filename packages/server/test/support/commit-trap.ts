// A failure at COMMIT, for tests of what one transaction holds: once a request's Idempotency-Key
// answer is written (its key starting with TRAPPED_KEY_PREFIX), its transaction cannot commit.
// The answer's row inserts a reference to nothing into a table whose foreign key is checked only
// at commit (DEFERRABLE INITIALLY DEFERRED, on both dialects): every statement of the transaction
// succeeds, the answer included, and the COMMIT fails — as a crash just before the commit would
// leave things. A store outside the create's transaction (its own statement, committing alone)
// fails there instead, after the create has committed.
import { sql } from 'kysely'
import type { Db } from '../../src/platform/db/index.ts'

export const TRAPPED_KEY_PREFIX = 'trapped-at-commit-'

const TABLES = [
  'create table test_commit_guard (id text primary key)',
  'create table test_commit_trap (ref text references test_commit_guard (id) deferrable initially deferred)',
]

const SQLITE_TRIGGER = `
  create trigger test_commit_trap_on_answer after update of body on idempotency_keys
  when new.body is not null and new.key like '${TRAPPED_KEY_PREFIX}%'
  begin insert into test_commit_trap (ref) values ('nothing'); end`

const POSTGRES_TRIGGER = [
  `create function test_commit_trap_fn() returns trigger language plpgsql as $$
   begin insert into test_commit_trap (ref) values ('nothing'); return null; end $$`,
  `create trigger test_commit_trap_on_answer after update of body on idempotency_keys for each row
   when (new.body is not null and new.key like '${TRAPPED_KEY_PREFIX}%')
   execute function test_commit_trap_fn()`,
]

/** Sets the trap up in the database of `db` (for the rest of its life). */
export async function setCommitTrap(db: Db): Promise<void> {
  const triggers = db.dialect === 'postgres' ? POSTGRES_TRIGGER : [SQLITE_TRIGGER]
  for (const statement of [...TABLES, ...triggers]) await sql.raw(statement).execute(db.kysely)
}
