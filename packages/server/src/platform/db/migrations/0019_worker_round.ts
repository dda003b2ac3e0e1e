import { type Migration, PostgresAdapter, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// PostgreSQL: a delivery worker's common round as one statement, one round trip where it took five
// (begin, record + claim lock, webhooks with pending deliveries, lease per webhook, commit). It does
// what delivery/record.ts (a batch of successes) and delivery/claim.ts (claimDue) do, in the same
// order and under the same claim lock, and is called outside any transaction, so its own commit
// ends the round (delivery/store-round.ts, which documents the answer). Expired leases are left to
// claimDue: the function answers `expired` and takes nothing. Replacing this function later takes a
// new migration (`create or replace`), never an edit of this one.
export const migration: Migration = {
  async up(db: AnyDb) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
    await sql`
      create or replace function tessera_worker_round(
        p_attempts json, p_ids text[], p_hooks text[], p_worker text, p_now bigint,
        p_expires bigint, p_limit int, p_max int
      ) returns json language plpgsql as $$
      declare
        v_settled text[] := '{}';
        v_jobs jsonb := '[]';
        v_batch jsonb;
        v_n int;
        v_taken int := 0;
        v_take int;
        v_free int;
        v_later bigint;
        v_next bigint;
        v_lease_next bigint;
        v_blocked boolean := false;
        v_saturated boolean := false;
        h record;
      begin
        -- A lost round only repeats attempts (at-least-once): its commit need not wait for the flush.
        perform set_config('synchronous_commit', 'off', true);
        if cardinality(p_ids) > 0 then
          insert into delivery_attempts
            select * from json_populate_recordset(null::delivery_attempts, p_attempts);
          with settled as (
            update deliveries set status = 'succeeded', attempts = attempts + 1,
              next_attempt_at = p_now, leased_by = null, lease_expires_at = null,
              last_status_code = 200, last_error_code = null, updated_at = p_now, completed_at = p_now
            where id = any(p_ids) and leased_by = p_worker and status = 'delivering'
            returning id)
          select coalesce(array_agg(id), '{}') into v_settled from settled;
          update webhooks set failing_since = null where id = any(p_hooks) and failing_since is not null;
        end if;
        if p_limit <= 0 then
          return json_build_object('settled', v_settled);
        end if;
        perform pg_advisory_xact_lock(hashtext('tessera.webhook-claim'));
        select min(lease_expires_at) into v_lease_next from deliveries where status = 'delivering';
        if v_lease_next <= p_now then
          return json_build_object('settled', v_settled, 'expired', true);
        end if;
        v_next := v_lease_next;
        for h in
          with recursive hooks(id) as (
            select (select webhook_id from deliveries where status = 'pending' order by webhook_id limit 1)
            union all
            select (select d.webhook_id from deliveries d
                    where d.status = 'pending' and d.webhook_id > hooks.id order by d.webhook_id limit 1)
            from hooks where hooks.id is not null)
          select hooks.id,
            (select min(d.next_attempt_at) from deliveries d
             where d.status = 'pending' and d.webhook_id = hooks.id) as next_at,
            (select count(*) from deliveries d
             where d.status = 'delivering' and d.webhook_id = hooks.id and d.lease_expires_at > p_now) as busy
          from hooks where hooks.id is not null
          order by next_at, id
        loop
          if h.next_at > p_now then
            v_next := least(v_next, h.next_at);
            continue;
          end if;
          v_free := p_max - h.busy;
          if v_free <= 0 then
            v_saturated := true;
            continue;
          end if;
          if v_taken >= p_limit then
            v_blocked := true;
            continue;
          end if;
          v_take := least(v_free, p_limit - v_taken);
          with leased as (
            update deliveries d set status = 'delivering', leased_by = p_worker,
              lease_expires_at = p_expires, updated_at = p_now
            from webhooks w, events e
            where d.id in (select p.id from deliveries p
                where p.status = 'pending' and p.webhook_id = h.id and p.next_attempt_at <= p_now
                order by p.next_attempt_at limit v_take for update skip locked)
              and w.id = d.webhook_id and e.id = d.event_id
            returning d.id, d.uuid, d.attempts, d.owner_email, d.webhook_id, d.next_attempt_at,
              d.is_test, w.url, w.secret, w.service_token, w.previous_secret,
              w.previous_secret_expires_at, w.disabled as webhook_disabled,
              e.created_at as event_created_at, e.file_id, e.event, e.data, e.run_timestamp)
          select coalesce(jsonb_agg(to_jsonb(leased) order by next_attempt_at, id), '[]'), count(*)
            into v_batch, v_n from leased;
          v_jobs := v_jobs || v_batch;
          v_taken := v_taken + v_n;
          select min(x.next_attempt_at) into v_later from deliveries x
            where x.status = 'pending' and x.webhook_id = h.id and x.next_attempt_at > p_now;
          v_next := least(v_next, v_later);
          if v_n = v_take then
            if v_take < v_free then v_blocked := true; else v_saturated := true; end if;
          end if;
        end loop;
        return json_build_object('settled', v_settled, 'jobs', v_jobs,
          'more', v_blocked and v_taken >= p_limit, 'saturated', v_saturated, 'next', v_next);
      end $$`.execute(db)
  },
}
