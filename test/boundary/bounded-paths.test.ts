import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bounded } from '../../src/boundary/bounded.js';
import { ToolBoundaryError } from '../../src/boundary/errors.js';

let tmp: string;
let ws: string;
let docs: string;

beforeAll(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'hyphae-bounded-paths-')));
  ws = join(tmp, 'workspace');
  docs = join(tmp, 'docs');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(docs);
  mkdirSync(join(tmp, 'outside'));
  writeFileSync(join(ws, 'src', 'a.ts'), 'a');
  writeFileSync(join(docs, 'guide.md'), 'guide');
  writeFileSync(join(tmp, 'outside', 'secret.txt'), 'secret');
  symlinkSync(join(tmp, 'outside'), join(ws, 'escape'));
  symlinkSync(join(ws, 'src'), join(ws, 'src-link'));
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

function readFileTool() {
  const body = vi.fn((args: { path: string; extra?: string[] }) => args);
  const tool = bounded(
    {
      name: 'read_file',
      sideEffectClass: 'read',
      schema: { path: { type: 'string' }, extra: { type: 'array', items: { type: 'string' }, required: false } },
      pathParams: ['path', 'extra'],
      allowedPaths: [ws, docs],
    },
    body,
  );
  return { tool, body };
}

async function refusal(promise: Promise<unknown>): Promise<ToolBoundaryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ToolBoundaryError)) throw new Error('expected a ToolBoundaryError');
  return error;
}

describe('bounded with pathParams', () => {
  it.each([
    ['a `..` escape', () => 'src/../../outside/secret.txt'],
    ['an escaping symlink', () => join(ws, 'escape', 'secret.txt')],
    ['a new file behind an escaping symlink', () => join(ws, 'escape', 'new.txt')],
    ['a prefix sibling', () => `${ws}_evil/x`],
  ])('refuses %s with `scope_path`, body not run', async (_label, path) => {
    const { tool, body } = readFileTool();

    const error = await refusal(tool({ path: path() }));

    expect(body).not.toHaveBeenCalled();
    expect(error).toMatchObject({ violation: 'scope_path', tool: 'read_file', field: '/path', executed: false });
    expect(error.expected).toBe(`a path inside \`${ws}\` or \`${docs}\``);
    expect(error.llmMessage).toContain(
      'The call to `read_file` was NOT executed: `/path` is outside the allowed scope',
    );
    expect(error.llmMessage).not.toContain(join(tmp, 'outside'));
  });

  it('hands the body the resolved real paths, relative ones against the first root', async () => {
    const { tool, body } = readFileTool();

    await tool({ path: 'src-link/a.ts', extra: [join(docs, 'guide.md'), join(ws, 'src', 'new.ts')] });

    expect(body).toHaveBeenCalledWith(
      { path: join(ws, 'src', 'a.ts'), extra: [join(docs, 'guide.md'), join(ws, 'src', 'new.ts')] },
      {},
    );
  });

  it('names the offending array item', async () => {
    const { tool } = readFileTool();

    const error = await refusal(tool({ path: 'src/a.ts', extra: ['src/a.ts', '/etc/hostname'] }));

    expect(error.field).toBe('/extra/1');
  });

  it('does not modify the caller’s arguments', async () => {
    const { tool } = readFileTool();
    const args = { path: 'src/a.ts' };

    await tool(args);

    expect(args).toEqual({ path: 'src/a.ts' });
  });

  it('refuses every path when `allowedPaths` is empty', async () => {
    const tool = bounded(
      { name: 'w', schema: { p: { type: 'string' } }, pathParams: ['p'], allowedPaths: [] },
      () => 1,
    );

    const error = await refusal(tool({ p: join(ws, 'src', 'a.ts') }));

    expect(error.violation).toBe('scope_path');
  });
});
