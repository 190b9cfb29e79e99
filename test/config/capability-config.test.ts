/**
 * `tools.<name>.capability` and the worker-death keys through the config: the class floor at load,
 * the mechanism a `queryable` tool needs when it is wrapped, and a `blind` tool's UNKNOWN record.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { LedgerHardBlockError, ToolCapabilityDeclarationError } from '../../src/errors.js';
import { sideEffect } from '../../src/ledger/boundary-markers.js';
import { onlyIssue, yaml } from './helpers.js';

const HEADER = ['transition: { agent_id: agent, policy_version: 1 }', 'action_ledger: { storage: memory }', 'tools:'];
const scope = { threadId: 't', runId: 'r' };

describe('transition.reclaim_requires_death_signal', () => {
  it('may not be turned off in the production profile', () => {
    const issue = onlyIssue(
      yaml(
        'profile: production',
        'transition: { agent_id: agent, policy_version: 1, reclaim_requires_death_signal: false }',
      ),
    );

    expect(issue).toMatchObject({ path: 'transition.reclaim_requires_death_signal', line: 2 });
    expect(issue.message).toContain('needs worker-death evidence for consequential classes');
  });
});

describe('tools.<name>.capability', () => {
  it('looser than any mechanism allows is refused at load, at its line', () => {
    const issue = onlyIssue(yaml(...HEADER, '  burn: { side_effect_class: onchain_action, capability: idempotent }'));

    expect(issue).toMatchObject({ path: 'tools.burn.capability', line: 4 });
    expect(issue.message).toBe(
      'Tool `burn` (`irreversible`) cannot declare capability `idempotent`: it is looser than the class allows (allowed: `blind`)',
    );
  });

  it('`queryable` without a reconciler is refused when the tool is wrapped, and accepted with one', async () => {
    const text = yaml(...HEADER, '  send_email: { side_effect_class: email, capability: queryable }');
    const bare = await loadConfig({ text }, { env: {} });
    const reconciled = await loadConfig(
      { text },
      { env: {}, reconcilers: { send_email: () => ({ status: 'UNKNOWN' }) } },
    );
    try {
      expect(() => bare.instrument({ sendEmail: async () => 'sent' })).toThrow(ToolCapabilityDeclarationError);
      expect(() => reconciled.instrument({ sendEmail: async () => 'sent' })).not.toThrow();
    } finally {
      await bare.close();
      await reconciled.close();
    }
  });

  it('`blind` hard-blocks an UNKNOWN read instead of retrying it', async () => {
    const config = await loadConfig(
      { text: yaml(...HEADER, '  lookup: { side_effect_class: read, capability: blind }') },
      { env: {} },
    );
    let runs = 0;
    const tools = config.instrument({
      lookup: async () =>
        sideEffect(() => {
          runs++;
          if (runs === 1) throw new Error('timeout');
          return 'found';
        }),
    });
    try {
      const errors = await config.run(scope, async () => {
        const first = await tools.lookup({}, { toolCallId: 'c' }).catch((error: unknown) => error);
        const second = await tools.lookup({}, { toolCallId: 'c' }).catch((error: unknown) => error);
        return [first, second];
      });

      expect(errors[1]).toBeInstanceOf(LedgerHardBlockError);
      expect(runs).toBe(1);
    } finally {
      await config.close();
    }
  });
});

describe('tools.<name>.boundary', () => {
  it('`body` writes the claim maybe_crossed: the body needs no marker, and its failure is never run again', async () => {
    const config = await loadConfig(
      { text: yaml(...HEADER, '  charge: { side_effect_class: payment, boundary: body }') },
      { env: {} },
    );
    const seen: string[] = [];
    let runs = 0;
    const tools = config.instrument({
      charge: async () => {
        runs++;
        seen.push((await config.ledger?.list())?.records[0]?.boundary ?? 'none');
        throw new Error('The gateway closed the connection');
      },
    });
    try {
      const errors = await config.run(scope, async () => {
        const first = await tools.charge({}, { toolCallId: 'c' }).catch((error: unknown) => error);
        const second = await tools.charge({}, { toolCallId: 'c' }).catch((error: unknown) => error);
        return [first, second];
      });

      expect(seen).toEqual(['maybe_crossed']);
      expect(errors[0]).toMatchObject({ message: 'The gateway closed the connection' });
      expect(errors[1]).toBeInstanceOf(LedgerHardBlockError);
      expect(runs).toBe(1);
    } finally {
      await config.close();
    }
  });

  it('anything but `marked` or `body` is refused at load, at its line', () => {
    const issue = onlyIssue(yaml(...HEADER, '  charge: { side_effect_class: payment, boundary: before }'));

    expect(issue).toMatchObject({ path: 'tools.charge.boundary', line: 4 });
  });
});
