/**
 * `hyphae receipts verify`: check a JSONL receipt file and report its first broken link.
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createEd25519Verifier, createHmacVerifier, type ReceiptKey } from '../../ledger/receipts/signers.js';
import {
  type ReceiptAnchor,
  type VerifyProgress,
  type VerifyReceiptsResult,
  verifyReceipts,
} from '../../ledger/receipts/verify-receipts.js';
import { readJsonlLines } from '../../storage/jsonl/jsonl-lines.js';
import { type Command, type CommandContext, ExitCode, UsageError } from '../command.js';

/** The options of `hyphae receipts verify`. */
export interface VerifyArgs {
  readonly file: string;
  readonly key: { readonly env: string } | { readonly publicKeyFile: string };
  readonly keyId?: string;
  readonly anchor?: ReceiptAnchor;
  readonly json: boolean;
}

/** Files at least this big get a progress display (on a TTY). */
export const PROGRESS_MIN_BYTES: number = 1 << 20;

function parseAnchor(text: string): ReceiptAnchor {
  const match = /^([1-9][0-9]*)(?::([0-9a-f]{64}))?$/.exec(text);
  if (match === null) throw new UsageError(`\`--anchor\` takes SEQ or SEQ:HASH (64 hex digits), got \`${text}\``);
  return match[2] === undefined ? { seq: Number(match[1]) } : { seq: Number(match[1]), hash: match[2] };
}

/** Parse the arguments after `receipts verify`. */
export function parseVerifyArgs(args: readonly string[]): VerifyArgs {
  let file: string | undefined;
  let keyEnv: string | undefined;
  let publicKeyFile: string | undefined;
  let keyId: string | undefined;
  let anchor: ReceiptAnchor | undefined;
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`\`${arg}\` needs a value`);
      return next;
    };
    if (arg === '--json') json = true;
    else if (arg === '--key-env') keyEnv = value();
    else if (arg === '--public-key') publicKeyFile = value();
    else if (arg === '--key-id') keyId = value();
    else if (arg === '--anchor') anchor = parseAnchor(value());
    else if (arg.startsWith('-')) throw new UsageError(`Unknown option \`${arg}\` for \`hyphae receipts verify\``);
    else if (file === undefined) file = arg;
    else throw new UsageError(`\`hyphae receipts verify\` takes one FILE, got \`${file}\` and \`${arg}\``);
  }
  if (file === undefined) throw new UsageError('`hyphae receipts verify` needs a FILE');
  if ((keyEnv === undefined) === (publicKeyFile === undefined)) {
    throw new UsageError('Pass one key: `--key-env VAR` (HMAC secret) or `--public-key FILE` (Ed25519)');
  }
  return {
    file,
    key: keyEnv === undefined ? { publicKeyFile: publicKeyFile as string } : { env: keyEnv },
    json,
    ...(keyId === undefined ? {} : { keyId }),
    ...(anchor === undefined ? {} : { anchor }),
  };
}

/** A one-line progress display on a TTY stream; does nothing on anything else. */
export function createProgressLine(
  stream: { readonly isTTY?: boolean; write(text: string): unknown },
  now: () => number = Date.now,
): { update(progress: VerifyProgress): void; done(): void } {
  if (stream.isTTY !== true) return { update: () => undefined, done: () => undefined };
  let last = Number.NEGATIVE_INFINITY;
  let shown = false;
  return {
    update(progress) {
      const at = now();
      if (at - last < 100) return;
      last = at;
      shown = true;
      const { bytes, totalBytes, count } = progress;
      const percent =
        bytes !== undefined && totalBytes !== undefined && totalBytes > 0
          ? ` ${Math.floor((bytes / totalBytes) * 100)}%`
          : '';
      stream.write(`\r\u001b[Kverifying receipts…${percent} (${count} verified)`);
    },
    done() {
      if (shown) stream.write('\r\u001b[K');
    },
  };
}

