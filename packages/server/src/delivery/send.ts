// Sending one claimed delivery: the envelope, its headers and signatures, one attempt.

import type { Config } from '../platform/config.ts'
import { sendAttempt } from './attempt.ts'
import type { Job } from './hand-off-port.ts'
import type { Finished } from './record.ts'
import { signatureHeaders } from './signing.ts'

/**
 * The POST body: the envelope `{file, event, data, owner, runTimestamp, uuid}`, in that order. `data`
 * is stored as the JSON text JSON.stringify made of the event's data (events/outbox.ts), so it goes
 * in as it is instead of being parsed and serialised again for every attempt.
 */
export function envelopeBody(job: Job): string {
  const text = JSON.stringify
  return `{"file":${text(job.file_id)},"event":${text(job.event)},"data":${job.data},"owner":${text(job.owner_email)},"runTimestamp":${text(Number(job.run_timestamp))},"uuid":${text(job.uuid)}}`
}

/** POSTs `job` once; answers the attempt's result for recording. */
export async function sendJob(
  job: Job,
  config: Pick<Config, 'webhookTimeoutMs' | 'webhookAllowPrivateUrls'>,
): Promise<Finished> {
  const body = envelopeBody(job)
  const started = Date.now()
  const secrets = [job.secret]
  if (job.previous_secret && (job.previous_secret_expires_at ?? 0) > started)
    secrets.push(job.previous_secret)
  const result = await sendAttempt({
    url: job.url,
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-token': job.service_token,
      ...(job.is_test === 1 ? { 'x-service-test': '1' } : {}),
      ...signatureHeaders({ msgId: job.uuid, timestampSec: Math.floor(started / 1000), body, secrets }),
    },
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivateUrls,
  })
  return { job, started, result }
}
