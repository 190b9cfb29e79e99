/**
 * Conformance cases: create, get, the ticket index, and copies.
 */
import assert from 'node:assert/strict';
import type { TransitionRecord } from '../../records/transition-record.js';
import { createNew, scribbleOn, uniqueName } from './assertions.js';
import type { ConformanceSuite } from './harness.js';
import { makeTestRecord } from './make-test-record.js';

const UNICODE = 'Zoë — 東京 🚀 مرحبا e\u0301 \u2028 "quoted" \\ back\tslash';

const NESTED_RESULT = {
  amount: 100.25,
  currency: 'EUR',
  big: Number.MAX_SAFE_INTEGER,
  negative: -42,
  tiny: 1e-7,
  flags: [true, false, null],
  nested: { deep: [1, [2, [3, { leaf: null }]]], empty: {}, none: [] },
  text: UNICODE,
  'clé 🔑': 'value',
};

/** Register the create / get / ticket-index cases. */
export function defineRecordCases(suite: ConformanceSuite): void {
  suite.group('create and get', () => {
    suite.test('create then get round-trips the record, with or without a result', async ({ open }) => {
      const client = await open();
      const variants: TransitionRecord[] = [
        makeTestRecord(),
        makeTestRecord({ outcome: 'COMPLETED', boundary: 'crossed', result: NESTED_RESULT, completedAt: 1 }),
        makeTestRecord({ outcome: 'COMPLETED', result: null }),
        makeTestRecord({ outcome: 'COMPLETED', result: 0 }),
        makeTestRecord({ outcome: 'COMPLETED', result: UNICODE }),
        makeTestRecord({
          tool: `tool_${UNICODE}`,
          scope: { threadId: UNICODE },
          owner: null,
          leaseUntil: null,
          error: { name: 'Error', message: UNICODE, code: 'E_BOOM' },
          externalOperationRef: 'pi_123',
          operatorResolution: {
            verified: 'not_executed',
            by: 'ops@example.com',
            reason: UNICODE,
            at: 5,
            consumedAt: null,
            previousOutcome: 'UNKNOWN',
          },
        }),
        // A worker declared dead: the signal is the evidence a peer's takeover rests on.
        makeTestRecord({
          owner: 'host-a:11:aaaa#1',
          fence: 2,
          leaseUntil: 7,
          error: { name: 'WorkerDead', message: UNICODE },
          workerDeath: {
            owner: 'host-a:11:aaaa#1',
            fence: 2,
            by: 'ops@example.com',
            reason: UNICODE,
            at: 7,
            overrideHeartbeat: true,
            heartbeatAgeMs: 3,
          },
        }),
      ];
      for (const record of variants) {
        const created = await client.create(record);
        assert.deepEqual(created, { created: true, record });
        const stored = await client.get(record.key);
        assert.deepEqual(stored, record);
        assert.equal(stored !== null && Object.hasOwn(stored, 'result'), Object.hasOwn(record, 'result'));
      }
    });

    suite.test('get of an unknown key is null', async ({ open }) => {
      const client = await open();
      assert.equal(await client.get(makeTestRecord().key), null);
    });

    suite.test('create on an existing key returns the existing record and changes nothing', async ({ open }) => {
      const client = await open();
      const first = makeTestRecord();
      await createNew(client, first);
      const second = makeTestRecord({ key: first.key, owner: 'owner-2', fence: 2, outcome: 'COMPLETED' });
      assert.deepEqual(await client.create(second), { created: false, conflict: 'key', record: first });
      assert.deepEqual(await client.get(first.key), first);
      assert.equal(await client.findByTicket(second.ticketKey ?? ''), null, 'the loser claims no ticket');
    });

    suite.test('create with a ticket another record holds returns the holder and inserts nothing', async ({ open }) => {
      const client = await open();
      const holder = makeTestRecord();
      await createNew(client, holder);
      const rival = makeTestRecord({ ticketKey: holder.ticketKey, argsFingerprint: 'different-arguments' });
      assert.deepEqual(await client.create(rival), { created: false, conflict: 'ticket', record: holder });
      assert.equal(await client.get(rival.key), null);
      assert.deepEqual(await client.findByTicket(holder.ticketKey ?? ''), holder);
    });

    suite.test('records without a ticket claim no index entry', async ({ open }) => {
      const client = await open();
      const first = makeTestRecord({ ticket: null, ticketKey: null });
      const second = makeTestRecord({ ticket: null, ticketKey: null });
      await createNew(client, first);
      await createNew(client, second);
      assert.deepEqual(await client.get(second.key), second);
      assert.equal(await client.findByTicket('null'), null);
      assert.equal(await client.findByTicket(''), null);
    });

    suite.test('findByTicket finds the holder, and null for an unknown ticket', async ({ open }) => {
      const client = await open();
      const holder = makeTestRecord();
      await createNew(client, holder);
      assert.deepEqual(await client.findByTicket(holder.ticketKey ?? ''), holder);
      assert.equal(await client.findByTicket(makeTestRecord().ticketKey ?? ''), null);
    });

    suite.test('returned records are copies: changing one leaves the store unchanged', async ({ open }) => {
      const client = await open();
      const input = makeTestRecord({ tool: uniqueName('copies'), outcome: 'COMPLETED', result: { paid: true } });
      const pristine = structuredClone(input);
      const created = await client.create(input);
      scribbleOn(input);
      scribbleOn(created.record);
      const got = await client.get(pristine.key);
      assert.ok(got !== null);
      scribbleOn(got);
      const found = await client.findByTicket(pristine.ticketKey ?? '');
      assert.ok(found !== null);
      scribbleOn(found);
      for (const listed of (await client.list({ tool: pristine.tool })).records) scribbleOn(listed);
      assert.deepEqual(await client.get(pristine.key), pristine);
    });
  });
}
