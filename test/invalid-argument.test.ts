/**
 * Every public entry called with garbage — null, a number, a string, an object whose every trap
 * throws, a value nested 100k levels — refuses it with a GuardError and a stable code, never a
 * TypeError or RangeError from somewhere inside.
 */
import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from '../src/harness/index.js';
import {
  allOf,
  anyOf,
  argsFingerprint,
  assertTranscript,
  bounded,
  budgetFuse,
  canaryFuse,
  canonicalJson,
  compareHistories,
  compileSchema,
  countHistoryTokens,
  createCharTokenCounter,
  createEd25519Signer,
  createEd25519Verifier,
  createFuseBox,
  createGptTokenCounter,
  createHistoryGuard,
  createHmacSigner,
  createHmacVerifier,
  createJsonlReceiptSink,
  createLedger,
  createMemoryStorage,
  createReceiptSigner,
  createReceiptWriter,
  createRunSnapshots,
  createSession,
  createToolRegistry,
  createToolRunner,
  detectTranscriptFormat,
  except,
  fingerprint,
  fromAiSdkMessages,
  fromAnthropicMessages,
  GuardError,
  judgeGate,
  loadConfig,
  loopFuse,
  mergeState,
  parseConfig,
  permissionFuse,
  protect,
  recordExternalOperation,
  repairTranscript,
  resolveGate,
  sha256Hex,
  sideEffect,
  ticketKey,
  toAiSdkMessages,
  toAnthropicMessages,
  toolCallSignature,
  transitionKey,
  validateConfig,
  validateTranscript,
  verifyReceipts,
  withSession,
} from '../src/index.js';
import { sealReceipt } from '../src/ledger/receipts/receipt-writer.js';
import { makeTestRecord } from '../src/testing/index.js';
import { boom, GARBAGE } from './helpers/garbage.js';

type Kind = keyof typeof GARBAGE;
const ALL: readonly Kind[] = ['null', 'number', 'string', 'proxy', 'deep'];
const NOT_STRING: readonly Kind[] = ['null', 'number', 'proxy', 'deep'];
const OBJECTS: readonly Kind[] = ['null', 'number', 'string', 'proxy'];

const GATE_ATTEMPT = { providerIdempotencyKey: null, providerKeyParamDeclared: false };
const ledger = createLedger({ storage: createMemoryStorage(), agentId: 'a', policyVersion: '1' });
const tool = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async () => 1);
const hmac = createHmacVerifier({ key: 'k'.repeat(32), keyId: 'k1' });
const signer = createHmacSigner({ key: 'k'.repeat(32), keyId: 'k1' });
const config = await loadConfig({ text: 'transcript:\n  repair: true\n' });

