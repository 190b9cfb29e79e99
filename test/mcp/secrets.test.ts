/**
 * Secret scanning end to end: a credential in a call's arguments or in its result is refused or
 * redacted, and never reaches the ledger's store or the proxy's log.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { connectProxy, linesOf, SERVERS, SQLITE_LEDGER, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();
const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';

function refusalCode(result: unknown): unknown {
  return (result as { _meta?: Record<string, { code?: unknown }> })._meta?.['io.hyphae/refusal']?.code;
}

describe('secret scanning', () => {
  it('withholds a result that holds a credential, and redacts it where the policy says so', async () => {
    const dir = tempDir();
    const refusing = await connectProxy(dir, SERVERS.test, { config: writeConfig(dir, ...SQLITE_LEDGER) });
    const withheld = await refusing.client.callTool({ name: 'get_config', arguments: {} });
    await refusing.close();
    const redactDir = tempDir();
    const redacting = await connectProxy(redactDir, SERVERS.test, {
      config: writeConfig(redactDir, ...SQLITE_LEDGER, 'mcp: { tools: { get_config: { secrets: redact } } }'),
    });
    const redacted = await redacting.client.callTool({ name: 'get_config', arguments: {} });

    expect(withheld.isError).toBe(true);
    expect(textOf(withheld)).toContain('github_token');
    expect(textOf(withheld)).not.toContain(TOKEN);
    expect(textOf(redacted)).toBe('region=eu-west-1\ntoken=[REDACTED:github_token]\n');
    expect(refusing.stderr()).not.toContain(TOKEN);
  });

  it('refuses a call whose arguments hold a credential before the server sees it', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, 'fuses: { permission: { granted: [read, write, destructive] } }');
    const effects = join(dir, 'effects.txt');
    const { client, stderr } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });

    const pay = await client.callTool({ name: 'pay', arguments: { amount: 3, to: `memo ${AWS_KEY}` } });

    expect(pay.isError).toBe(true);
    expect(refusalCode(pay)).toBe('secret_in_arguments');
    expect(textOf(pay)).toContain('NOT executed');
    expect(linesOf(effects)).toEqual([]);
    expect(stderr()).toContain('aws_access_key_id');
    expect(stderr()).not.toContain(AWS_KEY);
  });

  it('redacts a credential in the arguments of a side-effecting call, and keeps it out of the ledger', async () => {
    const dir = tempDir();
    const config = writeConfig(
      dir,
      ...SQLITE_LEDGER,
      'fuses: { permission: { granted: [read, write, destructive] } }',
      'mcp: { secrets: redact }',
    );
    const effects = join(dir, 'effects.txt');
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });

    const pay = await client.callTool({ name: 'pay', arguments: { amount: 3, to: `acct ${TOKEN}` } });
    await client.close();

    expect(pay.isError).not.toBe(true);
    expect(linesOf(effects)).toEqual(['pay_1 3 acct [REDACTED:github_token]']);
    const stored = readFileSync(join(dir, 'ledger.db')).toString('latin1');
    const wal = linesOf(join(dir, 'ledger.db-wal')).join('\n');
    expect(stored + wal).not.toContain(TOKEN);
    expect(stored + wal).toContain('REDACTED:github_token');
  });
});

const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]).toString('base64');

interface Contents {
  readonly uri: string;
  readonly text?: string;
  readonly blob?: string;
}

function decoded(base64: unknown): string {
  expect(typeof base64).toBe('string');
  const text = Buffer.from(base64 as string, 'base64').toString('utf8');
  // Valid base64: it encodes back to itself.
  expect(Buffer.from(text, 'utf8').toString('base64')).toBe(base64);
  return text;
}

describe('secret scanning of resources and of more credential forms', () => {
  it('withholds a resource that holds a credential in its text or its blob, and passes a clean one untouched', async () => {
    const dir = tempDir();
    const { client, stderr } = await connectProxy(dir, SERVERS.test, { config: writeConfig(dir, ...SQLITE_LEDGER) });

    const text = await client.readResource({ uri: 'config://app/env' });
    const blob = await client.readResource({ uri: 'config://app/env.b64' });
    const readme = await client.readResource({ uri: 'docs://readme' });
    const logo = await client.readResource({ uri: 'docs://logo.png' });

    for (const [result, kind] of [
      [text, 'aws_access_key_id'],
      [blob, 'github_token'],
    ] as const) {
      expect(refusalCode(result)).toBe('secret_in_resource');
      const [note] = result.contents as Contents[];
      expect(note?.text).toContain(kind);
      expect(note?.text).toContain('withheld');
      expect(note?.blob).toBeUndefined();
    }
    expect(JSON.stringify([text, blob])).not.toContain(AWS_KEY);
    expect(readme).toEqual({
      contents: [{ uri: 'docs://readme', text: 'Ask ops@example.com, or read https://docs.example.com:8443/guide\n' }],
    });
    expect(logo).toEqual({ contents: [{ uri: 'docs://logo.png', mimeType: 'image/png', blob: PNG }] });
    // Standard error is a pipe of its own: the line may arrive after the response.
    await vi.waitFor(
      () => expect(stderr()).toContain('credential (aws_access_key_id) in the resource `config://app/env`: refuse'),
      { timeout: 20_000 },
    );
    expect(stderr()).not.toContain(AWS_KEY);
  });

  it('redacts a resource, encoding a redacted blob back to valid base64', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, 'mcp: { secrets: redact }');
    const { client } = await connectProxy(dir, SERVERS.test, { config });

    const text = await client.readResource({ uri: 'config://app/env' });
    const blob = await client.readResource({ uri: 'config://app/env.b64' });

    expect(text.contents).toEqual([
      { uri: 'config://app/env', text: 'REGION=eu-west-1\nAWS_ACCESS_KEY_ID=[REDACTED:aws_access_key_id]\n' },
    ]);
    const [content] = blob.contents as Contents[];
    expect(content?.uri).toBe('config://app/env.b64');
    expect(decoded(content?.blob)).toBe('token=[REDACTED:github_token]\n');
  });

  it('withholds a tool result holding a database URL with a password, an AWS secret key or a token in base64', async () => {
    const dir = tempDir();
    const { client } = await connectProxy(dir, SERVERS.test, { config: writeConfig(dir, ...SQLITE_LEDGER) });

    for (const [kind, found] of [
      ['dsn', 'credential_url'],
      ['aws', 'aws_secret_access_key'],
      ['embedded', 'github_token'],
    ] as const) {
      const result = await client.callTool({ name: 'leak', arguments: { kind } });

      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(`a credential (${found})`);
      expect(JSON.stringify(result)).not.toMatch(/s3cret|wJalrXUtnFEMI|ghp_/);
      // The image and the embedded resource are gone with the rest: only the note is left.
      expect((result.content as { type: string }[]).map((block) => block.type)).toEqual(['text']);
    }
  });

  it('redacts those credentials and keeps the rest of the result', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, 'mcp: { secrets: redact }');
    const { client } = await connectProxy(dir, SERVERS.test, { config });

    const dsn = await client.callTool({ name: 'leak', arguments: { kind: 'dsn' } });
    const aws = await client.callTool({ name: 'leak', arguments: { kind: 'aws' } });
    const embedded = await client.callTool({ name: 'leak', arguments: { kind: 'embedded' } });

    expect(textOf(dsn)).toBe('DATABASE_URL=postgres://admin:[REDACTED:credential_url]@db:5432/shop\n');
    expect(textOf(aws)).toBe('AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_access_key]\n');
    expect(JSON.stringify(aws)).not.toContain(AWS_SECRET);
    const [image, resource] = embedded.content as [{ data: string }, { resource: { blob: string } }];
    expect(decoded(image.data)).toBe('<svg><!-- [REDACTED:github_token] --></svg>');
    expect(decoded(resource.resource.blob)).toBe('token=[REDACTED:github_token]\n');
  });
});
