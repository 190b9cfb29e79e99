/**
 * `hyphae mcp` in front of the reference servers from npm: the filesystem server (paths, writes)
 * and the everything server (resources, prompts, structured output, progress pass through).
 */
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectProxy, SERVERS, SQLITE_LEDGER, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();

function refusalCode(result: unknown): unknown {
  return (result as { _meta?: Record<string, { code?: unknown }> })._meta?.['io.hyphae/refusal']?.code;
}

/** A project folder with a root the filesystem server serves, a file in it and a file outside it. */
function project(): { dir: string; root: string; inside: string; outside: string } {
  const dir = realpathSync(tempDir());
  const root = join(dir, 'root');
  mkdirSync(root);
  const inside = join(root, 'notes.txt');
  const outside = join(dir, 'secret.txt');
  writeFileSync(inside, 'inside the root');
  writeFileSync(outside, 'outside the root');
  return { dir, root, inside, outside };
}

describe('hyphae mcp in front of the filesystem server', () => {
  it('refuses a path outside the allowed root before the server sees it', async () => {
    const { dir, root, inside, outside } = project();
    const config = writeConfig(
      dir,
      ...SQLITE_LEDGER,
      'mcp:',
      '  tools:',
      '    read_text_file: { allowed_paths: [root], path_params: [path] }',
    );
    const { client } = await connectProxy(dir, [...SERVERS.filesystem, root], { config });

    const ok = await client.callTool({ name: 'read_text_file', arguments: { path: inside } });
    const escaped = await client.callTool({ name: 'read_text_file', arguments: { path: outside } });
    const traversal = await client.callTool({ name: 'read_text_file', arguments: { path: `${root}/../secret.txt` } });

    expect(textOf(ok)).toBe('inside the root');
    for (const refused of [escaped, traversal]) {
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).not.toContain('outside the root');
      expect(refusalCode(refused)).toBe('tool_boundary_violation');
    }
  });

  it('refuses a destructive write that was not granted and lets a granted non-destructive one run', async () => {
    const { dir, root } = project();
    const config = writeConfig(dir, ...SQLITE_LEDGER, 'fuses: { permission: { granted: [read, write] } }');
    const { client } = await connectProxy(dir, [...SERVERS.filesystem, root], { config });
    const target = join(root, 'new.txt');

    const write = await client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    const mkdir = await client.callTool({ name: 'create_directory', arguments: { path: join(root, 'sub') } });

    expect(write.isError).toBe(true);
    expect(refusalCode(write)).toBe('permission_denied');
    expect(existsSync(target)).toBe(false);
    expect(mkdir.isError).not.toBe(true);
    expect(existsSync(join(root, 'sub'))).toBe(true);
  });

  it('refuses arguments the upstream input schema rejects, before the server sees them', async () => {
    const { dir, root } = project();
    const { client } = await connectProxy(dir, [...SERVERS.filesystem, root], {
      config: writeConfig(dir, ...SQLITE_LEDGER),
    });

    const bad = await client.callTool({ name: 'read_text_file', arguments: { path: 42 } });

    expect(bad.isError).toBe(true);
    expect(refusalCode(bad)).toBe('tool_boundary_violation');
    expect(textOf(bad)).toContain('path');
  });
});

describe('hyphae mcp in front of the everything server', () => {
  it('passes resources, prompts, structured output and progress through unchanged', async () => {
    const dir = tempDir();
    const { client } = await connectProxy(dir, SERVERS.everything, { config: writeConfig(dir, ...SQLITE_LEDGER) });

    const resources = await client.listResources();
    const first = resources.resources[0];
    const read = first === undefined ? undefined : await client.readResource({ uri: first.uri });
    const prompts = await client.listPrompts();
    const structured = await client.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } });
    const progress: number[] = [];
    const longRun = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );

    expect(resources.resources.length).toBeGreaterThan(0);
    expect(read?.contents.length).toBeGreaterThan(0);
    expect(prompts.prompts.length).toBeGreaterThan(0);
    expect(structured.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
    expect(longRun.isError).not.toBe(true);
    // The SDK client handles a notification a microtask late, so a last progress notification that
    // arrives in one read with the response is dropped by the client itself (direct too).
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress).toEqual([1, 2, 3].slice(0, progress.length));
  });
});
