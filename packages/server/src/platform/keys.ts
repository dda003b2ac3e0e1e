// The instance's RS256 key pair: loaded from TESSERA_JWT_PRIVATE_KEY_FILE or generated once in the
// data dir (mode 0600). Whoever holds the private key can mint tokens for any account (the spec's
// single sign-on), so it is never logged and only its PUBLIC half leaves this module (JWKS).
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose'
import { makePrivateDir } from './file-modes.ts'
import { ConfigError } from './settings.ts'

export interface InstanceKeys {
  privateKey: KeyObject
  publicKey: KeyObject
  kid: string
  jwks: { keys: JWK[] }
  /** PEM of the public key, for `tessera-server keys show`. */
  publicPem: string
}

const GENERATED_KEY_FILE = 'jwt-private.pem'

/** Loads the configured key, or the generated one in the data dir (creating it on first start). */
export async function loadInstanceKeys(options: {
  privateKeyFile: string | undefined
  dataDir: string
}): Promise<InstanceKeys> {
  let pem: string
  if (options.privateKeyFile) {
    pem = readKeyFile(options.privateKeyFile)
  } else {
    const file = path.join(options.dataDir, GENERATED_KEY_FILE)
    if (!existsSync(file)) {
      makePrivateDir(options.dataDir)
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
      // `wx` fails if another process created the file meanwhile; then we read theirs.
      try {
        writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      chmodSync(file, 0o600)
    }
    pem = readFileSync(file, 'utf8')
  }
  const privateKey = parsePrivateKey(pem, options.privateKeyFile)
  if (privateKey.asymmetricKeyType !== 'rsa')
    throw new ConfigError('TESSERA_JWT_PRIVATE_KEY_FILE: the JWT private key must be an RSA key (RS256)')
  const publicKey = createPublicKey(privateKey)
  const jwk = await exportJWK(publicKey)
  const kid = await calculateJwkThumbprint(jwk)
  return {
    privateKey,
    publicKey,
    kid,
    jwks: { keys: [{ ...jwk, kid, alg: 'RS256', use: 'sig' }] },
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  }
}

/** The configured key file's PEM; a file that cannot be read is a configuration error (exit 2). */
function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error)
    throw new ConfigError(`TESSERA_JWT_PRIVATE_KEY_FILE: cannot read ${file} (${reason})`)
  }
}

function parsePrivateKey(pem: string, file: string | undefined): KeyObject {
  try {
    return createPrivateKey(pem)
  } catch {
    if (!file) throw new Error('the generated JWT key in the data directory is not a private key in PEM')
    throw new ConfigError(`TESSERA_JWT_PRIVATE_KEY_FILE: ${file} holds no private key in PEM`)
  }
}
