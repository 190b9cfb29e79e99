/**
 * `list` on the cluster layout: one walk per bucket's list index, merged in list order.
 *
 * Each bucket is read with the single-node list script (it examines at most 1,000 index entries
 * per call, so no shard is held long), a few records at a time; the merge takes the newest head of
 * the buckets and reads a bucket again only when its head is used up. The order is total (update
 * time descending, then key descending bytewise) and every record sits in one bucket, so the
 * cursor of the last record returned (the single-node cursor) is the position in every bucket.
 */
import { LedgerStorageCorruptError } from '../../errors.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { ListPage } from '../ledger-storage.js';
import { decodeRecord, encodeCursor } from '../record-codec.js';
import { replyArray, replyText } from './connection.js';
import type { ListPlan, RunListScript, WalkPosition } from './list.js';
import { marker } from './list.js';
import { LIST_PAGE_SCRIPT } from './scripts.js';

/** Index entries one script call examines at most. */
const EXAMINE_PER_CALL = 1000;

/** One bucket's index, as the merge reads it. */
export interface BucketStream {
  readonly recordPrefix: string;
  readonly location: (key: string) => string;
  readonly run: RunListScript;
}

interface Entry {
  readonly key: string;
  readonly updatedAt: number;
  readonly record: TransitionRecord;
}

interface Walk {
  readonly stream: BucketStream;
  position: WalkPosition;
  buffer: Entry[];
  done: boolean;
}

/** True when `a` comes before `b` in list order. */
function before(a: Entry, b: Entry): boolean {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt;
  return Buffer.compare(Buffer.from(a.key, 'utf8'), Buffer.from(b.key, 'utf8')) > 0;
}

/** Read up to `wanted` more matches of one bucket into its buffer. */
async function refill(walk: Walk, plan: ListPlan, wanted: number): Promise<void> {
  const reply = await walk.stream.run(LIST_PAGE_SCRIPT, [
    walk.stream.recordPrefix,
    walk.position.upper,
    marker(walk.position.resumeKey),
    plan.lower,
    String(wanted),
    String(EXAMINE_PER_CALL),
    ...plan.filters,
  ]);
  const parts = replyArray(reply).map(replyText);
  const [status, lastScore, lastMember] = parts;
  if (status === 'missing') {
    const where = walk.stream.location(lastScore ?? '');
    throw new LedgerStorageCorruptError(where, 'the list index names a key that has no record');
  }
  if (status !== 'done' && status !== 'more') throw new TypeError('Unexpected reply from the Redis list script');
  for (let i = 3; i + 2 < parts.length; i += 3) {
    const key = parts[i] ?? '';
    const record = decodeRecord(parts[i + 2] ?? '', walk.stream.location(key));
    walk.buffer.push({ key, updatedAt: Number(parts[i + 1]), record });
  }
  if (status === 'done' || typeof lastScore !== 'string' || typeof lastMember !== 'string') walk.done = true;
  else walk.position = { upper: lastScore, resumeKey: lastMember };
}

/** One page across every bucket, newest update first, then key descending. */
export async function listAcrossBuckets(plan: ListPlan, streams: readonly BucketStream[]): Promise<ListPage> {
  const want = plan.limit + 1;
  // A share of the page per bucket, doubled: most pages need one read per bucket.
  const batch = Math.min(want, Math.max(8, Math.ceil((2 * want) / streams.length)));
  const walks: Walk[] = streams.map((stream) => ({ stream, position: plan.start, buffer: [], done: false }));
  const found: Entry[] = [];
  while (found.length < want) {
    // A bucket may only be passed over once its next record is known.
    const empty = walks.filter((walk) => walk.buffer.length === 0 && !walk.done);
    if (empty.length > 0) {
      await Promise.all(empty.map((walk) => refill(walk, plan, batch)));
      continue;
    }
    let best: Walk | null = null;
    for (const walk of walks) {
      const head = walk.buffer[0];
      if (head !== undefined && (best === null || before(head, best.buffer[0] as Entry))) best = walk;
    }
    if (best === null) break;
    found.push(best.buffer.shift() as Entry);
  }
  const page = found.slice(0, plan.limit);
  const last = page.at(-1);
  return {
    records: page.map((entry) => entry.record),
    nextCursor: found.length > plan.limit && last !== undefined ? encodeCursor(last) : null,
  };
}
