/**
 * The benchmark's inputs: a ~1 MB document shaped like an application's design document, a
 * 100-operation patch over it using every operation, and the conformance records.
 */
import { readFileSync } from 'node:fs';

/** One document and the patch applied to it. */
export interface Workload {
  readonly name: string;
  readonly document: unknown;
  readonly patch: readonly Record<string, unknown>[];
}

/** A deterministic pseudo-random generator (mulberry32), so every run patches the same document. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'épsilon', 'zeta', 'eta', 'θeta', 'iota', 'kappa', 'lambda', 'mu'];

function sentence(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(next() * WORDS.length)] as string);
  return out.join(' ');
}

function section(next: () => number, index: number): Record<string, unknown> {
  const blocks = [];
  for (let b = 0; b < 6; b++) {
    blocks.push({
      id: `block-${index}-${b}`,
      kind: next() < 0.5 ? 'text' : 'image',
      text: sentence(next, 8 + Math.floor(next() * 10)),
      style: {
        color: `#${Math.floor(next() * 0xffffff)
          .toString(16)
          .padStart(6, '0')}`,
        size: 10 + Math.floor(next() * 20),
        bold: next() < 0.3,
      },
      position: { x: Math.round(next() * 1000) / 10, y: Math.round(next() * 1000) / 10 },
      tags: [sentence(next, 1), sentence(next, 1)],
    });
  }
  return { id: `section-${index}`, title: sentence(next, 4), visible: next() < 0.9, order: index, blocks };
}

/** A document of about `bytes` bytes of JSON: `{ meta, theme, sections: [...] }`. */
export function designDocument(bytes: number, seed = 7): Record<string, unknown> {
  const next = random(seed);
  const sections: Record<string, unknown>[] = [];
  const document = {
    meta: { title: 'Benchmark design', version: 3, locale: 'en-GB', authors: ['a', 'b'] },
    theme: { palette: ['#000000', '#ffffff', '#ff6600'], font: 'Inter', spacing: 8 },
    sections,
  };
  let size = JSON.stringify(document).length;
  while (size < bytes) {
    const added = section(next, sections.length);
    sections.push(added);
    size += JSON.stringify(added).length + 1;
  }
  return document;
}

/**
 * A patch of `count` operations over `document` (made by {@link designDocument}), each in a section
 * of its own, so that any subset of it applies cleanly too.
 */
export function designPatch(document: Record<string, unknown>, count: number, seed = 11): Record<string, unknown>[] {
  const next = random(seed);
  const order = (document.sections as unknown[]).map((_, i) => i);
  if (count > order.length) throw new RangeError(`The document has only ${order.length} sections`);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const patch: Record<string, unknown>[] = [];
  for (let i = 0; patch.length < count; i++) {
    const s = order[i] as number;
    switch (i % 8) {
      case 0:
        patch.push({ op: 'replace', path: `/sections/${s}/blocks/0/text`, value: sentence(next, 6) });
        break;
      case 1:
        patch.push({
          op: 'add',
          path: `/sections/${s}/blocks/-`,
          value: { id: `new-${i}`, kind: 'text', text: sentence(next, 5), tags: [] },
        });
        break;
      case 2:
        patch.push({ op: 'test', path: `/sections/${s}/id`, value: `section-${s}` });
        break;
      case 3:
        patch.push({ op: 'replace', path: `/sections/${s}/blocks/1/style/color`, value: '#123456' });
        break;
      case 4:
        patch.push({ op: 'move', from: `/sections/${s}/blocks/2`, path: `/sections/${s}/blocks/0` });
        break;
      case 5:
        patch.push({ op: 'copy', from: `/sections/${s}/blocks/3/style`, path: `/sections/${s}/style` });
        break;
      case 6:
        patch.push({ op: 'remove', path: `/sections/${s}/blocks/5/tags/1` });
        break;
      default:
        patch.push({ op: 'add', path: `/meta/note${i}`, value: sentence(next, 3) });
        break;
    }
  }
  return patch;
}

/** The enabled conformance records that apply cleanly, as one workload each file. */
export function conformanceWorkloads(root: URL): Workload[] {
  const out: Workload[] = [];
  for (const file of ['tests.json', 'spec_tests.json']) {
    const records = JSON.parse(readFileSync(new URL(file, root), 'utf8')) as {
      doc: unknown;
      patch: Record<string, unknown>[];
      expected?: unknown;
      disabled?: boolean;
    }[];
    for (const [i, record] of records.entries()) {
      if (record.disabled === true || !('expected' in record)) continue;
      out.push({ name: `${file}#${i}`, document: record.doc, patch: record.patch });
    }
  }
  return out;
}