/** [entry, call with the garbage value, which garbage, the code it must raise]. */
const ENTRIES: readonly (readonly [string, (g: unknown) => unknown, readonly Kind[], string])[] = [
  ['repairTranscript(messages)', (g) => repairTranscript(g as never), NOT_STRING.concat('string'), 'invalid_argument'],
  ['repairTranscript(_, options)', (g) => repairTranscript([], g as never), OBJECTS, 'invalid_argument'],
  [
    'repairTranscript([garbage])',
    (g) => repairTranscript([{ role: 'user', content: 'x' }, g]),
    ['proxy'],
    'invalid_argument',
  ],
  ['validateTranscript(messages)', (g) => validateTranscript(g as never), ALL, 'invalid_argument'],
  ['validateTranscript(_, options)', (g) => validateTranscript([], g as never), OBJECTS, 'invalid_argument'],
  ['assertTranscript(messages)', (g) => assertTranscript(g as never), ALL, 'invalid_argument'],
  ['detectTranscriptFormat(messages)', (g) => detectTranscriptFormat(g as never), ALL, 'invalid_argument'],
  ['fromAiSdkMessages(messages)', (g) => fromAiSdkMessages(g as never), ALL, 'invalid_argument'],
  ['toAiSdkMessages(messages)', (g) => toAiSdkMessages(g as never), ALL, 'invalid_argument'],
  ['fromAnthropicMessages(messages)', (g) => fromAnthropicMessages(g as never), ALL, 'invalid_argument'],
  ['fromAnthropicMessages(_, options)', (g) => fromAnthropicMessages([], g as never), OBJECTS, 'invalid_argument'],
  ['toAnthropicMessages(messages)', (g) => toAnthropicMessages(g as never), ALL, 'invalid_argument'],
  ['validateConfig(text)', (g) => validateConfig(g as never), NOT_STRING, 'invalid_argument'],
  ['validateConfig(_, options)', (g) => validateConfig('{}', g as never), OBJECTS, 'invalid_argument'],
  ['parseConfig(text)', (g) => parseConfig(g as never), NOT_STRING, 'invalid_argument'],
  ['loadConfig(source)', (g) => loadConfig(g as never), NOT_STRING, 'invalid_argument'],
  ['loadConfig({ text })', (g) => loadConfig({ text: g as never }), NOT_STRING, 'invalid_argument'],
  ['config.prepareMessages(messages)', (g) => config.prepareMessages(g as never), ALL, 'invalid_argument'],
  ['loadConfig(_, options)', (g) => loadConfig({ text: '{}' }, g as never), OBJECTS, 'invalid_argument'],
  ['applyJsonPatch(_, [op])', (g) => applyJsonPatch({}, [g]), ALL, 'invalid_patch|non_json_value'],
  ['applyJsonPatch(document)', (g) => applyJsonPatch(g, []), ['proxy', 'deep'], 'non_json_value|limit_exceeded'],
  ['applyJsonPatch(_, _, limits)', (g) => applyJsonPatch({}, [], g as never), OBJECTS, 'invalid_limits'],
  ['verifyReceipts(source)', (g) => verifyReceipts(g as never, { keys: hmac }), NOT_STRING, 'invalid_argument'],
  ['verifyReceipts(_, options)', (g) => verifyReceipts([], g as never), OBJECTS, 'invalid_argument'],
  ['ledgered tool(args)', (g) => tool(g), ['proxy', 'deep'], 'non_json_value'],
  ['ledgered tool(_, options)', (g) => tool({}, g as never), OBJECTS, 'invalid_argument'],
  ['canonicalJson(value)', (g) => canonicalJson(g), ['proxy', 'deep'], 'non_json_value'],
  ['fingerprint(value)', (g) => fingerprint(g), ['proxy', 'deep'], 'non_json_value'],
  ['createLedger(options)', (g) => createLedger(g as never), OBJECTS, 'invalid_argument'],
  ['createFuseBox(options)', (g) => createFuseBox(g as never), OBJECTS, 'invalid_argument'],
  ['budgetFuse(options)', (g) => budgetFuse(g as never), OBJECTS, 'invalid_argument'],
  ['canaryFuse(options)', (g) => canaryFuse(g as never), OBJECTS, 'invalid_argument'],
  ['loopFuse(options)', (g) => loopFuse(g as never), OBJECTS, 'invalid_argument'],
  ['permissionFuse(options)', (g) => permissionFuse(g as never), OBJECTS, 'invalid_argument'],
  ['judgeGate(options)', (g) => judgeGate(g as never), OBJECTS, 'invalid_argument'],
  ['createHistoryGuard(options)', (g) => createHistoryGuard(g as never), OBJECTS, 'invalid_argument'],
  ['compareHistories(original)', (g) => compareHistories(g as never, []), ALL, 'invalid_argument'],
  ['countHistoryTokens(messages)', (g) => countHistoryTokens(g as never, () => 1), ALL, 'invalid_argument'],
  ['createSession(options)', (g) => createSession(g as never), OBJECTS, 'invalid_argument'],
  ['withSession(fn)', (g) => withSession(g as never), ALL, 'invalid_argument'],
  ['withSession(_, options)', (g) => withSession(() => 1, g as never), OBJECTS, 'invalid_argument'],
  ['protect(options)', (g) => protect(g as never, () => 1), OBJECTS, 'invalid_argument'],
  ['bounded(options)', (g) => bounded(g as never, () => 1), OBJECTS, 'invalid_argument'],
  ['createToolRegistry(options)', (g) => createToolRegistry(g as never), OBJECTS, 'invalid_argument'],
  ['createToolRunner(options)', (g) => createToolRunner(g as never), OBJECTS, 'invalid_argument'],
  ['createCharTokenCounter(options)', (g) => createCharTokenCounter(g as never), OBJECTS, 'invalid_argument'],
  ['createGptTokenCounter(options)', (g) => createGptTokenCounter(g as never), OBJECTS, 'invalid_argument'],
  ['createReceiptWriter(options)', (g) => createReceiptWriter(g as never), OBJECTS, 'invalid_argument'],
  ['createRunSnapshots(options)', (g) => createRunSnapshots(g as never), OBJECTS, 'invalid_argument'],
  ['createJsonlReceiptSink(options)', (g) => createJsonlReceiptSink(g as never), OBJECTS, 'invalid_argument'],
  ['createHmacSigner(options)', (g) => createHmacSigner(g as never), OBJECTS, 'invalid_argument'],
  ['createHmacVerifier(options)', (g) => createHmacVerifier(g as never), OBJECTS, 'invalid_argument'],
  ['createEd25519Signer(options)', (g) => createEd25519Signer(g as never), OBJECTS, 'invalid_argument'],
  ['createEd25519Verifier(options)', (g) => createEd25519Verifier(g as never), OBJECTS, 'invalid_argument'],
  ['mergeState(_, patch)', (g) => mergeState({}, g as never), ALL, 'invalid_argument|non_json_value'],
  ['recordExternalOperation(ref)', (g) => recordExternalOperation(g as never), NOT_STRING, 'invalid_argument'],
  ['config.run(scope)', (g) => config.run(g as never, () => 1), OBJECTS, 'invalid_argument'],
  ['sideEffect(fn)', (g) => sideEffect(g as never), ALL, 'invalid_argument'],
  ['allOf(fuse)', (g) => allOf(g as never), ALL, 'invalid_argument'],
  ['anyOf(fuse)', (g) => anyOf(loopFuse(), g as never), ALL, 'invalid_argument'],
  ['except(condition)', (g) => except(g as never, loopFuse()), ['null', 'number', 'proxy', 'deep'], 'invalid_argument'],
  ['except(_, fuse)', (g) => except('x', g as never), ALL, 'invalid_argument'],
  [
    'sealReceipt(draft)',
    (g) => sealReceipt(g as never, { seq: 0, hash: null }, signer),
    ALL,
    'invalid_argument|non_json_value',
  ],
  [
    'createJsonlReceiptSink({ path })',
    (g) => createJsonlReceiptSink({ path: g as never }),
    NOT_STRING,
    'invalid_argument',
  ],
  ['transitionKey(input)', (g) => transitionKey(g as never), ALL, 'invalid_argument'],
  ['ticketKey(scope)', (g) => ticketKey(g as never, 'a', 't'), OBJECTS, 'invalid_argument'],
  ['argsFingerprint(_, excluded)', (g) => argsFingerprint({ a: 1 }, g as never), ALL, 'invalid_argument'],
  ['createReceiptSigner(settings)', (g) => createReceiptSigner(g as never), OBJECTS, 'invalid_argument'],
  ['resolveGate(record)', (g) => resolveGate(g as never, GATE_ATTEMPT, 0), OBJECTS, 'invalid_argument'],
  [
    'resolveGate(_, attempt)',
    (g) => resolveGate(makeTestRecord(), g as never, 0),
    ['null', 'number', 'string'],
    'invalid_argument',
  ],
  [
    'resolveGate(_, _, now)',
    (g) => resolveGate(makeTestRecord(), GATE_ATTEMPT, g as never),
    ['null', 'string', 'proxy', 'deep'],
    'invalid_argument',
  ],
  ['toolCallSignature(call)', (g) => toolCallSignature(g as never), ALL, 'invalid_argument'],
  [
    'toolCallSignature({ args })',
    (g) => toolCallSignature({ name: 'f', args: g }),
    ['proxy', 'deep'],
    'non_json_value',
  ],
  ['sha256Hex(text)', (g) => sha256Hex(g as never), NOT_STRING, 'invalid_argument'],
  ['compileSchema(schema)', (g) => compileSchema(g as never), ALL, 'invalid_schema'],
];

