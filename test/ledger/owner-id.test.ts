/**
 * Owner ids are `<prefix>:<16 hex>#<n>` (the prefix is the ledger's `ownerId`, or `host:pid`).
 * `hyphae transitions mark-dead --owner OWNER` picks a dead worker's claims with `heldBy`: OWNER may
 * be one claim, one ledger, or every ledger with that prefix — and never a longer name that merely
 * starts the same way.
 */
import { describe, expect, it } from 'vitest';
import { heldBy, newOwnerPrefix } from '../../src/ledger/owner-id.js';

const LEDGER_A = 'payments:0123456789abcdef';
const LEDGER_B = 'payments:fedcba9876543210';

describe('heldBy', () => {
  it.each([
    ['the owner id itself', `${LEDGER_A}#3`, `${LEDGER_A}#3`],
    ['one ledger: the owner id before #', `${LEDGER_A}#3`, LEDGER_A],
    ['a worker: its ownerId', `${LEDGER_B}#12`, 'payments'],
    ['a process: host:pid', 'web-1:4242:0123456789abcdef#1', 'web-1:4242'],
    ['an owner id of an older format', 'host-b:22:bbbb#3', 'host-b:22:bbbb'],
  ])('matches %s', (_what, held, owner) => {
    expect(heldBy(held, owner)).toBe(true);
  });

  it('matches the claims of a prefix newOwnerPrefix made, by that prefix and by the ownerId', () => {
    const prefix = newOwnerPrefix('payments');
    expect(heldBy(`${prefix}#7`, prefix)).toBe(true);
    expect(heldBy(`${prefix}#7`, 'payments')).toBe(true);
    expect(heldBy(`${newOwnerPrefix(undefined)}#1`, 'payments')).toBe(false);
  });

  it.each([
    ['another claim of the same ledger', `${LEDGER_A}#3`, `${LEDGER_A}#30`],
    ['another ledger', `${LEDGER_B}#1`, LEDGER_A],
    ['a worker whose ownerId only starts the same', 'payments-eu:0123456789abcdef#1', 'payments'],
    ['a host without its pid', 'web-1:4242:0123456789abcdef#1', 'web-1'],
    ['another pid that starts the same', 'web-1:42420:0123456789abcdef#1', 'web-1:4242'],
    ['a part of the random suffix', `${LEDGER_A}#1`, 'payments:0123'],
    ['no owner', null, 'payments'],
    ['an empty OWNER', `${LEDGER_A}#1`, ''],
  ])('does not match %s', (_what, held, owner) => {
    expect(heldBy(held, owner)).toBe(false);
  });
});
