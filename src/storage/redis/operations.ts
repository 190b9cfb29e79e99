/**
 * The record operations over one key layout: the KEYS and ARGV of the create, update and ticket
 * scripts, and what each reply means. The single-server store and each bucket of the cluster store
 * lay their keys out alike, so both send these commands and read these replies.
 */
import type { TransitionRecord } from '../../records/transition-record.js';
import type { CreateResult } from '../ledger-storage.js';
import { decodeRecord } from '../record-codec.js';
import { replyArray, replyText } from './connection.js';
import { marker } from './list.js';
import { markerGoneError, orphanTicketError } from './preflight.js';

/** Where one keyspace (a server, or a bucket of a cluster) keeps the ledger's keys. */
export interface RecordLayout {
  /** Prefix of the record hashes (`p rec:`). */
  readonly recordPrefix: string;
  /** The list index (`p updated`). */
  readonly index: string;
  /** The ledger marker (`p ledger`). */
  readonly marker: string;
  /** Prefix of the ticket index entries (`p ticket:`). */
  readonly ticketPrefix: string;
}

/** The KEYS of the create script for `record` in `layout`. */
export function createKeys(layout: RecordLayout, record: TransitionRecord): string[] {
  const keys = [`${layout.recordPrefix}${record.key}`, layout.index, layout.marker];
  if (record.ticketKey !== null) keys.push(`${layout.ticketPrefix}${record.ticketKey}`);
  return keys;
}

/** The ARGV of the create script for `record`, its stored form `doc`, in the ledger `ledgerId`. */
export function createArgs(layout: RecordLayout, record: TransitionRecord, doc: string, ledgerId: string): string[] {
  return [
    layout.recordPrefix,
    record.key,
    doc,
    String(record.version),
    String(record.updatedAt),
    record.outcome,
    record.tool,
    record.kind,
    marker(record.ticketKey),
    ledgerId,
  ];
}

/**
 * What the create script answered: `'created'` (the caller waits for its replicas, then answers
 * `createdResult`), or the record that holds the key or the ticket. A marker that is gone, a
 * ticket entry with no record, or any other reply is thrown.
 */
export function createOutcome(
  reply: unknown,
  layout: RecordLayout,
  ledgerId: string,
  locationOf: (key: string) => string,
  key: string,
): 'created' | CreateResult {
  const answer = replyArray(reply);
  const status = replyText(answer[0]);
  if (status === 'created') return 'created';
  if (status === 'ledger') throw markerGoneError(layout.marker, ledgerId);
  const text = replyText(answer[1]);
  if (status === 'orphan') throw orphanTicketError(locationOf(text ?? key));
  if ((status === 'key' || status === 'ticket') && typeof text === 'string') {
    return { created: false, conflict: status, record: decodeRecord(text, locationOf(key)) };
  }
  throw new TypeError('Unexpected reply from the Redis create script');
}

/** The KEYS of the update script for the record under `key`. */
export function updateKeys(layout: RecordLayout, key: string): string[] {
  return [`${layout.recordPrefix}${key}`, layout.index, layout.marker];
}

/** The ARGV of the update script: `candidate`, stored as `doc`, if the record is at `expectedVersion`. */
export function updateArgs(
  key: string,
  expectedVersion: number,
  candidate: TransitionRecord,
  doc: string,
  ledgerId: string,
): string[] {
  return [
    key,
    String(expectedVersion),
    doc,
    String(candidate.version),
    String(candidate.updatedAt),
    candidate.outcome,
    candidate.tool,
    candidate.kind,
    marker(candidate.ticketKey),
    ledgerId,
  ];
}

/**
 * What the update script answered: true (written), false (the record is at another version), or
 * the ticket key the stored record holds, which the candidate must keep (the ticket index entry
 * belongs to the record that first claimed it; updates never move it). A marker that is gone, or any
 * other reply, is thrown.
 */
export function updateOutcome(
  reply: unknown,
  layout: RecordLayout,
  ledgerId: string,
): boolean | { readonly ticketKey: string | null } {
  if (reply === 1) return true;
  if (reply === 0) return false;
  const answer = replyArray(reply);
  if (replyText(answer[0]) === 'ledger') throw markerGoneError(layout.marker, ledgerId);
  const stored = replyText(answer[1]);
  if (replyText(answer[0]) !== 'ticket' || typeof stored !== 'string') {
    throw new TypeError('Unexpected reply from the Redis update script');
  }
  return { ticketKey: stored === '' ? null : stored.slice(1) };
}

/** The KEYS and ARGV of the ticket script for `ticketKey`. */
export function ticketCommand(
  layout: RecordLayout,
  ticketKey: string,
  ledgerId: string,
): { readonly keys: string[]; readonly args: string[] } {
  return { keys: [`${layout.ticketPrefix}${ticketKey}`, layout.marker], args: [layout.recordPrefix, ledgerId] };
}

/** What the ticket script answered: the record that holds the ticket, or null when none does. */
export function ticketOutcome(
  reply: unknown,
  layout: RecordLayout,
  ledgerId: string,
  locationOf: (key: string) => string,
): TransitionRecord | null {
  if (!Array.isArray(reply) && replyText(reply) === null) return null;
  const [status, key, text] = replyArray(reply).map(replyText);
  if (status === 'ledger') throw markerGoneError(layout.marker, ledgerId);
  if (status === 'orphan') throw orphanTicketError(locationOf(key ?? ''));
  if (status !== 'found' || typeof key !== 'string' || typeof text !== 'string') {
    throw new TypeError('Unexpected reply from the Redis ticket script');
  }
  return decodeRecord(text, locationOf(key));
}
