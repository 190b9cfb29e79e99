import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  argsFingerprint,
  canonicalJson,
  fingerprint,
  type LedgerScope,
  type ToolSpec,
  TRANSITION_KEY_SCHEMA,
  ticketKey,
  transitionKey,
} from '../../src/index.js';
import { prepareCall, type RunContext, resolveSpec } from '../../src/ledger/prepare-call.js';
import { type TransitionKeyInput, ticketKeyText, transitionKeyText } from '../../src/ledger/transition-key.js';
import type { CallOptions } from '../../src/ledger/types.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const base = {
  scope: {},
  tool: 'echo',
  argsFingerprint: 'abc',
  sideEffectClass: 'read',
  agentId: 'a',
  policyVersion: 'p',
} as const;

/** The key the ledger computes for one call of `spec`. */
function keyOf(spec: ToolSpec, args: unknown, options: CallOptions = {}, context?: RunContext): string {
  return prepareCall(resolveSpec('tool', spec), 'agent', 'p1', args, options, context).key;
}

const pay: ToolSpec = {
  name: 'send_payment',
  sideEffectClass: 'keyed_mutate',
  providerIdempotencyKeyParam: 'idempotencyKey',
  bookkeepingParams: ['traceId', 'attempt'],
};

describe('transitionKey — its definition', () => {
  it('is the SHA-256 hex of the hand-built canonical JSON', () => {
    const canonical =
      '{"agentId":"a","argsFingerprint":"abc","policyVersion":"p","schema":"hyphae.transition/v1","scope":{},"sideEffectClass":"read","tool":"echo"}';

    expect(TRANSITION_KEY_SCHEMA).toBe('hyphae.transition/v1');
    expect(transitionKey(base)).toBe(sha256(canonical));
  });

  it('carries the dispatch id, sorted into place, when given one', () => {
    const canonical =
      '{"agentId":"a","argsFingerprint":"abc","dispatchId":"call_1","policyVersion":"p","schema":"hyphae.transition/v1","scope":{"runId":"r","threadId":"t"},"sideEffectClass":"read","tool":"echo"}';

    expect(transitionKey({ ...base, scope: { threadId: 't', runId: 'r' }, dispatchId: 'call_1' })).toBe(
      sha256(canonical),
    );
  });

  it('is 64 lowercase hex characters', () => {
    expect(transitionKey(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each<[string, Partial<Parameters<typeof transitionKey>[0]>]>([
    ['tool', { tool: 'other' }],
    ['argsFingerprint', { argsFingerprint: 'abd' }],
    ['sideEffectClass', { sideEffectClass: 'keyed_mutate' }],
    ['agentId', { agentId: 'b' }],
    ['policyVersion', { policyVersion: 'q' }],
    ['scope', { scope: { threadId: 't' } }],
    ['dispatchId', { dispatchId: 'call_1' }],
    ['kind (task)', { kind: 'task' }],
  ])('changes with %s', (_field, change) => {
    expect(transitionKey({ ...base, ...change })).not.toBe(transitionKey(base));
  });

  it('treats scope { runId: undefined } and {} as one scope', () => {
    const withUndefined = { runId: undefined, threadId: undefined } as unknown as LedgerScope;

    expect(transitionKey({ ...base, scope: withUndefined })).toBe(transitionKey({ ...base, scope: {} }));
  });

  it('a tool kind is the same key as no kind', () => {
    expect(transitionKey({ ...base, kind: 'tool' })).toBe(transitionKey(base));
  });
});

describe('argsFingerprint', () => {
  it('is the SHA-256 of the canonical arguments', () => {
    expect(argsFingerprint({ b: 1, a: 'x' })).toBe(sha256('{"a":"x","b":1}'));
  });

  it('ignores argument key order, at every depth', () => {
    expect(argsFingerprint({ a: 1, b: { c: 2, d: [1, { e: 3, f: 4 }] } })).toBe(
      argsFingerprint({ b: { d: [1, { f: 4, e: 3 }], c: 2 }, a: 1 }),
    );
  });

  it('leaves out the excluded parameters', () => {
    expect(argsFingerprint({ amount: 1, idempotencyKey: 'k1' }, ['idempotencyKey'])).toBe(fingerprint({ amount: 1 }));
  });

  it('treats missing arguments as null', () => {
    expect(argsFingerprint(undefined)).toBe(fingerprint(null));
  });
});

describe('the key of a ledgered call', () => {
  it('does not depend on the order of the arguments', () => {
    expect(keyOf(pay, { amount: 5, recipient: 'acct' }, { toolCallId: 'c1' })).toBe(
      keyOf(pay, { recipient: 'acct', amount: 5 }, { toolCallId: 'c1' }),
    );
  });

  it('leaves out the provider idempotency-key parameter (a swapped key lands on the same transition)', () => {
    expect(keyOf(pay, { amount: 5, idempotencyKey: 'k1' }, { toolCallId: 'c1' })).toBe(
      keyOf(pay, { amount: 5, idempotencyKey: 'k2' }, { toolCallId: 'c1' }),
    );
  });

  it('leaves out bookkeeping parameters', () => {
    expect(keyOf(pay, { amount: 5, traceId: 't1', attempt: 1 }, { toolCallId: 'c1' })).toBe(
      keyOf(pay, { amount: 5, traceId: 't2', attempt: 2 }, { toolCallId: 'c1' }),
    );
  });

  it('keeps every other argument', () => {
    expect(keyOf(pay, { amount: 5 }, { toolCallId: 'c1' })).not.toBe(keyOf(pay, { amount: 6 }, { toolCallId: 'c1' }));
  });

  it('is the documented transition key over the args fingerprint without the excluded parameters', () => {
    const expected = transitionKey({
      scope: {},
      tool: 'send_payment',
      argsFingerprint: fingerprint({ amount: 5 }),
      sideEffectClass: 'keyed_mutate',
      agentId: 'agent',
      policyVersion: 'p1',
      dispatchId: 'c1',
    });

    expect(keyOf(pay, { amount: 5, idempotencyKey: 'k', traceId: 'x' }, { toolCallId: 'c1' })).toBe(expected);
  });

  it('with identity `call` (the default), includes the tool call id', () => {
    expect(keyOf(pay, { amount: 5 }, { toolCallId: 'c1' })).not.toBe(keyOf(pay, { amount: 5 }, { toolCallId: 'c2' }));
  });

  it('with identity `intent`, leaves the tool call id out', () => {
    const intent: ToolSpec = { ...pay, identity: 'intent' };

    expect(keyOf(intent, { amount: 5 }, { toolCallId: 'c1' })).toBe(keyOf(intent, { amount: 5 }, { toolCallId: 'c2' }));
    expect(keyOf(intent, { amount: 5 }, { toolCallId: 'c1' })).toBe(keyOf(intent, { amount: 5 }));
  });

  it('takes the dispatch id from the request id when there is no tool call id', () => {
    expect(keyOf(pay, { amount: 5 }, { requestId: 'req' })).toBe(keyOf(pay, { amount: 5 }, { toolCallId: 'req' }));
  });

  it('takes the dispatch id from the run context when the call gives none', () => {
    const context: RunContext = { scope: {}, dispatchId: 'd1' };

    expect(keyOf(pay, { amount: 5 }, {}, context)).toBe(keyOf(pay, { amount: 5 }, { toolCallId: 'd1' }));
    expect(keyOf(pay, { amount: 5 }, { toolCallId: 'c9' }, context)).toBe(
      keyOf(pay, { amount: 5 }, { toolCallId: 'c9' }),
    );
  });

  it('resolves a class alias before keying', () => {
    expect(keyOf({ ...pay, sideEffectClass: 'payment' }, { amount: 5 })).toBe(
      keyOf({ ...pay, sideEffectClass: 'non_idempotent_mutate' }, { amount: 5 }),
    );
    expect(keyOf({ ...pay, sideEffectClass: 'payment' }, { amount: 5 })).not.toBe(keyOf(pay, { amount: 5 }));
  });

  it('includes the scope, with undefined scope fields dropped', () => {
    const undefinedRun = { threadId: 't', runId: undefined } as unknown as LedgerScope;

    expect(keyOf(pay, { amount: 5 }, { scope: undefinedRun })).toBe(
      keyOf(pay, { amount: 5 }, { scope: { threadId: 't' } }),
    );
    expect(keyOf(pay, { amount: 5 }, { scope: { threadId: 't' } })).not.toBe(keyOf(pay, { amount: 5 }));
  });
});

describe('ticketKey', () => {
  it('depends on thread, run and ticket but not on the node', () => {
    expect(ticketKey({ threadId: 't', runId: 'r', node: 'a' }, 'agent', 'c1')).toBe(
      ticketKey({ threadId: 't', runId: 'r', node: 'b' }, 'agent', 'c1'),
    );
    expect(ticketKey({ threadId: 't', runId: 'r' }, 'agent', 'c1')).not.toBe(
      ticketKey({ threadId: 't', runId: 'r2' }, 'agent', 'c1'),
    );
    expect(ticketKey({}, 'agent', 'c1')).not.toBe(ticketKey({}, 'agent', 'c2'));
  });

  it('is the SHA-256 of its own canonical JSON (schema hyphae.ticket/v1)', () => {
    const canonicalTicket = canonicalJson({ schema: 'hyphae.ticket/v1', agentId: 'agent', ticket: 'c1' });

    expect(ticketKey({}, 'agent', 'c1')).toBe(sha256(canonicalTicket));
  });
});

describe('key texts written member by member are the canonical JSON of the identity', () => {
  const text = fc.string({ unit: 'binary', maxLength: 12 });
  const scope = fc.record({ threadId: text, runId: text, node: text }, { requiredKeys: [] });

  it('the transition key text equals canonicalJson of its object, for any strings and scope', () => {
    fc.assert(
      fc.property(
        fc.record(
          { scope, tool: text, argsFingerprint: text, agentId: text, policyVersion: text, dispatchId: text },
          { requiredKeys: ['scope', 'tool', 'argsFingerprint', 'agentId', 'policyVersion'] },
        ),
        fc.constantFrom('read', 'single_use', 'keyed_mutate'),
        fc.boolean(),
        (input, sideEffectClass, task) => {
          // fast-check types absent keys as `?: T | undefined`; they are absent, never undefined.
          const identity = (
            task ? { ...input, sideEffectClass, kind: 'task' } : { ...input, sideEffectClass }
          ) as TransitionKeyInput;
          const expected = canonicalJson({
            schema: TRANSITION_KEY_SCHEMA,
            ...(task ? { kind: 'task' } : {}),
            scope: { threadId: input.scope.threadId, runId: input.scope.runId, node: input.scope.node },
            tool: input.tool,
            argsFingerprint: input.argsFingerprint,
            sideEffectClass,
            agentId: input.agentId,
            policyVersion: input.policyVersion,
            dispatchId: input.dispatchId,
          });
          expect(transitionKeyText(identity)).toBe(expected);
          expect(transitionKey(identity)).toBe(sha256(expected));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the ticket key text equals canonicalJson of its object; the node is not part of it', () => {
    fc.assert(
      fc.property(scope, text, text, (s, agentId, ticket) => {
        const expected = canonicalJson({
          schema: 'hyphae.ticket/v1',
          agentId,
          threadId: s.threadId,
          runId: s.runId,
          ticket,
        });
        expect(ticketKeyText(s as LedgerScope, agentId, ticket)).toBe(expected);
        expect(ticketKey(s as LedgerScope, agentId, ticket)).toBe(sha256(expected));
      }),
      { numRuns: 500 },
    );
  });
});
