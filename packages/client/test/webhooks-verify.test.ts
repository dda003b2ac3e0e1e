// The verifier against vectors made by the `standardwebhooks` library, and x-service-token checks.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { tokenCacheSize, verifyWebhook, WebhookVerificationError } from '@tessera/client/webhooks'
import bcrypt from 'bcryptjs'
import { Webhook } from 'standardwebhooks'

const SECRET = 'k7Qx-9vR2mWp4ZtL8bNc'
const OLD_SECRET = 'Zp3v-Q8rT1yLw6KmN2xB'
const NOW = 1_795_462_001
const ID = '2b156a29-49ee-4977-96ea-c3b1e7ec60c0'
const BODY = JSON.stringify({
  file: '6b04936d09cfe305abc293ec',
  event: 'attribute_updated',
  data: { user: { email: 'a@example.com' }, nodeIdToAttributes: { n1: { status: 'approved' } } },
  owner: 'a@example.com',
  runTimestamp: NOW * 1000,
  uuid: ID,
})

/** What Tessera sends: the library keyed with the secret's UTF-8 bytes (docs/webhooks.md). */
function sign(secret: string, body = BODY, at = NOW): string {
  const signer = new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`)
  return signer.sign(ID, new Date(at * 1000), body)
}

function headers(signature: string, at = NOW): Record<string, string> {
  return { 'webhook-id': ID, 'webhook-timestamp': String(at), 'webhook-signature': signature }
}

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, String(error))
    return error.reason
  }
  return 'verified'
}

describe('Standard Webhooks signature', () => {
  test('a signature by the library verifies and answers the typed envelope', async () => {
    const envelope = await verifyWebhook({
      headers: headers(sign(SECRET)),
      body: BODY,
      secret: SECRET,
      now: NOW,
    })
    assert.equal(envelope.event, 'attribute_updated')
    if (envelope.event === 'attribute_updated')
      assert.deepEqual(envelope.data.nodeIdToAttributes.n1, { status: 'approved' })
    // Fetch Headers and bytes work too; the library itself agrees with the vector.
    const viaHeaders = await verifyWebhook({
      headers: new Headers(headers(sign(SECRET))),
      body: new TextEncoder().encode(BODY),
      secret: SECRET,
      now: NOW,
    })
    assert.equal(viaHeaders.uuid, ID)
  })

  test('tampered body, wrong secret, tampered id: bad_signature', async () => {
    const signature = sign(SECRET)
    assert.equal(
      await reason(
        verifyWebhook({
          headers: headers(signature),
          body: BODY.replace('approved', 'rejected'),
          secret: SECRET,
          now: NOW,
        }),
      ),
      'bad_signature',
    )
    assert.equal(
      await reason(verifyWebhook({ headers: headers(signature), body: BODY, secret: OLD_SECRET, now: NOW })),
      'bad_signature',
    )
    const otherId = { ...headers(signature), 'webhook-id': 'x' }
    assert.equal(
      await reason(verifyWebhook({ headers: otherId, body: BODY, secret: SECRET, now: NOW })),
      'bad_signature',
    )
  })

  test('a timestamp changed after signing fails; old and future timestamps are refused', async () => {
    const signature = sign(SECRET)
    assert.equal(
      await reason(
        verifyWebhook({ headers: headers(signature, NOW + 1), body: BODY, secret: SECRET, now: NOW }),
      ),
      'bad_signature',
    )
    const old = sign(SECRET, BODY, NOW - 301)
    assert.equal(
      await reason(verifyWebhook({ headers: headers(old, NOW - 301), body: BODY, secret: SECRET, now: NOW })),
      'timestamp_too_old',
    )
    const future = sign(SECRET, BODY, NOW + 301)
    assert.equal(
      await reason(
        verifyWebhook({ headers: headers(future, NOW + 301), body: BODY, secret: SECRET, now: NOW }),
      ),
      'timestamp_in_future',
    )
    // Within a custom tolerance the old one passes.
    await verifyWebhook({
      headers: headers(old, NOW - 301),
      body: BODY,
      secret: SECRET,
      now: NOW,
      toleranceSec: 600,
    })
  })

  test('rotation: a header with two signatures verifies with either secret', async () => {
    const both = `${sign(SECRET)} ${sign(OLD_SECRET)}`
    await verifyWebhook({ headers: headers(both), body: BODY, secret: SECRET, now: NOW })
    await verifyWebhook({ headers: headers(both), body: BODY, secret: OLD_SECRET, now: NOW })
    // A receiver that holds [new, old] accepts a delivery signed with the old one only.
    await verifyWebhook({
      headers: headers(sign(OLD_SECRET)),
      body: BODY,
      secret: [SECRET, OLD_SECRET],
      now: NOW,
    })
    assert.equal(
      await reason(
        verifyWebhook({ headers: headers(both), body: BODY, secret: 'another-secret-0123', now: NOW }),
      ),
      'bad_signature',
    )
  })

  test('missing headers and a non-envelope body', async () => {
    const partial = { 'webhook-signature': sign(SECRET), 'webhook-id': ID }
    assert.equal(
      await reason(verifyWebhook({ headers: partial, body: BODY, secret: SECRET, now: NOW })),
      'missing_headers',
    )
    assert.equal(
      await reason(verifyWebhook({ headers: {}, body: BODY, secret: SECRET, now: NOW })),
      'missing_headers',
    )
    const notJson = 'not json'
    assert.equal(
      await reason(
        verifyWebhook({ headers: headers(sign(SECRET, notJson)), body: notJson, secret: SECRET, now: NOW }),
      ),
      'bad_body',
    )
    const unknown = JSON.stringify({ ...JSON.parse(BODY), event: 'file_exploded' })
    assert.equal(
      await reason(
        verifyWebhook({ headers: headers(sign(SECRET, unknown)), body: unknown, secret: SECRET, now: NOW }),
      ),
      'bad_body',
    )
  })
})

describe('x-service-token', () => {
  const hash = bcrypt.hashSync(SECRET, 10)

  const tokenOnly = { 'x-service-token': hash }

  test('by default a delivery without a signature is refused, its token whatever it is', async () => {
    // The token is the same on every delivery: with it alone, anyone who saw one could send any body.
    assert.equal(
      await reason(verifyWebhook({ headers: tokenOnly, body: BODY, secret: SECRET })),
      'missing_headers',
    )
    const stripped = { ...tokenOnly, 'webhook-id': ID }
    assert.equal(
      await reason(verifyWebhook({ headers: stripped, body: BODY, secret: SECRET })),
      'missing_headers',
    )
  })

  test('require "token": the right secret passes, a wrong one is bad_token; outcomes are cached', async () => {
    const token = { headers: tokenOnly, body: BODY, require: 'token' } as const
    const envelope = await verifyWebhook({ ...token, secret: SECRET })
    assert.equal(envelope.uuid, ID)
    const started = performance.now()
    for (let i = 0; i < 20; i++) await verifyWebhook({ ...token, secret: SECRET })
    // 20 bcrypt compares at cost 10 take far more than 200 ms; cached ones take microseconds.
    assert.ok(performance.now() - started < 200, 'bcrypt ran again for a known hash')
    assert.equal(await reason(verifyWebhook({ ...token, secret: OLD_SECRET })), 'bad_token')
    // Rotation for token-only receivers: try the new secret, then the old.
    await verifyWebhook({ ...token, secret: [OLD_SECRET, SECRET] })
    assert.ok(tokenCacheSize() <= 64)
  })

  test('require "auto": the signature when there is one, else the token', async () => {
    await verifyWebhook({ headers: tokenOnly, body: BODY, secret: SECRET, require: 'auto' })
    const signed = { ...headers(sign(SECRET)), ...tokenOnly }
    const tampered = verifyWebhook({
      headers: signed,
      body: `${BODY} `,
      secret: SECRET,
      now: NOW,
      require: 'auto',
    })
    assert.equal(await reason(tampered), 'bad_signature')
  })

  test('require: "both" needs both proofs; "signature" refuses a token-only delivery', async () => {
    const all = { ...headers(sign(SECRET)), 'x-service-token': hash }
    await verifyWebhook({ headers: all, body: BODY, secret: SECRET, now: NOW, require: 'both' })
    assert.equal(
      await reason(
        verifyWebhook({
          headers: headers(sign(SECRET)),
          body: BODY,
          secret: SECRET,
          now: NOW,
          require: 'both',
        }),
      ),
      'missing_headers',
    )
    assert.equal(
      await reason(
        verifyWebhook({
          headers: { 'x-service-token': hash },
          body: BODY,
          secret: SECRET,
          require: 'signature',
        }),
      ),
      'missing_headers',
    )
    const wrongToken = { ...headers(sign(SECRET)), 'x-service-token': bcrypt.hashSync(OLD_SECRET, 4) }
    assert.equal(
      await reason(
        verifyWebhook({ headers: wrongToken, body: BODY, secret: SECRET, now: NOW, require: 'both' }),
      ),
      'bad_token',
    )
  })
})
