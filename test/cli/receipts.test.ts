/**
 * `hyphae receipts verify`, run as the binary runs: `node --import tsx src/cli/main.ts` in a temp folder.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createProgressLine, PROGRESS_MIN_BYTES } from '../../src/cli/commands/receipts.js';
import { type Receipt, receiptHash } from '../../src/storage/receipt.js';
import { childEnv } from '../config/cli-runner.js';
import { buildChain, ed25519Pair, hmacPair, scratchDir, toJsonl } from '../ledger/receipts/receipt-helpers.js';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
/** tsx by URL: the commands run in a temp folder, where a bare `tsx` would not resolve. */
const tsx = import.meta.resolve('tsx');
const scratch = scratchDir();
afterAll(() => scratch.remove());

const hmac = hmacPair('k1');
const ed = ed25519Pair('ed-1');
const chain = await buildChain(hmac.signer, 4);
const edChain = await buildChain(ed.signer, 3);
writeFileSync(scratch.file('good.jsonl'), toJsonl(chain));
writeFileSync(scratch.file('ed.jsonl'), toJsonl(edChain));
writeFileSync(scratch.file('ed.pub.pem'), ed.publicKeyPem);
writeFileSync(
  scratch.file('tampered.jsonl'),
  toJsonl([chain[0], { ...(chain[1] as Receipt), outcome: 'UNKNOWN' }, ...chain.slice(2)]),
);
writeFileSync(scratch.file('deleted.jsonl'), toJsonl([chain[0], ...chain.slice(2)]));
writeFileSync(scratch.file('reordered.jsonl'), toJsonl([chain[0], chain[2], chain[1], chain[3]]));
writeFileSync(scratch.file('cut.jsonl'), toJsonl(chain.slice(0, 2)));
writeFileSync(scratch.file('torn.jsonl'), toJsonl(chain).slice(0, -30));

const KEY_ENV = { HYPHAE_RECEIPT_KEY: hmac.secret };

