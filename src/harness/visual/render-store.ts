/**
 * A run's renders: refs, the composed patch and candidate of each, the render budget, the
 * unchanged-render counter and the committed render. Nothing here outlives the run.
 */
import type { JsonPatchOperation, JsonValue } from '../json-patch/apply-json-patch.js';
import type { RenderedArtifact } from '../models/types.js';
import { type CheckedArtifact, shareArtifact } from './check-artifact.js';

/** The shape of a render ref: `render:` and a number. */
export const RENDER_REF_PATTERN = '^render:[1-9][0-9]{0,8}$';

/** A successful render of this run. */
export interface RenderRecord {
  readonly ref: string;
  /** The render it was based on. */
  readonly baseRef: string | undefined;
  /** The whole chain as one patch relative to the run's design (proven to give `candidate`). */
  readonly patch: readonly JsonPatchOperation[];
  /** The design that was rendered (frozen, valid against the spec). */
  readonly candidate: JsonValue;
  /** Whether `candidate` differs from the run's design. */
  readonly changed: boolean;
  readonly artifact: CheckedArtifact;
  /** The vision review: the structured value, or the answer text. */
  readonly review: JsonValue;
}

/** A run's renders. */
export interface RenderStore {
  get(ref: string): RenderRecord | undefined;
  /** Successful renders, oldest first. */
  list(): readonly RenderRecord[];
  /** Renders charged so far (successful or not); the next ref is `render:<charged + 1>`. */
  readonly charged: number;
  /** Charge one render against the budget and return its ref; `unchanged` feeds the no-op guard. */
  charge(unchanged: boolean): string;
  /** Renders in a row, up to now, whose candidate was unchanged from their base. */
  readonly unchangedInARow: number;
  add(record: RenderRecord): void;
  /** The render `commit_render` chose last, if any. */
  committed: RenderRecord | undefined;
  /** Rendered artifacts by ref, for tools (copies: a tool cannot change the run's). */
  artifacts(): Readonly<Record<string, RenderedArtifact>>;
}

/** A fresh store for one run. */
export function createRenderStore(): RenderStore {
  const records = new Map<string, RenderRecord>();
  let charged = 0;
  let unchangedInARow = 0;
  return {
    get: (ref) => records.get(ref),
    list: () => [...records.values()],
    get charged() {
      return charged;
    },
    get unchangedInARow() {
      return unchangedInARow;
    },
    charge(unchanged) {
      charged += 1;
      unchangedInARow = unchanged ? unchangedInARow + 1 : 0;
      return `render:${charged}`;
    },
    add(record) {
      records.set(record.ref, Object.freeze(record));
    },
    committed: undefined,
    artifacts() {
      const view: Record<string, RenderedArtifact> = {};
      for (const [ref, record] of records) {
        // A getter, so bytes are copied only for the artifacts a tool actually reads.
        Object.defineProperty(view, ref, { enumerable: true, get: () => shareArtifact(record.artifact) });
      }
      return Object.freeze(view);
    },
  };
}
