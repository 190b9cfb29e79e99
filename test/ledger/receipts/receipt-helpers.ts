/**
 * Shared helpers of the receipt tests: keys of both algorithms, drafts, and chains built through the
 * real writer.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReceiptWriter } from '../../../src/ledger/receipts/receipt-writer.js';
import {
  createEd25519Signer,
  createEd25519Verifier,
  createHmacSigner,
  createHmacVerifier,
  type ReceiptKey,
  type ReceiptSigner,
} from '../../../src/ledger/receipts/signers.js';
import { createMemoryReceiptSink } from '../../../src/storage/memory-receipt-sink.js';
import { type Receipt, type ReceiptDraft, receiptIdOf } from '../../../src/storage/receipt.js';

/** A signer and the verification key a verifier would hold (the public key only, for Ed25519). */
export interface KeyPair {
  readonly algorithm: 'hmac-sha256' | 'ed25519';
  readonly signer: ReceiptSigner;
  readonly verifier: ReceiptKey;
}

export function hmacPair(keyId = 'hmac-1', secret = randomBytes(32).toString('base64')): KeyPair & { secret: string } {
  return {
    algorithm: 'hmac-sha256',
    secret,
    signer: createHmacSigner({ key: secret, keyId }),
    verifier: createHmacVerifier({ key: secret, keyId }),
  };
}

export function ed25519Pair(keyId = 'ed-1'): KeyPair & { publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    algorithm: 'ed25519',
    publicKeyPem,
    signer: createEd25519Signer({ privateKey, keyId }),
    verifier: createEd25519Verifier({ publicKey: publicKeyPem, keyId }),
  };
}

/** Both algorithms, for `describe.each`. */
export const algorithms = [
  { name: 'HMAC-SHA256', pair: (keyId?: string): KeyPair => hmacPair(keyId) },
  { name: 'Ed25519', pair: (keyId?: string): KeyPair => ed25519Pair(keyId) },
] as const;

/** The draft of the `n`th test event. */
export function draft(n: number, extra: Partial<ReceiptDraft> = {}): ReceiptDraft {
  const transitionKey = `key-${n}-`.padEnd(64, '0');
  return {
    receiptId: receiptIdOf(transitionKey, 1, 'outcome'),
    agentId: 'agent',
    action: 'send_email',
    actionKind: 'tool',
    transitionKey,
    outcome: 'COMPLETED',
    inputsHash: 'a'.repeat(64),
    outputsHash: null,
    timestamp: new Date(1_767_225_600_000 + n).toISOString(),
    ...extra,
  };
}

/** A chain of `count` receipts signed by `signer`, built by the writer over a memory sink. */
export async function buildChain(signer: ReceiptSigner, count: number): Promise<Receipt[]> {
  const sink = createMemoryReceiptSink();
  const writer = createReceiptWriter({ sink, signer });
  for (let n = 1; n <= count; n++) await writer.write(draft(n));
  return sink.receipts();
}

/** A temp directory removed by `remove()`. */
export function scratchDir(): { readonly dir: string; file(name: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-receipts-'));
  return {
    dir,
    file: (name) => join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }),
  };
}

/** JSONL text of receipts, one canonical line each. */
export function toJsonl(receipts: readonly unknown[]): string {
  return receipts.map((receipt) => `${JSON.stringify(receipt)}\n`).join('');
}
