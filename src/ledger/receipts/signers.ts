/**
 * Receipt signers and verification keys: HMAC-SHA256 (a shared secret) and Ed25519 (a key pair),
 * both from `node:crypto`. Signatures are base64url.
 */
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  KeyObject,
  sign,
  timingSafeEqual,
  verify,
} from 'node:crypto';
import { ReceiptKeyError } from '../../errors.js';
import { optionsOf } from '../../invalid-argument.js';

/** The signature algorithms a receipt can be signed with. */
export const ReceiptAlgorithm = { hmac_sha256: 'hmac-sha256', ed25519: 'ed25519' } as const;
/** The signature algorithms a receipt can be signed with. */
export type ReceiptAlgorithm = (typeof ReceiptAlgorithm)[keyof typeof ReceiptAlgorithm];

/** A key that checks signatures; verification picks it by the receipt's `keyId`. */
export interface ReceiptKey {
  readonly keyId: string;
  readonly algorithm: ReceiptAlgorithm;
  /** True when `signature` (base64url) is a valid signature of `payload` under this key. */
  verify(payload: string, signature: string): boolean;
}

/** A key that signs receipts; it also verifies them, so a signer can be passed as a verification key. */
export interface ReceiptSigner extends ReceiptKey {
  /** The base64url signature of `payload`. */
  sign(payload: string): string;
}

/**
 * A `KeyObject` of `node:crypto`, as the published types name it: structural, so a consumer's
 * type check needs no Node types (every `KeyObject` is one; at run time a real `KeyObject` is required).
 */
export interface ReceiptKeyObject {
  readonly type: 'secret' | 'public' | 'private';
  readonly asymmetricKeyType?: string | undefined;
  readonly symmetricKeySize?: number | undefined;
  /** The key as PEM or DER (`{ type: 'spki', format: 'pem' }` for an Ed25519 public key). */
  export(options: { readonly type: string; readonly format: 'pem' | 'der' }): string | Uint8Array;
}

/** Key material: a string (UTF-8 secret, or PEM for Ed25519), bytes, or a `KeyObject`. */
export type KeyInput = string | Uint8Array | ReceiptKeyObject;

/** The shortest HMAC secret accepted: 32 bytes, the output size of SHA-256. */
export const MIN_HMAC_KEY_BYTES = 32;

function checkKeyId(keyId: unknown): string {
  if (typeof keyId !== 'string' || keyId.trim() === '' || keyId.length > 200) {
    throw new ReceiptKeyError('A receipt key needs a `keyId`: a non-empty string of at most 200 characters');
  }
  return keyId;
}

/** `given` checked as the options of `fn`, and its checked key id. */
function keyOptions<T extends { readonly keyId: string }>(
  fn: string,
  given: T,
): { readonly options: T; readonly keyId: string } {
  const options = optionsOf(fn, given);
  return { options, keyId: checkKeyId(options.keyId) };
}

function receiptKey(keyId: string, algorithm: ReceiptAlgorithm, verify: ReceiptKey['verify']): ReceiptKey {
  return Object.freeze({ keyId, algorithm, verify });
}

function isKeyObject(value: unknown): value is KeyObject {
  return value instanceof KeyObject;
}

function secretKey(key: KeyInput, keyId: string): KeyObject {
  let secret: KeyObject;
  if (isKeyObject(key)) {
    if (key.type !== 'secret')
      throw new ReceiptKeyError(`HMAC key \`${keyId}\` must be a secret key, got a ${key.type} key`);
    secret = key;
  } else if (typeof key === 'string' || key instanceof Uint8Array) {
    secret = createSecretKey(typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key));
  } else {
    throw new ReceiptKeyError(`HMAC key \`${keyId}\` must be a string, bytes or a secret KeyObject`);
  }
  const size = secret.symmetricKeySize ?? 0;
  if (size < MIN_HMAC_KEY_BYTES) {
    throw new ReceiptKeyError(
      `HMAC key \`${keyId}\` is ${size} bytes; use at least ${MIN_HMAC_KEY_BYTES} random bytes (for example \`openssl rand -base64 48\`)`,
    );
  }
  return secret;
}

