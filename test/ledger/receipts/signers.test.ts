import { createSecretKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ReceiptKeyError } from '../../../src/errors.js';
import {
  createEd25519Signer,
  createEd25519Verifier,
  createHmacSigner,
  createHmacVerifier,
  createReceiptSigner,
} from '../../../src/ledger/receipts/signers.js';

const secret = randomBytes(32);

describe('HMAC-SHA256 signer', () => {
  it('signs deterministically and verifies its own signatures; a verifier with the same secret agrees', () => {
    const signer = createHmacSigner({ key: secret, keyId: 'k1' });
    const verifier = createHmacVerifier({ key: secret, keyId: 'k1' });

    const signature = signer.sign('payload');

    expect(signer.sign('payload')).toBe(signature);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(verifier.verify('payload', signature)).toBe(true);
    expect(verifier.verify('payload!', signature)).toBe(false);
    expect(verifier.verify('payload', 'not-a-signature')).toBe(false);
    expect(signer).toMatchObject({ keyId: 'k1', algorithm: 'hmac-sha256' });
  });

  it('takes a string as UTF-8, bytes, or a secret KeyObject — the same secret verifies across forms', () => {
    const text = 'x'.repeat(40);
    const fromString = createHmacSigner({ key: text, keyId: 'k' });
    const fromBytes = createHmacVerifier({ key: Buffer.from(text, 'utf8'), keyId: 'k' });
    const fromKeyObject = createHmacVerifier({ key: createSecretKey(Buffer.from(text, 'utf8')), keyId: 'k' });

    const signature = fromString.sign('p');

    expect(fromBytes.verify('p', signature)).toBe(true);
    expect(fromKeyObject.verify('p', signature)).toBe(true);
  });

  it('refuses a secret shorter than 32 bytes, and a missing key id', () => {
    expect(() => createHmacSigner({ key: 'short', keyId: 'k' })).toThrow(ReceiptKeyError);
    expect(() => createHmacSigner({ key: 'short', keyId: 'k' })).toThrow('is 5 bytes; use at least 32');
    expect(() => createHmacSigner({ key: secret, keyId: '' })).toThrow('needs a `keyId`');
  });

  it('a different secret does not verify', () => {
    const signature = createHmacSigner({ key: secret, keyId: 'k' }).sign('p');

    expect(createHmacVerifier({ key: randomBytes(32), keyId: 'k' }).verify('p', signature)).toBe(false);
  });
});

describe('Ed25519 signer', () => {
  it('signs with the private key; a verifier from the PEM public key checks it', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const signer = createEd25519Signer({ privateKey, keyId: 'ed' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const verifier = createEd25519Verifier({ publicKey: pem, keyId: 'ed' });

    const signature = signer.sign('payload');

    expect(verifier.verify('payload', signature)).toBe(true);
    expect(verifier.verify('payloaD', signature)).toBe(false);
    expect(signer.verify('payload', signature)).toBe(true);
    expect(signer.publicKey.export({ type: 'spki', format: 'pem' }).toString()).toBe(pem);
  });

  it('reads a PEM private key string', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

    const signer = createEd25519Signer({ privateKey: pem, keyId: 'ed' });

    expect(signer.verify('p', signer.sign('p'))).toBe(true);
  });

  it('refuses a key of another type, a public key as signer, and text that is no key', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const ed = generateKeyPairSync('ed25519');

    expect(() => createEd25519Signer({ privateKey: rsa.privateKey, keyId: 'k' })).toThrow(
      'must be an Ed25519 private key, got a rsa private key',
    );
    expect(() => createEd25519Signer({ privateKey: ed.publicKey, keyId: 'k' })).toThrow(ReceiptKeyError);
    expect(() => createEd25519Verifier({ publicKey: 'not a pem', keyId: 'k' })).toThrow('could not be read as a PEM');
  });

  it('another key pair does not verify', () => {
    const signature = createEd25519Signer({ privateKey: generateKeyPairSync('ed25519').privateKey, keyId: 'k' }).sign(
      'p',
    );
    const other = createEd25519Verifier({ publicKey: generateKeyPairSync('ed25519').publicKey, keyId: 'k' });

    expect(other.verify('p', signature)).toBe(false);
  });
});

describe('createReceiptSigner', () => {
  it('builds either algorithm from configuration-shaped settings', () => {
    const { privateKey } = generateKeyPairSync('ed25519');

    expect(createReceiptSigner({ algorithm: 'hmac-sha256', key: secret, keyId: 'h' }).algorithm).toBe('hmac-sha256');
    expect(createReceiptSigner({ algorithm: 'ed25519', key: privateKey, keyId: 'e' }).algorithm).toBe('ed25519');
  });

  it('refuses an unknown algorithm, naming the known ones', () => {
    const settings = { algorithm: 'rsa', key: secret, keyId: 'x' } as unknown as Parameters<
      typeof createReceiptSigner
    >[0];

    expect(() => createReceiptSigner(settings)).toThrow(
      'Unknown receipt algorithm `rsa` (known: `hmac-sha256`, `ed25519`)',
    );
  });
});
