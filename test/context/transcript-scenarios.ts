/**
 * One scenario per transcript issue: the abstract transcript, the issues it must raise and what
 * its repair must produce, identical for the three formats (compared through `project`).
 */
import type { TranscriptChangeKind, TranscriptIssueCode } from '../../src/context/transcript/types.js';
import { type Abstract, assistant, invalid, results, user } from './transcript-fixtures.js';

/** An expected issue: code, abstract item, and the result's position inside a results item. */
export type ExpectedIssue = readonly [TranscriptIssueCode, number, number?];

export interface Scenario {
  readonly name: string;
  readonly items: readonly Abstract[];
  readonly issues: readonly ExpectedIssue[];
  /** Projection of the repair with `unanswered: 'synthesize'`; `prefix` is the generated-id prefix. */
  readonly synthesize: (prefix: string) => readonly string[];
  /** Projection with `unanswered: 'drop'` when it differs. */
  readonly drop?: (prefix: string) => readonly string[];
  readonly changes: readonly TranscriptChangeKind[];
  readonly dropChanges?: readonly TranscriptChangeKind[];
}

const asked = 'user hi';
const answered = (id: string, text = `result of ${id}`): string => `tool ${id}: ${text}`;

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'invalid_role',
    items: [user('hi'), invalid('robot'), assistant(['call_1']), results('call_1')],
    issues: [['invalid_role', 1]],
    synthesize: () => [asked, 'assistant [call_1 lookup]', answered('call_1')],
    changes: ['dropped_invalid_message'],
  },
  {
    name: 'missing_tool_call_id',
    items: [user('hi'), assistant([{ name: 'lookup' }]), results({ text: 'lost' })],
    issues: [
      ['missing_tool_call_id', 1],
      ['missing_tool_call_id', 2, 0],
    ],
    synthesize: (p) => [asked, `assistant [${p}hyphae_1_0 lookup]`, `tool ${p}hyphae_1_0: NOT EXECUTED`],
    drop: () => [asked],
    changes: ['assigned_tool_call_id', 'synthesized_tool_result', 'dropped_orphaned_tool_result'],
    dropChanges: [
      'assigned_tool_call_id',
      'dropped_unanswered_tool_call',
      'dropped_empty_message',
      'dropped_orphaned_tool_result',
    ],
  },
  {
    name: 'duplicate_tool_call_ids (calls)',
    items: [
      user('hi'),
      assistant([
        { id: 'call_1', name: 'first' },
        { id: 'call_1', name: 'last' },
      ]),
      results('call_1'),
    ],
    issues: [['duplicate_tool_call_ids', 1]],
    synthesize: () => [asked, 'assistant [call_1 last]', answered('call_1')],
    changes: ['dropped_duplicate_tool_call'],
  },
  {
    name: 'duplicate_tool_call_ids (results)',
    items: [
      user('hi'),
      assistant(['call_1']),
      results({ id: 'call_1', text: 'first' }, { id: 'call_1', text: 'last' }),
    ],
    issues: [['duplicate_tool_call_ids', 2, 1]],
    synthesize: () => [asked, 'assistant [call_1 lookup]', answered('call_1', 'last')],
    changes: ['dropped_duplicate_tool_result'],
  },
  {
    name: 'mixed_tool_call_id_families',
    items: [user('hi'), assistant(['call_1', 'call_2', 'fc_3']), results('call_1', 'call_2', 'fc_3')],
    issues: [
      ['mixed_tool_call_id_families', 1],
      ['mixed_tool_call_id_families', 2, 2],
    ],
    synthesize: () => [
      asked,
      'assistant [call_1 lookup, call_2 lookup, call_3 lookup]',
      answered('call_1'),
      answered('call_2'),
      answered('call_3', 'result of fc_3'),
    ],
    changes: ['renamed_tool_call_id'],
  },
  {
    name: 'nonzero_tool_call_index (single call)',
    items: [user('hi'), assistant([{ id: 'call_1', index: 1 }]), results('call_1')],
    issues: [['nonzero_tool_call_index', 1]],
    synthesize: () => [asked, 'assistant [call_1 lookup]', answered('call_1')],
    changes: ['reindexed_tool_call'],
  },
  {
    name: 'nonzero_tool_call_index (index is not the position)',
    items: [
      user('hi'),
      assistant([
        { id: 'call_1', index: 0 },
        { id: 'call_2', index: 0 },
      ]),
      results('call_1', 'call_2'),
    ],
    issues: [['nonzero_tool_call_index', 1]],
    synthesize: () => [asked, 'assistant [call_1 lookup, call_2 lookup]', answered('call_1'), answered('call_2')],
    changes: ['reindexed_tool_call'],
  },
  {
    name: 'orphaned_tool_result (no call declared at all)',
    items: [user('hi'), results('call_9')],
    issues: [['orphaned_tool_result', 1, 0]],
    synthesize: () => [asked],
    changes: ['dropped_orphaned_tool_result'],
  },
  {
    name: 'orphaned_tool_result (next to a real result)',
    items: [user('hi'), assistant(['call_1']), results('call_1', 'call_9')],
    issues: [['orphaned_tool_result', 2, 1]],
    synthesize: () => [asked, 'assistant [call_1 lookup]', answered('call_1')],
    changes: ['dropped_orphaned_tool_result'],
  },
  {
    name: 'misplaced_tool_result (after a user turn)',
    items: [user('hi'), assistant(['call_1']), user('wait'), results('call_1')],
    issues: [
      ['unanswered_tool_call', 1],
      ['misplaced_tool_result', 3, 0],
    ],
    synthesize: () => [asked, 'assistant [call_1 lookup]', answered('call_1'), 'user wait'],
    changes: ['moved_tool_result'],
  },
  {
    name: 'misplaced_tool_result (before its call)',
    items: [user('hi'), results('call_1'), assistant(['call_1'])],
    issues: [
      ['misplaced_tool_result', 1, 0],
      ['unanswered_tool_call', 2],
    ],
    synthesize: () => [asked, 'assistant [call_1 lookup]', answered('call_1')],
    changes: ['moved_tool_result'],
  },
  {
    name: 'unanswered_tool_call',
    items: [user('hi'), assistant(['call_1', 'call_2'], 'checking'), results('call_1')],
    issues: [['unanswered_tool_call', 1]],
    synthesize: () => [
      asked,
      'assistant checking[call_1 lookup, call_2 lookup]',
      answered('call_1'),
      'tool call_2: NOT EXECUTED',
    ],
    drop: () => [asked, 'assistant checking[call_1 lookup]', answered('call_1')],
    changes: ['synthesized_tool_result'],
    dropChanges: ['dropped_unanswered_tool_call'],
  },
  {
    name: 'parsed_artifact',
    items: [user('hi'), assistant([{ id: 'call_1', parsed: true }], undefined, true), results('call_1')],
    issues: [
      ['parsed_artifact', 1],
      ['parsed_artifact', 1],
    ],
    synthesize: () => [asked, 'assistant [call_1 lookup]', answered('call_1')],
    changes: ['stripped_artifact', 'stripped_artifact'],
  },
  {
    name: 'a valid transcript',
    items: [
      user('hi'),
      assistant(['call_1', 'call_2']),
      results('call_1', 'call_2'),
      assistant([], 'done'),
      user('thanks'),
    ],
    issues: [],
    synthesize: () => [
      asked,
      'assistant [call_1 lookup, call_2 lookup]',
      answered('call_1'),
      answered('call_2'),
      'assistant done',
      'user thanks',
    ],
    changes: [],
  },
];
