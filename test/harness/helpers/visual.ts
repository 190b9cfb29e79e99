/**
 * A scripted vision model and a recording renderer for the visual-loop scenarios.
 */
import { expect } from 'vitest';
import type {
  JsonValue,
  RenderContext,
  RenderedArtifact,
  Renderer,
  VisionModel,
  VisionResponse,
  VisionReviewRequest,
} from '../../../src/harness/index.js';

/** One scripted vision answer: a response, a function of the request, or an error to throw. */
export type VisionAnswer = VisionResponse | Error | ((request: VisionReviewRequest) => VisionResponse);

const USAGE = { inputTokens: 50, outputTokens: 10 };

/** A vision model answering from a script (then `fallback`), recording every request. */
export class ScriptedVisionModel implements VisionModel {
  readonly id = 'scripted-vision';
  readonly requests: VisionReviewRequest[] = [];
  readonly #script: VisionAnswer[];
  readonly #fallback: string;

  constructor(script: readonly VisionAnswer[] = [], fallback = 'Looks fine') {
    this.#script = [...script];
    this.#fallback = fallback;
  }

  async complete(request: VisionReviewRequest): Promise<VisionResponse> {
    this.requests.push(request);
    const next = this.#script.shift();
    if (next === undefined) return { text: this.#fallback, usage: USAGE };
    if (next instanceof Error) throw next;
    return typeof next === 'function' ? next(request) : next;
  }
}

/** A vision answer with usage. */
export function seen(text: string, output?: JsonValue): VisionResponse {
  return { text, usage: USAGE, ...(output === undefined ? {} : { output }) };
}

/** Bytes that are easy to find in serialised output: the marker repeated. */
export const MARKER = 'QkFOQU5BUy1BUlRJRkFDVA';

/** An image whose bytes spell {@link MARKER} plus a tag (so leaks are visible in any JSON). */
export function image(tag: string, mediaType = 'image/png'): RenderedArtifact {
  return { bytes: new TextEncoder().encode(`${MARKER}:${tag}`), mediaType, metadata: { tag } };
}

/** A renderer that records each candidate and context and returns an image tagged with its title and color. */
export function recordingRenderer(): Renderer & {
  readonly candidates: JsonValue[];
  readonly contexts: RenderContext[];
} {
  const candidates: JsonValue[] = [];
  const contexts: RenderContext[] = [];
  return {
    candidates,
    contexts,
    render(candidate, context) {
      candidates.push(candidate);
      contexts.push(context);
      const poster = candidate as { title: string; color: string };
      return image(`${poster.title}|${poster.color}`);
    },
  };
}

/** Paths of every byte array (or buffer) inside a value. */
export function bytesIn(value: unknown, path = '$', seen = new Set<unknown>()): string[] {
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return [path];
  if (typeof value !== 'object' || value === null || seen.has(value)) return [];
  seen.add(value);
  return Object.entries(value).flatMap(([key, child]) => bytesIn(child, `${path}.${key}`, seen));
}

/** Asserts that no bytes, and no text form of {@link MARKER} bytes, are anywhere in `data`. */
export function expectNoBytes(data: unknown): void {
  expect(bytesIn(data)).toEqual([]);
  const text = JSON.stringify(data);
  expect(text).not.toContain(MARKER);
  expect(text).not.toContain(Buffer.from(MARKER).toString('base64').slice(0, 16));
}
