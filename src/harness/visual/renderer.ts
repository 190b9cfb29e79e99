/**
 * The renderer protocol: turn a candidate design into an image the vision model can review.
 */
import { invalidHarnessOption } from '../errors.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';
import type { RenderedArtifact } from '../models/types.js';

/** What a render knows about its run. */
export interface RenderContext {
  readonly runId: string;
  /** The ref the render will have when it succeeds, e.g. `render:3`. */
  readonly renderRef: string;
  /** The render this one was based on, when there is one. */
  readonly baseRenderRef?: string;
  /** The caller's signal, unchanged. */
  readonly signal?: AbortSignal;
  /** Aborts at the render's or the run's time limit. */
  readonly timeoutSignal: AbortSignal;
}

/** A render as a plain function. */
export type RenderFunction = (
  candidate: JsonValue,
  context: RenderContext,
) => RenderedArtifact | Promise<RenderedArtifact>;

/**
 * Turns a candidate design (already valid against the design spec) into an image. The result is
 * checked: non-empty bytes within `limits.maxRenderBytes`, an `image/*` media type, JSON
 * metadata. It is kept for the run only; nothing is persisted.
 */
export interface Renderer {
  render(candidate: JsonValue, context: RenderContext): RenderedArtifact | Promise<RenderedArtifact>;
}

/**
 * A {@link Renderer} from a function.
 *
 * @example
 * const renderer = createRenderer(async (poster) => ({
 *   bytes: await renderPosterToPng(poster),
 *   mediaType: 'image/png',
 *   metadata: { width: 1024, height: 1536 },
 * }));
 * createPatchHarness({ designSpec, mainModel, visionModel, renderer });
 */
export function createRenderer(render: RenderFunction): Renderer {
  if (typeof render !== 'function') throw invalidHarnessOption('renderer', 'expected a render function');
  return Object.freeze({
    render: function renderCandidate(candidate: JsonValue, context: RenderContext) {
      return render(candidate, context);
    },
  });
}
