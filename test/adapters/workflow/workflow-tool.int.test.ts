/**
 * An AI SDK tool inside a Workflow DevKit step: the `"use step"` turn runs `streamText` with a
 * charging tool, and the scripted model fails the turn after the tool ran. The engine retries the
 * step and the retried turn's model asks for the same charge under a new tool call id. Stock, the
 * tool's own `"use step"` is a plain call inside the turn's step and charges again; with
 * `ledgeredStepTool` the retry meets the first attempt's transition (keyed by the step, the tool
 * and its arguments) and gets its result. The app is built with the `workflow` CLI and hosted by a
 * plain `node:http` server on the local world; charges are lines in a file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp, chargeLinesOf, runHost } from './app.js';

const SLOW = { timeout: 180_000 };

describe('hyphae/workflow: an AI SDK tool in a retried turn, called again under a new tool call id', () => {
  let app: BuiltApp;
  beforeAll(() => {
    app = buildApp();
  }, 240_000);
  afterAll(() => {
    app?.remove();
  });

  it(
    'stock charges twice, once per attempt of the turn; guarded charges once and the run completes',
    SLOW,
    async () => {
      const stock = await runHost(
        app,
        { action: 'start' },
        { guarded: false, afterCharge: 'return', workflow: 'agent' },
      );
      const stockLines = chargeLinesOf(app);
      const guarded = await runHost(
        app,
        { action: 'start' },
        { guarded: true, afterCharge: 'return', workflow: 'agent' },
      );
      const guardedLines = chargeLinesOf(app).slice(stockLines.length);

      expect(stock).toMatchObject({ charged: 2, settled: { ok: true, value: 'Charged.' } });
      expect(stockLines.map((line) => line.attempt)).toEqual([1, 2]);
      expect(guarded).toMatchObject({ charged: 1, settled: { ok: true, value: 'Charged.' } });
      expect(guardedLines.map((line) => line.attempt)).toEqual([1]);
    },
  );
});
