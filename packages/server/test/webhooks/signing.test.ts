import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import bcrypt from 'bcryptjs'
import { Webhook } from 'standardwebhooks'
import {
  estimateSecretBits,
  hashServiceToken,
  secretStrength,
  signatureHeaders,
} from '../../src/delivery/signing.ts'

const verifierFor = (secret: string): Webhook =>
  new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`)

describe('signatureHeaders (Standard Webhooks)', () => {
  const secret = 'k3Zp9-Qw81xLm4Tv'
  const body = JSON.stringify({ file: 'f1', event: 'file_uploaded', data: { name: 'ü.glb' }, uuid: 'u-1' })

  it('is verified by the standardwebhooks library with whsec_ + base64(secret)', () => {
    const headers = signatureHeaders({
      msgId: 'msg_0001',
      timestampSec: Math.floor(Date.now() / 1000),
      body,
      secrets: [secret],
    })
    assert.equal(headers['webhook-id'], 'msg_0001')
    assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/)
    assert.deepEqual(verifierFor(secret).verify(body, { ...headers }), JSON.parse(body))
  })

  it('signs with every secret during a rotation; each verifies alone', () => {
    const next = 'N3w-s3cret_R0tated!'
    const headers = signatureHeaders({
      msgId: 'msg_0002',
      timestampSec: Math.floor(Date.now() / 1000),
      body,
      secrets: [next, secret],
    })
    assert.equal(headers['webhook-signature'].split(' ').length, 2)
    verifierFor(next).verify(body, { ...headers })
    verifierFor(secret).verify(body, { ...headers })
  })

  it('fails verification for a tampered body, another secret or an old timestamp', () => {
    const now = Math.floor(Date.now() / 1000)
    const headers = signatureHeaders({ msgId: 'msg_3', timestampSec: now, body, secrets: [secret] })
    assert.throws(() => verifierFor(secret).verify(body.replace('f1', 'f2'), { ...headers }))
    assert.throws(() => verifierFor('another-secret-value').verify(body, { ...headers }))
    const stale = signatureHeaders({ msgId: 'msg_3', timestampSec: now - 3600, body, secrets: [secret] })
    assert.throws(() => verifierFor(secret).verify(body, { ...stale }))
  })

  it('matches a known vector', () => {
    // HMAC-SHA256 key "secret-key-0123456" over "msg_1.1700000000.{}", computed with Python's hmac module.
    const headers = signatureHeaders({
      msgId: 'msg_1',
      timestampSec: 1_700_000_000,
      body: '{}',
      secrets: ['secret-key-0123456'],
    })
    assert.equal(headers['webhook-timestamp'], '1700000000')
    assert.equal(headers['webhook-signature'], 'v1,ER+i7H22ILP62grVPVe1jbfcm6CMUDO934mJwax0U2I=')
  })

  it('refuses to sign without a secret', () => {
    assert.throws(() => signatureHeaders({ msgId: 'm', timestampSec: 1, body: '', secrets: [] }))
  })
})

describe('hashServiceToken', () => {
  it('produces a cost-10 bcrypt hash that bcryptjs.compare accepts', async () => {
    const secret = 'Receiver-Secret-7fQ2'
    const hashed = await hashServiceToken(secret)
    assert.match(hashed, /^\$2[aby]\$10\$/)
    assert.equal(await bcrypt.compare(secret, hashed), true)
    assert.equal(await bcrypt.compare('Receiver-Secret-7fQ3', hashed), false)
  })

  it('salts: two hashes of one secret differ and both verify', async () => {
    const secret = 'another-Secret-99x'
    const [a, b] = await Promise.all([hashServiceToken(secret), hashServiceToken(secret)])
    assert.notEqual(a, b)
    assert.equal(await bcrypt.compare(secret, b), true)
  })
})

describe('secretStrength', () => {
  const weak: Array<[string, RegExp]> = [
    ['', /at least 16/],
    ['Sh0rt-but-r4nd', /at least 16/],
    ['aaaaaaaaaaaaaaaaaaaa', /different characters/],
    ['abababababababababab', /different characters/],
    ['passwordpassword', /predictable|different/],
    ['abcdefghijklmnopqrst', /predictable/],
    ['zyxwvutsrqponmlkjihg', /predictable/],
    ['12345678901234567890', /predictable/],
    ['0123456789abcdef', /predictable/],
    ['qwertyuiopasdfghjkl', /predictable/],
    ['aabbccddeeffgghhiijj', /predictable/],
    ['Password12345678!', /predictable/],
    ['secretsecretsecret12', /predictable|different/],
    ['webhook-secret-token', /predictable/],
    ['acegikmoqsuwyBDFHJLN', /predictable/],
    // Accepted before hardening batch 3; the xkcd passphrase is now refused as a famous one.
    ['correct-horse-battery-staple-42', /passphrase/],
  ]
  for (const [secret, reason] of weak) {
    it(`refuses ${JSON.stringify(secret)}`, () => assert.match(secretStrength(secret) ?? 'accepted', reason))
  }

  const strong = ['Tr0ub4dor&3xyzQ!', 'k3Zp9-Qw81xLm4Tv', 'gravel-mantis-quota-ember-lintel-42']
  for (const secret of strong) {
    it(`accepts ${JSON.stringify(secret)}`, () => assert.equal(secretStrength(secret), null))
  }

  it('accepts every CSPRNG secret of 32 hex or 16 base64 characters', () => {
    for (let i = 0; i < 500; i++) {
      const hex = randomBytes(16).toString('hex')
      const b64 = randomBytes(12).toString('base64')
      assert.equal(secretStrength(hex), null, hex)
      assert.equal(secretStrength(b64), null, b64)
    }
  })

  it('charges padding made of patterns almost nothing', () => {
    const base = estimateSecretBits('k3Zp9Qw8')
    assert.ok(estimateSecretBits(`k3Zp9Qw8${'k3Zp9Qw8'.repeat(4)}`) < base + 20)
    assert.ok(estimateSecretBits('k3Zp9Qw8abcdefghijklmnop') < base + 15)
  })

  it('stays fast on huge inputs', () => {
    const started = performance.now()
    assert.match(secretStrength('x'.repeat(100_000)) ?? '', /different/)
    assert.equal(typeof estimateSecretBits(randomBytes(50_000).toString('base64')), 'number')
    assert.ok(performance.now() - started < 1_000)
  })
})
