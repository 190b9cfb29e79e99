import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPathInside, isSubpath, resolveScopedPath } from '../../src/boundary/scoped-path.js';

// A real tree with real symlinks:
//   <tmp>/workspace/src/a.ts
//   <tmp>/workspace/inner-link        -> <tmp>/workspace/src      (stays inside)
//   <tmp>/workspace/inner-file-link   -> <tmp>/workspace/src/a.ts
//   <tmp>/workspace/dangling-in       -> <tmp>/workspace/later.txt (missing, inside)
//   <tmp>/workspace/out-dir-link      -> <tmp>/outside             (escapes)
//   <tmp>/workspace/out-file-link     -> <tmp>/outside/secret.txt
//   <tmp>/workspace/dangling-out      -> <tmp>/outside/missing.txt (missing, escapes)
//   <tmp>/workspace/loop-a <-> loop-b
//   <tmp>/workspace_evil/x, <tmp>/outside/secret.txt
//   <tmp>/root-link                   -> <tmp>/workspace
let tmp: string;
let ws: string;

beforeAll(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'hyphae-scoped-')));
  ws = join(tmp, 'workspace');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(tmp, 'workspace_evil'));
  mkdirSync(join(tmp, 'outside'));
  writeFileSync(join(ws, 'src', 'a.ts'), 'export {};\n');
  writeFileSync(join(tmp, 'workspace_evil', 'x'), 'evil');
  writeFileSync(join(tmp, 'outside', 'secret.txt'), 'secret');
  symlinkSync(join(ws, 'src'), join(ws, 'inner-link'));
  symlinkSync(join(ws, 'src', 'a.ts'), join(ws, 'inner-file-link'));
  symlinkSync(join(ws, 'later.txt'), join(ws, 'dangling-in'));
  symlinkSync(join(tmp, 'outside'), join(ws, 'out-dir-link'));
  symlinkSync(join(tmp, 'outside', 'secret.txt'), join(ws, 'out-file-link'));
  symlinkSync(join(tmp, 'outside', 'missing.txt'), join(ws, 'dangling-out'));
  symlinkSync(join(ws, 'loop-b'), join(ws, 'loop-a'));
  symlinkSync(join(ws, 'loop-a'), join(ws, 'loop-b'));
  symlinkSync(ws, join(tmp, 'root-link'));
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

describe('resolveScopedPath refuses', () => {
  it.each([
    ['a `..` escape (absolute)', () => `${ws}/src/../../etc/passwd`],
    ['a `..` escape (relative)', () => 'src/../../etc/passwd'],
    ['a sibling that shares the prefix', () => join(tmp, 'workspace_evil', 'x')],
    ['an escaping directory symlink', () => join(ws, 'out-dir-link', 'secret.txt')],
    ['an escaping file symlink', () => join(ws, 'out-file-link')],
    ['a missing file behind an escaping directory symlink', () => join(ws, 'out-dir-link', 'new-file.txt')],
    ['a dangling symlink that points outside', () => join(ws, 'dangling-out')],
    ['an absolute path elsewhere', () => '/etc/passwd'],
  ])('%s', async (_label, candidate) => {
    const result = await resolveScopedPath(ws, candidate());

    expect(result).toMatchObject({ ok: false, reason: 'outside_root' });
    expect(await isPathInside(ws, candidate())).toBe(false);
  });

  it('the literal `/workspace/src/../../etc/passwd` under a root `/workspace`', async () => {
    // Whether or not /workspace exists here, the answer is no.
    expect(await isPathInside('/workspace', '/workspace/src/../../etc/passwd')).toBe(false);
    expect(await isPathInside('/workspace', '/workspace_evil/x')).toBe(false);
  });

  it('a symlink loop, failing closed with `symlink_loop`', async () => {
    expect(await resolveScopedPath(ws, join(ws, 'loop-a'))).toMatchObject({ ok: false, reason: 'symlink_loop' });
    expect(await resolveScopedPath(ws, join(ws, 'loop-a', 'x'))).toMatchObject({ ok: false, reason: 'symlink_loop' });
  });

  it('a NUL byte, an empty string and a non-string', async () => {
    expect(await resolveScopedPath(ws, 'src/a.ts\0.png')).toMatchObject({ ok: false, reason: 'nul_byte' });
    expect(await resolveScopedPath(ws, '')).toMatchObject({ ok: false, reason: 'invalid_path' });
    expect(await resolveScopedPath(ws, 42)).toMatchObject({ ok: false, reason: 'invalid_path' });
  });

  it('`..` after a missing directory, and a path through a file', async () => {
    expect(await resolveScopedPath(ws, 'nope/../src/a.ts')).toMatchObject({ ok: false, reason: 'unresolvable' });
    expect(await resolveScopedPath(ws, 'src/a.ts/x')).toMatchObject({ ok: false, reason: 'unresolvable' });
  });

  it('every path when the root does not exist', async () => {
    const result = await resolveScopedPath(join(tmp, 'no-such-root'), 'x');

    expect(result).toMatchObject({ ok: false, reason: 'root_unavailable' });
  });
});

describe('resolveScopedPath allows', () => {
  it.each([
    ['a relative path inside', () => 'src/a.ts', () => join(ws, 'src', 'a.ts')],
    ['an absolute path inside', () => join(ws, 'src', 'a.ts'), () => join(ws, 'src', 'a.ts')],
    ['the root itself', () => ws, () => ws],
    ['a `..` that stays inside', () => 'src/../src/a.ts', () => join(ws, 'src', 'a.ts')],
    ['an internal directory symlink', () => join(ws, 'inner-link', 'a.ts'), () => join(ws, 'src', 'a.ts')],
    ['an internal file symlink', () => join(ws, 'inner-file-link'), () => join(ws, 'src', 'a.ts')],
    ['a missing descendant', () => 'src/new/deeper/file.txt', () => join(ws, 'src', 'new', 'deeper', 'file.txt')],
    ['a missing file behind an internal symlink', () => join(ws, 'inner-link', 'b.ts'), () => join(ws, 'src', 'b.ts')],
    ['a dangling symlink that points inside', () => join(ws, 'dangling-in'), () => join(ws, 'later.txt')],
  ])('%s', async (_label, candidate, expected) => {
    const result = await resolveScopedPath(ws, candidate());

    expect(result).toEqual({ ok: true, path: expected(), root: ws });
  });

  it('a root that is itself a symlink, with paths through the link or to the real tree', async () => {
    const rootLink = join(tmp, 'root-link');

    expect(await resolveScopedPath(rootLink, 'src/a.ts')).toEqual({
      ok: true,
      path: join(ws, 'src', 'a.ts'),
      root: ws,
    });
    expect(await isPathInside(rootLink, join(rootLink, 'src', 'a.ts'))).toBe(true);
    expect(await isPathInside(rootLink, join(ws, 'src', 'a.ts'))).toBe(true);
    expect(await isPathInside(rootLink, join(rootLink, 'out-dir-link', 'secret.txt'))).toBe(false);
  });
});

describe('isSubpath', () => {
  it('compares on segment boundaries', () => {
    expect(isSubpath('/workspace', '/workspace')).toBe(true);
    expect(isSubpath('/workspace', '/workspace/a')).toBe(true);
    expect(isSubpath('/workspace', '/workspace_evil/x')).toBe(false);
    expect(isSubpath('/workspace', '/workspac')).toBe(false);
    expect(isSubpath('/', '/etc')).toBe(true);
  });
});
