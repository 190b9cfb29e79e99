import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ReceiptKeyError } from '../../../src/errors.js';
import {
  createEd25519Signer,
  createEd25519Verifier,
  createHmacSigner,
  type ReceiptKeyObject,
} from '../../../src/ledger/receipts/signers.js';

describe('key objects in the published types', () => {
  it('a signer’s public key (typed without Node’s types) verifies, and exports as PEM', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const signer = createEd25519Signer({ privateKey, keyId: 'ed-1' });
    const publicKey: ReceiptKeyObject = signer.publicKey;

    const verifier = createEd25519Verifier({ publicKey, keyId: 'ed-1' });

    expect(verifier.verify('payload', signer.sign('payload'))).toBe(true);
    expect(String(publicKey.export({ type: 'spki', format: 'pem' }))).toContain('BEGIN PUBLIC KEY');
  });

  it('refuses an object that only looks like a KeyObject', () => {
    const lookalike: ReceiptKeyObject = {
      type: 'secret',
      symmetricKeySize: 64,
      export: () => randomBytes(64),
    };

    expect(() => createHmacSigner({ key: lookalike, keyId: 'k1' })).toThrow(ReceiptKeyError);
    expect(() => createEd25519Verifier({ publicKey: { ...lookalike, type: 'public' }, keyId: 'k1' })).toThrow(
      ReceiptKeyError,
    );
  });
});
