import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { classifyAddress, type LookupAll, TargetRefused, vetUrl } from '../../src/delivery/ssrf.ts'

const fakeDns =
  (answers: Record<string, string[]>): LookupAll =>
  async (host) => {
    const list = answers[host]
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }

async function refusal(promise: Promise<unknown>): Promise<TargetRefused> {
  try {
    await promise
  } catch (err) {
    assert.ok(err instanceof TargetRefused, `expected TargetRefused, got ${String(err)}`)
    return err
  }
  assert.fail('expected the target to be refused')
}

describe('classifyAddress', () => {
  const table: Array<[string, string]> = [
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['93.184.215.14', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['100.128.0.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'benchmark'],
    ['198.19.255.1', 'benchmark'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['192.0.0.8', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fd00::1', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['4000::1', 'reserved'],
    // IPv4-mapped: the embedded address decides the reason, and even a public one is refused.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'ipv4-mapped'],
    ['::127.0.0.1', 'reserved'],
    // Translation and tunnelling prefixes are judged by the IPv4 address they carry.
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::808:808', 'public'],
    ['64:ff9b:1::1', 'nat64-local'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:808:808::1', 'public'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo client 127.0.0.1 (inverted)
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'], // Teredo client 10.0.0.1
    ['example.com', 'not-an-ip'],
    ['', 'not-an-ip'],
  ]
  for (const [ip, expected] of table) {
    it(`${ip || '(empty)'} is ${expected}`, () => assert.equal(classifyAddress(ip), expected))
  }
})

describe('vetUrl', () => {
  const strict = { allowPrivate: false }

  it('accepts a public host and returns the address to connect to', async () => {
    const lookup = fakeDns({
      'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    })
    const vetted = await vetUrl('https://hooks.example.com/in?x=1', { allowPrivate: false, lookup })
    assert.equal(vetted.address, '93.184.215.14')
    assert.equal(vetted.family, 4)
    assert.equal(vetted.url.hostname, 'hooks.example.com')
  })

  it('accepts public IP literals, v4 and v6', async () => {
    assert.equal((await vetUrl('http://8.8.8.8/', strict)).address, '8.8.8.8')
    const v6 = await vetUrl('http://[2606:4700:4700::1111]:8443/', strict)
    assert.deepEqual([v6.address, v6.family], ['2606:4700:4700::1111', 6])
  })

  const refusedUrls = [
    'http://127.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://0.0.0.0:8080/',
    'http://224.0.0.1/',
    'http://2130706433/', // 127.0.0.1 as one decimal number
    'http://0x7f.1/', // hex and short form
    'http://017700000001/', // octal
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:8.8.8.8]/',
    'http://[fd00::1]/',
    'https://[fe80::1]/',
  ]
  for (const url of refusedUrls) {
    it(`refuses ${url} with E_SSRF`, async () => {
      const err = await refusal(vetUrl(url, strict))
      assert.equal(err.code, 'E_SSRF')
      assert.ok(!err.message.includes('127.0.0.1'), 'message must not echo addresses')
    })
  }

  it('allows the same literals with allowPrivate', async () => {
    for (const url of refusedUrls) {
      const vetted = await vetUrl(url, { allowPrivate: true })
      assert.ok(vetted.address.length > 0, url)
    }
  })

  it('refuses a host name that resolves to loopback (real DNS: localhost)', async () => {
    const err = await refusal(vetUrl('http://localhost:1234/hook', strict))
    assert.equal(err.code, 'E_SSRF')
    assert.match(err.message, /loopback/)
  })

  it('resolves localhost with allowPrivate to a loopback address', async () => {
    const vetted = await vetUrl('http://localhost:1234/hook', { allowPrivate: true })
    assert.equal(classifyAddress(vetted.address), 'loopback')
  })

  it('refuses when ANY answer is private, whatever the order', async () => {
    const lookup = fakeDns({ 'mixed.example': ['93.184.215.14', '10.0.0.5'] })
    const err = await refusal(vetUrl('https://mixed.example/', { allowPrivate: false, lookup }))
    assert.equal(err.code, 'E_SSRF')
    assert.match(err.message, /private/)
  })

  it('refuses names answering with metadata, CGNAT or mapped addresses', async () => {
    const lookup = fakeDns({
      'meta.example': ['169.254.169.254'],
      'cgnat.example': ['100.64.0.1'],
      'mapped.example': ['::ffff:127.0.0.1'],
      'ula.example': ['fd12:3456::1'],
    })
    for (const host of ['meta.example', 'cgnat.example', 'mapped.example', 'ula.example']) {
      const err = await refusal(vetUrl(`http://${host}/`, { allowPrivate: false, lookup }))
      assert.equal(err.code, 'E_SSRF', host)
    }
  })

  it('reports DNS failures as E_DNS', async () => {
    const err = await refusal(vetUrl('http://nowhere.invalid/', strict))
    assert.equal(err.code, 'E_DNS')
    const empty: LookupAll = async () => []
    assert.equal(
      (await refusal(vetUrl('http://empty.example/', { allowPrivate: false, lookup: empty }))).code,
      'E_DNS',
    )
  })

  it('refuses non-http schemes, relative URLs and credentials', async () => {
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://x/', '/relative', 'not a url']) {
      assert.equal((await refusal(vetUrl(url, strict))).code, 'E_SSRF', url)
    }
    const lookup = fakeDns({ 'example.com': ['93.184.215.14'] })
    for (const url of ['https://user:pass@example.com/', 'https://user@example.com/']) {
      const err = await refusal(vetUrl(url, { allowPrivate: false, lookup }))
      assert.match(err.message, /credentials/)
    }
  })
})
