/**
 * The one loader of `gpt-tokenizer`, shared by the budget fuse's counter and the history counters:
 * synchronous (through `createRequire`, so a count never depends on timing) and lazy (importing
 * hyphae never loads it; the first count of an OpenAI model does). Each encoding loads once per
 * process.
 */
import { createRequire } from 'node:module';

/** The part of a gpt-tokenizer encoding we use, typed structurally so none of its types leak into ours. */
export interface GptEncoding {
  countTokens(text: string, options?: { readonly disallowedSpecial?: ReadonlySet<string> }): number;
}

/** gpt-tokenizer's table of which encoding each model uses. */
export interface GptModelMapping {
  readonly DEFAULT_ENCODING: string;
  readonly encodingNames: readonly string[];
  readonly modelToEncodingMap: Readonly<Record<string, string | undefined>>;
}

let load: NodeJS.Require | undefined;
let mapping: GptModelMapping | undefined;
const encodings = new Map<string, GptEncoding>();

function required(specifier: string): unknown {
  load ??= createRequire(import.meta.url);
  return load(specifier);
}

/** The encoding `name` (`o200k_base`, `cl100k_base`, …); throws when gpt-tokenizer cannot load it. */
export function loadGptEncoding(name: string): GptEncoding {
  let encoding = encodings.get(name);
  if (encoding === undefined) {
    const candidate = required(`gpt-tokenizer/encoding/${name}`) as Partial<GptEncoding> | null;
    if (typeof candidate?.countTokens !== 'function')
      throw new TypeError(`gpt-tokenizer encoding \`${name}\` has no countTokens`);
    encoding = candidate as GptEncoding;
    encodings.set(name, encoding);
  }
  return encoding;
}

/** gpt-tokenizer's model-to-encoding table; throws when it cannot be loaded. */
export function loadGptModelMapping(): GptModelMapping {
  mapping ??= required('gpt-tokenizer/mapping') as GptModelMapping;
  return mapping;
}
