/**
 * The loop fuse: refuses the Nth identical call and A,B,A,B-style cycles, within a bounded window of
 * the run's recent calls. A call whose result changed since the previous identical call is
 * progress (polling), not a loop.
 */

import { codeList } from '../core/code-list.js';
import { optionsOf } from '../invalid-argument.js';
import { type LoopFuseOptions, type LoopSettings, loopSettings } from './loop-options.js';
import { callSubject, type ToolCallFacts, type ToolFuse, type ToolFuseRun } from './tool-fuse.js';
import { ALLOWED, FuseCode, FuseName, type FuseVerdict, refusal, sentences } from './verdict.js';

export type { LoopFuseOptions } from './loop-options.js';

/** What the window knows about one signature. */
interface Entry {
  readonly signature: string;
  readonly tool: string;
  /** Occurrences still in the window. */
  inWindow: number;
  /** The latest identical calls with no new result in between (never more than `inWindow`). */
  streak: number;
  /** Fingerprint of the latest recorded result, `null` before the first. */
  lastResult: string | null;
  /** Sequence number of the latest allowed call. */
  lastSeq: number;
  /** Sequence number of the latest call whose result differed from the one before; -1 for none. */
  progressSeq: number;
  /** Failures since the latest success that were taken out of the streak (at most `retryAllowance`). */
  forgiven: number;
}

/**
 * A run's window: a ring of the latest calls' entries (one entry per distinct signature, so equal
 * calls are the same object) and a map from signature to entry. Both hold at most `capacity`.
 */
class LoopWindow {
  readonly capacity: number;
  // Grows to `capacity`, then wraps: a large window costs memory only once it is used.
  readonly #ring: Entry[] = [];
  readonly #entries = new Map<string, Entry>();
  #head = 0;
  #seq = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get count(): number {
    return this.#ring.length;
  }
  get seq(): number {
    return this.#seq;
  }
  get signatures(): number {
    return this.#entries.size;
  }

  /** Entry of the call `k` calls ago (1 = latest); only for 1 ≤ k ≤ count. */
  ago(k: number): Entry {
    const ring = this.#ring;
    const index = ring.length < this.capacity ? ring.length - k : (this.#head - k + this.capacity) % this.capacity;
    return ring[index] as Entry;
  }

  entry(signature: string): Entry | undefined {
    return this.#entries.get(signature);
  }

  push(call: ToolCallFacts): void {
    const full = this.#ring.length === this.capacity;
    // Evict first: the oldest call may have the same signature as this one.
    if (full) this.#evict(this.#ring[this.#head] as Entry);
    let entry = this.#entries.get(call.signature);
    if (entry === undefined) {
      entry = {
        signature: call.signature,
        tool: call.name,
        inWindow: 1,
        streak: 1,
        lastResult: null,
        lastSeq: this.#seq,
        progressSeq: -1,
        forgiven: 0,
      };
      this.#entries.set(call.signature, entry);
    } else {
      entry.inWindow++;
      entry.streak++;
      entry.lastSeq = this.#seq;
    }
    if (full) {
      this.#ring[this.#head] = entry;
      this.#head = (this.#head + 1) % this.capacity;
    } else {
      this.#ring.push(entry);
    }
    this.#seq++;
  }

  #evict(entry: Entry): void {
    entry.inWindow--;
    if (entry.inWindow === 0) this.#entries.delete(entry.signature);
    else entry.streak = Math.min(entry.streak, entry.inWindow);
  }

  clear(): void {
    this.#ring.length = 0;
    this.#entries.clear();
    this.#head = 0;
    this.#seq = 0;
  }
}

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}

/** The cycle period a call with `entry` would close, or 0: the last 2p calls form one block repeated twice. */
function cyclePeriod(window: LoopWindow, settings: LoopSettings, entry: Entry | undefined): number {
  // A signature outside the window cannot close a cycle.
  if (entry === undefined) return 0;
  for (let p = 2; p <= settings.maxCycleLength && 2 * p - 1 <= window.count; p++) {
    if (window.ago(p) !== entry) continue;
    let repeated = true;
    let constant = true;
    for (let i = 1; i < p && repeated; i++) {
      repeated = window.ago(i) === window.ago(i + p);
      if (window.ago(i) !== entry) constant = false;
    }
    // A constant block is the repeat rule's business (and its allowances), not a cycle.
    if (!repeated || constant) continue;
    const spanStart = window.seq - (2 * p - 1);
    let exempt = true;
    let progressed = false;
    for (let i = 0; i < p; i++) {
      const member = i === 0 ? entry : window.ago(i);
      if (member.progressSeq >= spanStart) progressed = true;
      if (!settings.allowances.has(member.tool)) exempt = false;
    }
    if (!progressed && !exempt) return p;
  }
  return 0;
}