function hmacVerifier(secret: KeyObject) {
  return function verifyHmac(payload: string, signature: string): boolean {
    const expected = createHmac('sha256', secret).update(payload, 'utf8').digest();
    const given = Buffer.from(signature, 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
}

/**
 * A signer using HMAC-SHA256 with a shared secret of at least 32 bytes (a string is taken as UTF-8).
 *
 * @example
 * const signer = createHmacSigner({ key: process.env.HYPHAE_RECEIPT_KEY ?? '', keyId: 'receipts-2026-07' });
 */
export function createHmacSigner(given: { readonly key: KeyInput; readonly keyId: string }): ReceiptSigner {
  const { options, keyId } = keyOptions('createHmacSigner', given);
  const secret = secretKey(options.key, keyId);
  return Object.freeze({
    keyId,
    algorithm: ReceiptAlgorithm.hmac_sha256,
    sign: (payload: string) => createHmac('sha256', secret).update(payload, 'utf8').digest('base64url'),
    verify: hmacVerifier(secret),
  });
}

/** A verification key for receipts signed with {@link createHmacSigner}: the same secret and key id. */
export function createHmacVerifier(given: { readonly key: KeyInput; readonly keyId: string }): ReceiptKey {
  const { options, keyId } = keyOptions('createHmacVerifier', given);
  return receiptKey(keyId, ReceiptAlgorithm.hmac_sha256, hmacVerifier(secretKey(options.key, keyId)));
}

function asymmetricKey(key: KeyInput, keyId: string, want: 'private' | 'public'): KeyObject {
  let parsed: KeyObject;
  try {
    if (isKeyObject(key)) {
      parsed = want === 'public' && key.type === 'private' ? createPublicKey(key) : key;
    } else if (typeof key === 'string' || key instanceof Uint8Array) {
      const material = typeof key === 'string' ? key : Buffer.from(key);
      parsed = want === 'private' ? createPrivateKey(material) : createPublicKey(material);
    } else {
      throw new TypeError('a PEM string, bytes or a `KeyObject` of `node:crypto` was expected');
    }
  } catch (cause) {
    throw new ReceiptKeyError(`Ed25519 key \`${keyId}\` could not be read as a PEM ${want} key`, { cause });
  }
  if (parsed.type !== want || parsed.asymmetricKeyType !== 'ed25519') {
    throw new ReceiptKeyError(
      `Ed25519 key \`${keyId}\` must be an Ed25519 ${want} key, got a ${parsed.asymmetricKeyType ?? parsed.type} ${parsed.type} key`,
    );
  }
  return parsed;
}

function ed25519Verifier(publicKey: KeyObject) {
  return function verifyEd25519(payload: string, signature: string): boolean {
    try {
      return verify(null, Buffer.from(payload, 'utf8'), publicKey, Buffer.from(signature, 'base64url'));
    } catch {
      return false;
    }
  };
}

/**
 * A signer using Ed25519; verifiers need only the public key.
 *
 * @param options.privateKey a PEM string or bytes, or a private `KeyObject`.
 * @example
 * const { privateKey, publicKey } = generateKeyPairSync('ed25519');
 * const signer = createEd25519Signer({ privateKey, keyId: 'receipts-ed-1' });
 * const key = createEd25519Verifier({ publicKey, keyId: 'receipts-ed-1' });
 */
export function createEd25519Signer(given: {
  readonly privateKey: KeyInput;
  readonly keyId: string;
}): ReceiptSigner & { readonly publicKey: ReceiptKeyObject } {
  const { options, keyId } = keyOptions('createEd25519Signer', given);
  const privateKey = asymmetricKey(options.privateKey, keyId, 'private');
  const publicKey = createPublicKey(privateKey);
  return Object.freeze({
    keyId,
    algorithm: ReceiptAlgorithm.ed25519,
    publicKey,
    sign: (payload: string) => sign(null, Buffer.from(payload, 'utf8'), privateKey).toString('base64url'),
    verify: ed25519Verifier(publicKey),
  });
}

/** A verification key for receipts signed with {@link createEd25519Signer}, from the public key. */
export function createEd25519Verifier(given: { readonly publicKey: KeyInput; readonly keyId: string }): ReceiptKey {
  const { options, keyId } = keyOptions('createEd25519Verifier', given);
  return receiptKey(
    keyId,
    ReceiptAlgorithm.ed25519,
    ed25519Verifier(asymmetricKey(options.publicKey, keyId, 'public')),
  );
}

/** Key settings as configuration states them. */
export interface ReceiptKeySettings {
  readonly algorithm: ReceiptAlgorithm;
  readonly keyId: string;
  /** The HMAC secret, or the Ed25519 private key (PEM). */
  readonly key: KeyInput;
}

/** A signer from configuration-shaped settings. */
export function createReceiptSigner(given: ReceiptKeySettings): ReceiptSigner {
  const settings = optionsOf('createReceiptSigner', given, false, 'settings');
  switch (settings.algorithm) {
    case 'hmac-sha256':
      return createHmacSigner({ key: settings.key, keyId: settings.keyId });
    case 'ed25519':
      return createEd25519Signer({ privateKey: settings.key, keyId: settings.keyId });
    default:
      throw new ReceiptKeyError(
        `Unknown receipt algorithm \`${String((settings as { algorithm?: unknown }).algorithm)}\` (known: \`hmac-sha256\`, \`ed25519\`)`,
      );
  }
}
