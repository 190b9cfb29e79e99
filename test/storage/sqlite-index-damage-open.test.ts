import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLedger, LedgerStorageCorruptError, type TransitionRecord } from '../../src/index.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { addRecords, checks, type DamagedEntry, damageIndexEntry, interiorEntry } from '../helpers/sqlite-damage.js';
import { SQLITE_DRIVERS } from './sqlite-drivers.js';

const dir = mkdtempSync(join(tmpdir(), 'hyphae-sqlite-index-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));

/** The three recorded calls: two with a tool call id (a ticket), one without. */
const CALLS = [
  { id: 'a', toolCallId: 'call-a' },
  { id: 'b', toolCallId: 'call-b' },
  { id: 'c', toolCallId: undefined },
] as const;

type Recorded = Record<(typeof CALLS)[number]['id'], TransitionRecord>;

/** Each way of damaging the indexes; every one must keep all three calls from running again. */
const DAMAGE: readonly [string, (file: string, calls: Recorded) => DamagedEntry[]][] = [
  ['the key entry of a call without a tool call id', (file, { c }) => [damageIndexEntry(file, 'key', c.key)]],
  [
    'both entries of a call with a tool call id',
    (file, { a }) => [damageIndexEntry(file, 'key', a.key), damageIndexEntry(file, 'ticket', String(a.ticketKey))],
  ],
  ['a ticket entry alone', (file, { b }) => [damageIndexEntry(file, 'ticket', String(b.ticketKey))]],
  [
    "the entry in the key's second index of a call without a tool call id",
    (file, { c }) => [damageIndexEntry(file, 'witness', c.key)],
  ],
  [
    'the key entries of all three calls',
    (file, calls) => CALLS.map(({ id }) => damageIndexEntry(file, 'key', calls[id].key)),
  ],
  // Rows 1 to 3 are the calls; row 3's entry (c, no ticket) now leads to row 2 (b).
  ['a key entry pointing at another row', (file, { c }) => [damageIndexEntry(file, 'key', c.key, { rowid: 2 })]],
  [
    'a cell of an interior page of the key index',
    (file) => [damageIndexEntry(file, 'key', interiorEntry(file, 'key'))],
  ],
  [
    'a cell of an interior page of the ticket index',
    (file) => [damageIndexEntry(file, 'ticket', interiorEntry(file, 'ticket'))],
  ],
];

const MATRIX = SQLITE_DRIVERS.flatMap((driver) =>
  (['FULL', 'NORMAL'] as const).flatMap((synchronous) =>
    DAMAGE.map(([what, damage]) => ({ driver, synchronous, what, damage })),
  ),
);

describe('a SQLite ledger whose index was damaged on disk', () => {
  it.each(MATRIX)(
    'refuses to open through $driver ($synchronous) after $what',
    async ({ driver, synchronous, damage }) => {
      const file = join(dir, `ledger-${randomUUID()}.db`);
      const open = () =>
        createLedger({
          storage: createSqliteStorage({ path: file, driver }, { synchronous }),
          agentId: 'a',
          policyVersion: '1',
        });
      const effects: string[] = [];
      const spec = { name: 'pay', sideEffectClass: 'non_idempotent_mutate' } as const;
      const first = open();
      const pay = first.tool(spec, async ({ id }: { id: string }) => effects.push(id));
      for (const { id, toolCallId } of CALLS) await pay({ id }, toolCallId === undefined ? {} : { toolCallId });
      const listed = (await first.list({ tool: 'pay' })).records;
      await first.close();
      const byTicket = (ticket: string | null) => listed.find((record) => record.ticket === ticket) ?? assert.fail();
      const recorded: Recorded = { a: byTicket('call-a'), b: byTicket('call-b'), c: byTicket(null) };
      expect(recorded.c.ticketKey).toBeNull();
      // Enough records that each index spans leaf pages under an interior page.
      addRecords(file, 300);
      expect(checks(file).integrity).toBe('ok');

      const damaged = damage(file, recorded);
      expect(damaged.length).toBeGreaterThan(0);
      // The b-trees stay well formed: only `integrity_check`, which compares them with the table, sees it.
      expect(checks(file)).toMatchObject({ quick: 'ok', integrity: expect.not.stringMatching(/^ok$/) });

      const second = open();
      const again = second.tool(spec, async ({ id }: { id: string }) => effects.push(id));
      for (const { id, toolCallId } of CALLS) {
        const error: unknown = await again({ id }, toolCallId === undefined ? {} : { toolCallId }).catch(
          (reason: unknown) => reason,
        );
        assert.ok(error instanceof LedgerStorageCorruptError, `call ${id}: ${String(error)}`);
        expect(error.code).toBe('ledger_storage_corrupt');
        expect(error.message).toContain('`hyphae doctor --deep`');
      }
      expect(effects).toEqual(['a', 'b', 'c']);
      await second.close();
    },
  );
});