function hyphae(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, main, ...args],
      {
        cwd: scratch.dir,
        encoding: 'utf8',
        env: childEnv(process.env, { NO_COLOR: '', FORCE_COLOR: '', ...env }),
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const verify = (file: string, ...rest: string[]) =>
  hyphae(['receipts', 'verify', file, '--key-env', 'HYPHAE_RECEIPT_KEY', ...rest], KEY_ENV);

describe.concurrent('hyphae receipts verify', () => {
  it('an intact HMAC chain: ok with the count and the head, exit 0, nothing on stderr', async () => {
    const { code, stdout, stderr } = await verify('good.jsonl');

    expect(code).toBe(0);
    expect(stdout).toContain('ok 4 receipts verified in good.jsonl (key `k1`, hmac-sha256)');
    expect(stdout).toContain(`head: seq 4, hash ${receiptHash(chain[3] as Receipt)}`);
    expect(stderr).toBe('');
  });

  it('an intact Ed25519 chain, verified with the public key only', async () => {
    const { code, stdout } = await hyphae(['receipts', 'verify', 'ed.jsonl', '--public-key', 'ed.pub.pem']);

    expect(code).toBe(0);
    expect(stdout).toContain('ok 3 receipts verified in ed.jsonl (key `ed-1`, ed25519)');
  });

  it.for([
    ['tampered.jsonl', 'broken at seq 2 (line 2): tampered', '1 receipts verified before it'],
    ['deleted.jsonl', 'broken at seq 2 (line 2): deleted_or_reordered', 'expected seq 2, found seq 3'],
    ['reordered.jsonl', 'broken at seq 2 (line 2): deleted_or_reordered', 'expected seq 2, found seq 3'],
    ['torn.jsonl', 'broken at seq 4 (line 4): truncated', 'torn write'],
  ] as const)('%s: the first broken link, exit 1', async ([file, headline, detail]) => {
    const { code, stdout } = await verify(file);

    expect(code).toBe(1);
    expect(stdout).toContain(headline);
    expect(stdout).toContain(detail);
  });

  it('receipts cut from the end: ok without an anchor, truncated against one', async () => {
    const anchor = `4:${receiptHash(chain[3] as Receipt)}`;

    const plain = await verify('cut.jsonl');
    const anchored = await verify('cut.jsonl', '--anchor', anchor);

    expect(plain.code).toBe(0);
    expect(anchored.code).toBe(1);
    expect(anchored.stdout).toContain('broken at seq 3: truncated');
    expect(anchored.stdout).toContain('the anchor expects at least 4 receipts, found 2');
  });

  it('a wrong key: bad signature at seq 1; another key id: unknown key', async () => {
    const wrong = await hyphae(['receipts', 'verify', 'good.jsonl', '--key-env', 'OTHER'], { OTHER: 'y'.repeat(32) });
    const unknown = await verify('good.jsonl', '--key-id', 'k9');

    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('broken at seq 1 (line 1): bad_signature');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain('broken at seq 1 (line 1): unknown_key');
    expect(unknown.stdout).toContain('key id `k1` is not among the keys (`k9`)');
  });

  it('--json prints one object with the verdict', async () => {
    const ok = await verify('good.jsonl', '--json');
    const broken = await verify('deleted.jsonl', '--json');

    expect(JSON.parse(ok.stdout)).toEqual({
      file: 'good.jsonl',
      keyId: 'k1',
      algorithm: 'hmac-sha256',
      ok: true,
      count: 4,
      head: { seq: 4, hash: receiptHash(chain[3] as Receipt) },
    });
    expect(JSON.parse(broken.stdout)).toMatchObject({
      ok: false,
      count: 1,
      firstBroken: { seq: 2, line: 2, reason: 'deleted_or_reordered' },
    });
    expect(broken.code).toBe(1);
  });

  it.for([
    [['receipts', 'verify', 'good.jsonl'], 'Pass one key'],
    [['receipts', 'verify', '--key-env', 'K'], 'needs a FILE'],
    [['receipts', 'verify', 'missing.jsonl', '--key-env', 'HYPHAE_RECEIPT_KEY'], 'does not exist'],
    [['receipts', 'verify', 'good.jsonl', '--key-env', 'UNSET_VAR'], 'Environment variable `UNSET_VAR` is not set'],
    [['receipts', 'verify', 'good.jsonl', '--public-key', 'nope.pem'], 'Cannot read the public key'],
    [['receipts', 'verify', 'good.jsonl', '--key-env', 'HYPHAE_RECEIPT_KEY', '--anchor', 'x'], '`--anchor` takes SEQ'],
    [['receipts', 'verify', 'good.jsonl', '--key-env', 'HYPHAE_RECEIPT_KEY', '--fast'], 'Unknown option `--fast`'],
    [['receipts', 'verify', 'a', 'b', '--key-env', 'K'], 'takes one FILE'],
    [['receipts'], 'Name a subcommand'],
    [['receipts', 'sign'], 'Unknown subcommand `sign`'],
  ] as const)('usage errors exit 2: %j', async ([args, message]) => {
    const { code, stderr, stdout } = await hyphae(args, KEY_ENV);

    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stdout).toBe('');
  });

  it('help exits 0 and documents the exit codes; the command is listed', async () => {
    const help = await hyphae(['receipts', '--help']);
    const list = await hyphae(['help']);

    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: hyphae receipts verify FILE');
    expect(help.stdout).toContain('Exit codes: 0 the chain verifies, 1 a link is broken, 2 usage');
    expect(list.stdout).toMatch(/receipts\s+verify a signed, hash-chained receipt file/);
  });

  it('colour only when asked for on a TTY-less run, and never with NO_COLOR', async () => {
    const plain = await verify('good.jsonl');
    const forced = await hyphae(['receipts', 'verify', 'deleted.jsonl', '--key-env', 'HYPHAE_RECEIPT_KEY'], {
      ...KEY_ENV,
      FORCE_COLOR: '1',
    });
    const noColour = await hyphae(['receipts', 'verify', 'good.jsonl', '--key-env', 'HYPHAE_RECEIPT_KEY'], {
      ...KEY_ENV,
      FORCE_COLOR: '1',
      NO_COLOR: '1',
    });

    expect(plain.stdout).not.toContain('\u001b[');
    expect(forced.stdout).toContain('\u001b[31mbroken\u001b[39m');
    expect(noColour.stdout).not.toContain('\u001b[');
  });

  it('a large file verifies with no progress output when stderr is not a TTY', async () => {
    const big = await buildChain(hmac.signer, 2_500);
    const text = toJsonl(big);
    expect(Buffer.byteLength(text)).toBeGreaterThan(PROGRESS_MIN_BYTES);
    writeFileSync(scratch.file('big.jsonl'), text);

    const { code, stdout, stderr } = await verify('big.jsonl');

    expect(code).toBe(0);
    expect(stdout).toContain('ok 2500 receipts verified');
    expect(stderr).toBe('');
  });
});

describe('progress line', () => {
  it('on a TTY: throttled updates with the percentage, cleared at the end', () => {
    const written: string[] = [];
    let now = 0;
    const line = createProgressLine({ isTTY: true, write: (text) => written.push(text) }, () => now);

    line.update({ count: 10, bytes: 250, totalBytes: 1000 });
    now = 50;
    line.update({ count: 20, bytes: 500, totalBytes: 1000 });
    now = 200;
    line.update({ count: 30, bytes: 750, totalBytes: 1000 });
    line.done();

    expect(written).toEqual([
      '\r\u001b[Kverifying receipts… 25% (10 verified)',
      '\r\u001b[Kverifying receipts… 75% (30 verified)',
      '\r\u001b[K',
    ]);
  });

  it('off a TTY: writes nothing', () => {
    const written: string[] = [];
    const line = createProgressLine({ isTTY: false, write: (text) => written.push(text) });

    line.update({ count: 1, bytes: 1, totalBytes: 2 });
    line.done();

    expect(written).toEqual([]);
  });
});