const CASES = ENTRIES.flatMap(([entry, call, kinds, code]) => kinds.map((kind) => [entry, kind, call, code] as const));

async function outcome(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('public entries refuse garbage with a GuardError and a stable code', () => {
  it.each(CASES)('%s with %s', async (_, kind, call, code) => {
    const error = await outcome(() => call(GARBAGE[kind]));

    expect(error).toBeInstanceOf(GuardError);
    expect((error as GuardError).code).toMatch(new RegExp(`^(${code})$`));
    expect((error as GuardError).message).not.toBe('');
  });

  it('names the function and the argument in an InvalidArgumentError', async () => {
    const error = await outcome(() =>
      repairTranscript([], {
        get format(): never {
          return boom();
        },
      }),
    );

    expect(error).toMatchObject({
      code: 'invalid_argument',
      fn: 'repairTranscript',
      argument: 'options.format',
      message: '`repairTranscript`: `options.format` cannot be read',
    });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });
});

describe('the adapters check each object argument by its own name', () => {
  const model = { getResponse: async () => ({}), getStreamedResponse: async function* () {} };

  it('names a missing required argument, and the first of several that are wrong', async () => {
    const { createGuardPipeline, guardModel, guardModelProvider } = await import('../src/adapters/openai-agents.js');
    const { guardTools } = await import('../src/adapters/ai-sdk.js');
    const pipeline = createGuardPipeline();

    expect(await outcome(() => guardModel(model as never, undefined as never, {} as never))).toMatchObject({
      code: 'invalid_argument',
      fn: 'guardModel',
      argument: 'guards',
      message: '`guardModel`: `guards` is required',
    });
    // `options` is required here: it names the model the calls are priced at.
    expect(await outcome(() => guardModel(model as never, pipeline, undefined as never))).toMatchObject({
      fn: 'guardModel',
      argument: 'options',
    });
    expect(await outcome(() => guardModelProvider(7 as never, 'x' as never, {} as never))).toMatchObject({
      fn: 'guardModelProvider',
      argument: 'provider',
      message: '`guardModelProvider`: `provider` must be an object, got the number `7`',
    });
    expect(await outcome(() => guardTools({}, 'x' as never))).toMatchObject({ fn: 'guardTools', argument: 'guards' });
  });

  it('lets an optional argument be absent, and refuses it when it is not an object', async () => {
    const { hyphaeCallModelInputFilter } = await import('../src/adapters/openai-agents.js');

    expect(typeof hyphaeCallModelInputFilter()).toBe('function');
    expect(await outcome(() => hyphaeCallModelInputFilter(undefined, 3 as never))).toMatchObject({
      fn: 'hyphaeCallModelInputFilter',
      argument: 'options',
    });
  });
});
