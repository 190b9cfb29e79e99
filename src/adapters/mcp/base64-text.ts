/**
 * The text inside a base64 payload (a resource's `blob`, an image's or audio's `data`), so the
 * secret scan reads what the client will decode. Bounded: a payload over {@link MAX_DECODED_BYTES},
 * or one that is not UTF-8 text, is not decoded.
 */

/** The largest payload decoded for scanning: 4 MiB. */
export const MAX_DECODED_BYTES: number = 4 * 1024 * 1024;

// Base64 is 4 characters per 3 bytes; line breaks add a few more. Checked before decoding, so an
// oversized payload is never copied.
const MAX_ENCODED_CHARS = Math.ceil(MAX_DECODED_BYTES / 3) * 4 * 2;

/**
 * The UTF-8 text `encoded` holds, or `undefined` when it is too large, binary (a NUL byte, or bytes
 * that are not UTF-8) or empty.
 */
export function decodeBase64Text(encoded: string): string | undefined {
  if (encoded.length === 0 || encoded.length > MAX_ENCODED_CHARS) return undefined;
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length === 0 || bytes.length > MAX_DECODED_BYTES || bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** `text` as base64 (UTF-8). */
export function encodeBase64Text(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