/** The key id of the first receipt in the file, to bind a key given without `--key-id`. */
async function firstKeyId(file: string): Promise<string | undefined> {
  for await (const line of readJsonlLines(file)) {
    try {
      const keyId = (JSON.parse(line.text) as { keyId?: unknown }).keyId;
      return typeof keyId === 'string' && keyId !== '' ? keyId : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

async function loadKey(args: VerifyArgs, ctx: CommandContext, file: string): Promise<ReceiptKey> {
  const keyId = args.keyId ?? (await firstKeyId(file)) ?? 'unspecified';
  if ('env' in args.key) {
    const secret = ctx.env[args.key.env];
    if (secret === undefined || secret === '')
      throw new UsageError(`Environment variable \`${args.key.env}\` is not set`);
    return createHmacVerifier({ key: secret, keyId });
  }
  const path = resolve(ctx.cwd, args.key.publicKeyFile);
  const pem = await readFile(path, 'utf8').catch((error: unknown) => {
    throw new UsageError(`Cannot read the public key \`${path}\`: ${(error as Error).message}`);
  });
  return createEd25519Verifier({ publicKey: pem, keyId });
}

function report(result: VerifyReceiptsResult, args: VerifyArgs, key: ReceiptKey, ctx: CommandContext): void {
  if (args.json) {
    ctx.out.line(JSON.stringify({ file: args.file, keyId: key.keyId, algorithm: key.algorithm, ...result }));
    return;
  }
  const { out } = ctx;
  if (result.ok) {
    out.line(
      `${out.pass('ok')} ${result.count} receipts verified in ${args.file} (key \`${key.keyId}\`, ${key.algorithm})`,
    );
    if (result.head.hash !== null) out.line(out.dim(`head: seq ${result.head.seq}, hash ${result.head.hash}`));
    return;
  }
  const { seq, reason, detail, line } = result.firstBroken;
  out.line(`${out.fail('broken')} at seq ${seq}${line === undefined ? '' : ` (line ${line})`}: ${out.bold(reason)}`);
  out.line(`  ${detail}`);
  out.line(`  ${result.count} receipts verified before it`);
}

async function runVerify(args: VerifyArgs, ctx: CommandContext): Promise<number> {
  const file = resolve(ctx.cwd, args.file);
  const size = await stat(file).then(
    (info) => (info.isFile() ? info.size : null),
    () => null,
  );
  if (size === null) throw new UsageError(`Receipt file \`${args.file}\` does not exist or is not a file`);
  let key: ReceiptKey;
  try {
    key = await loadKey(args, ctx, file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
  const progress =
    size >= PROGRESS_MIN_BYTES ? createProgressLine(process.stderr) : createProgressLine({ write: () => 0 });
  let result: VerifyReceiptsResult;
  try {
    result = await verifyReceipts(file, {
      keys: key,
      ...(args.anchor === undefined ? {} : { anchor: args.anchor }),
      onProgress: progress.update,
    });
  } finally {
    progress.done();
  }
  report(result, args, key, ctx);
  return result.ok ? ExitCode.ok : ExitCode.failed;
}

const HELP = `Usage: hyphae receipts verify FILE (--key-env VAR | --public-key FILE) [options]

Verifies a JSONL receipt file: every signature, every link (seq, prev) and every position, and
prints ok with the count and the head, or the first broken link: a tampered, deleted, reordered or
truncated receipt, a torn last line, an unknown key id or a bad signature.

Options:
  --key-env VAR         the HMAC-SHA256 secret is in environment variable VAR
  --public-key FILE     the Ed25519 public key (PEM)
  --key-id ID           the key's id (default: the key id of the first receipt)
  --anchor SEQ[:HASH]   a head recorded earlier: the file must reach SEQ (whose hash is HASH)
  --json                print the result as one JSON object

A progress line is shown on stderr for large files when stderr is a terminal.

Exit codes: 0 the chain verifies, 1 a link is broken, 2 usage (bad options, missing file or key)
`;

/** `hyphae receipts`. */
export const receiptsCommand: Command = {
  name: 'receipts',
  summary: 'verify a signed, hash-chained receipt file',
  help: HELP,
  async run(args, ctx) {
    const [sub, ...rest] = args;
    if (sub !== 'verify') {
      throw new UsageError(sub === undefined ? 'Name a subcommand: `verify`' : `Unknown subcommand \`${sub}\``);
    }
    return runVerify(parseVerifyArgs(rest), ctx);
  },
};
