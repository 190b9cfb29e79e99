import { describe, expect, it } from 'vitest';
import { FuseConfigError } from '../../src/fuses/errors.js';
import { createFuseBox } from '../../src/fuses/fuse-box.js';
import { permissionFuse } from '../../src/fuses/permission.js';
import { FuseCode } from '../../src/fuses/verdict.js';
import { REFUND_TOOLS, refused } from './helpers.js';

function runWith(options: Parameters<typeof permissionFuse>[0]) {
  return createFuseBox({ permission: permissionFuse(options) }).forRun('run-1');
}

describe('permissionFuse', () => {
  it('refuses `issue_refund` to a run granted only `read` (lesson)', () => {
    const run = runWith({ granted: ['read'], tools: REFUND_TOOLS });

    const verdict = refused(run.checkToolCall({ name: 'issue_refund', args: { amount: 40 } }));

    expect(verdict.fuse).toBe('permission');
    expect(verdict.code).toBe(FuseCode.permission_denied);
    expect(verdict.terminal).toBe(false);
    expect(verdict.evidence).toMatchObject({ missing: ['write', 'spend_money'], required: ['write', 'spend_money'] });
    expect(verdict.note).toContain('`issue_refund` was NOT executed');
    expect(verdict.note).toContain('`write`, `spend_money`');
    expect(verdict.note.endsWith('.')).toBe(false);
    expect(run.checkToolCall({ name: 'lookup_order', args: { id: 7 } })).toEqual({ allowed: true });
  });

  it('needs every scope of a tool, not just one', () => {
    const run = runWith({ granted: ['read', 'write'], tools: REFUND_TOOLS });

    const verdict = refused(run.checkToolCall({ name: 'issue_refund', args: {} }));

    expect(verdict.evidence.missing).toEqual(['spend_money']);
  });

  it('allows a tool once all its scopes are granted, and a tool that needs none', () => {
    const run = runWith({ granted: ['read', 'write', 'spend_money'], tools: { ...REFUND_TOOLS, ping: [] } });

    expect(run.checkToolCall({ name: 'issue_refund', args: {} }).allowed).toBe(true);
    expect(run.checkToolCall({ name: 'ping', args: {} }).allowed).toBe(true);
  });

  it('denies an unregistered tool by default and names the usable ones', () => {
    const run = runWith({ granted: ['read'], tools: { lookup_order: ['read'], issue_refund: ['write'] } });

    const verdict = refused(run.checkToolCall({ name: 'delete_repo', args: {} }));

    expect(verdict.code).toBe(FuseCode.unknown_tool);
    expect(verdict.reason).toBe('Unknown tool `delete_repo` (allowed: `lookup_order`)');
    expect(verdict.note).toContain('NOT executed');
  });

  it('lets unregistered tools run with `allowUnknownTools`', () => {
    const run = runWith({ granted: [], tools: {}, allowUnknownTools: true });

    expect(run.checkToolCall({ name: 'anything', args: {} }).allowed).toBe(true);
  });

  it('does not mistake prototype members for registered tools', () => {
    const run = runWith({ granted: ['read'], tools: REFUND_TOOLS, maxDenials: Number.POSITIVE_INFINITY });

    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(refused(run.checkToolCall({ name, args: {} })).code).toBe(FuseCode.unknown_tool);
    }
  });

  it('copies its options: changing the caller’s arrays later changes nothing', () => {
    const granted = ['read'];
    const tools: Record<string, string[]> = { lookup_order: ['read'] };
    const run = runWith({ granted, tools });

    granted.push('write');
    tools.lookup_order?.push('write');
    tools.issue_refund = ['write'];

    expect(run.checkToolCall({ name: 'lookup_order', args: {} }).allowed).toBe(true);
    expect(refused(run.checkToolCall({ name: 'issue_refund', args: {} })).code).toBe(FuseCode.unknown_tool);
  });

  it('makes the `maxDenials`th denial terminal, and a reset clears the count (trap)', () => {
    const run = runWith({ granted: ['read'], tools: REFUND_TOOLS, maxDenials: 2 });

    expect(refused(run.checkToolCall({ name: 'issue_refund', args: {} })).terminal).toBe(false);
    const second = refused(run.checkToolCall({ name: 'issue_refund', args: { amount: 1 } }));
    expect(second.terminal).toBe(true);
    expect(second.note).toContain('This run is now stopped');
    expect(refused(run.checkToolCall({ name: 'lookup_order', args: {} })).code).toBe(FuseCode.run_stopped);

    run.reset();

    expect(run.checkToolCall({ name: 'lookup_order', args: {} }).allowed).toBe(true);
    const afterReset = refused(run.checkToolCall({ name: 'issue_refund', args: {} }));
    expect(afterReset.terminal).toBe(false);
    expect(afterReset.evidence.denials).toBe(1);
  });

  it('counts only its own denials', () => {
    const run = runWith({ granted: ['read'], tools: REFUND_TOOLS, maxDenials: Number.POSITIVE_INFINITY });

    for (let i = 0; i < 10; i++)
      expect(refused(run.checkToolCall({ name: 'issue_refund', args: {} })).terminal).toBe(false);
    expect(run.stats().permission).toEqual({ denials: 10 });
    expect(refused(run.checkToolCall({ name: 'issue_refund', args: {} })).evidence.maxDenials).toBeNull();
  });

  it('rejects options that cannot work at construction', () => {
    expect(() => permissionFuse({ granted: [], tools: {}, maxDenials: 0 })).toThrow(FuseConfigError);
    expect(() => permissionFuse({ granted: 'read' as unknown as string[], tools: {} })).toThrow(/`granted`/);
    expect(() => permissionFuse({ granted: [], tools: null as never })).toThrow(/`tools`/);
    expect(() => permissionFuse({ granted: [], tools: { f: 'read' as unknown as string[] } })).toThrow(
      /Scopes of tool `f` must be an array of strings/,
    );
  });
});