/**
 * Loop fuse: the signature of a call is its tool plus RFC 8785 canonical arguments (call id left
 * out), so key order does not matter. The `repeatThreshold`th identical call with no new result in
 * between is refused, and so is the call that closes a cycle of period 2..`maxCycleLength`
 * repeated twice (A,B,A,B is refused at the fourth call). Results booked through
 * `recordToolResult` are fingerprinted: a result that differs from the previous identical call's
 * is progress and restarts the count. A call booked as failed (`ok: false`) leaves the count, up to
 * `retryAllowance` failures in a row, so a transient error retried identically is not a loop.
 * Only allowed calls enter the window.
 *
 * @example
 * const loop = loopFuse({ repeatThreshold: 3, maxCycleLength: 4, allowances: { poll_status: 20 } });
 * // In a fuse box: the same `search({ q: 'x' })` three times → allow, allow, refuse.
 */
export function loopFuse(given: LoopFuseOptions = {}): ToolFuse {
  const options = optionsOf('loopFuse', given, true);
  const settings = loopSettings(options);
  const name = options.name ?? FuseName.loop;

  function check(window: LoopWindow, call: ToolCallFacts): FuseVerdict {
    const entry = window.entry(call.signature);
    const threshold = settings.allowances.get(call.name) ?? settings.repeatThreshold;
    const count = (entry?.streak ?? 0) + 1;
    if (count >= threshold) {
      return refusal({
        fuse: name,
        code: FuseCode.loop_repeat,
        reason: `Tool \`${call.name}\` was called ${count} times with the same arguments and no new result (threshold ${threshold})`,
        note: sentences(
          `${callSubject(call.name)} was NOT executed: it would be the ${ordinal(count)} identical call (same tool, same arguments, same result)`,
          'Change the arguments or try a different approach',
        ),
        terminal: settings.terminal,
        evidence: { tool: call.name, count, threshold },
      });
    }
    const period = cyclePeriod(window, settings, entry);
    if (period === 0) return ALLOWED;
    const cycle: string[] = [];
    for (let i = period - 1; i >= 1; i--) cycle.push(window.ago(i).tool);
    cycle.push(call.name);
    return refusal({
      fuse: name,
      code: FuseCode.loop_cycle,
      reason: `Calls repeat a cycle of period ${period} (${codeList(cycle)}) with no new result`,
      note: sentences(
        `${callSubject(call.name)} was NOT executed: your recent calls repeat the cycle ${cycle.map((t) => `\`${t}\``).join(' → ')} without new results`,
        'Try a different approach',
      ),
      terminal: settings.terminal,
      evidence: { tool: call.name, period, cycle },
    });
  }

  return {
    name,
    start: function startLoop(): ToolFuseRun {
      const window = new LoopWindow(settings.window);
      return {
        check: (call) => check(window, call),
        commit(call, verdict) {
          if (verdict.allowed) window.push(call);
        },
        recordResult(call, fingerprint, ok) {
          const entry = window.entry(call.signature);
          if (entry === undefined) return;
          if (ok === false) {
            // A failed call retried as it was is a retry, not a repeat, up to the allowance.
            if (entry.forgiven < settings.retryAllowance && entry.streak > 0) {
              entry.forgiven++;
              entry.streak--;
            }
            return;
          }
          entry.forgiven = 0;
          if (fingerprint === null) return;
          if (entry.lastResult !== null && entry.lastResult !== fingerprint) {
            entry.streak = 1;
            entry.progressSeq = entry.lastSeq;
          }
          entry.lastResult = fingerprint;
        },
        reset: () => window.clear(),
        stats: () => ({
          window: window.count,
          capacity: window.capacity,
          signatures: window.signatures,
          calls: window.seq,
        }),
      };
    },
  };
}
