#!/usr/bin/env node
/**
 * Hold the committed bench figures to their limits: every entry of `bench/targets.json` names a
 * figure of `bench/results.json` (its `ratio` or its `value`) and a limit it must not pass. The bench
 * is not run here; a regression shows when the re-measured figures are committed.
 *
 * An entry's `goal` is where the figure is headed; its `limit` is what CI holds it to (the goal once
 * it is met, until then the figure as measured with room for noise). Both are printed.
 *
 *   node scripts/check-bench-targets.mjs [targets.json] [results.json]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** True when `measured` is within `bound` (`{ max }` or `{ min }`). */
function within(measured, bound) {
  if (bound.max !== undefined && measured > bound.max) return false;
  if (bound.min !== undefined && measured < bound.min) return false;
  return true;
}

function describe(bound) {
  return bound.max !== undefined ? `≤ ${bound.max}` : `≥ ${bound.min}`;
}

function checkBound(where, bound) {
  const keys = bound === null || typeof bound !== 'object' ? [] : Object.keys(bound);
  const ok = keys.length === 1 && (keys[0] === 'max' || keys[0] === 'min') && Number.isFinite(bound[keys[0]]);
  if (!ok) throw new TypeError(`${where} must be { "max": number } or { "min": number }`);
}

/**
 * Check `targets` against `figures`.
 *
 * @returns {{ rows: { figure: string, field: string, measured: number | null, limit: string, goal: string, ok: boolean, met: boolean }[], failures: string[] }}
 */
export function checkTargets(targets, figures) {
  if (!Array.isArray(targets)) throw new TypeError('the targets must be an array');
  const byName = new Map(figures.map((figure) => [`${figure.area}/${figure.name}`, figure]));
  const rows = [];
  const failures = [];
  for (const [index, target] of targets.entries()) {
    const where = `target ${index} (${target?.figure ?? 'no figure'})`;
    if (typeof target?.figure !== 'string' || !target.figure.includes('/'))
      throw new TypeError(`${where}: \`figure\` must be "<area>/<figure name>"`);
    if (target.field !== 'ratio' && target.field !== 'value')
      throw new TypeError(`${where}: \`field\` must be "ratio" or "value"`);
    checkBound(`${where}: \`limit\``, target.limit);
    checkBound(`${where}: \`goal\``, target.goal);
    const figure = byName.get(target.figure);
    const measured = figure === undefined ? null : figure[target.field];
    const ok = typeof measured === 'number' && within(measured, target.limit);
    const met = typeof measured === 'number' && within(measured, target.goal);
    rows.push({
      figure: target.figure,
      field: target.field,
      measured,
      limit: describe(target.limit),
      goal: describe(target.goal),
      ok,
      met,
    });
    if (measured === null || measured === undefined) failures.push(`${target.figure}: no such figure in the results`);
    else if (!ok)
      failures.push(`${target.figure}: ${target.field} ${measured} is past its limit ${describe(target.limit)}`);
  }
  return { rows, failures };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = new URL('../bench/', import.meta.url);
  const targetsFile = process.argv[2] ?? fileURLToPath(new URL('targets.json', root));
  const resultsFile = process.argv[3] ?? fileURLToPath(new URL('results.json', root));
  const { rows, failures } = checkTargets(
    JSON.parse(readFileSync(targetsFile, 'utf8')),
    JSON.parse(readFileSync(resultsFile, 'utf8')),
  );
  for (const row of rows) {
    const state = !row.ok ? 'FAIL' : row.met ? 'met ' : 'held';
    process.stdout.write(
      `${state}  ${row.field} ${row.measured ?? '—'} (limit ${row.limit}, goal ${row.goal})  ${row.figure}\n`,
    );
  }
  const met = rows.filter((row) => row.met).length;
  process.stdout.write(
    `${rows.length} bench targets: ${met} met, ${rows.length - met - failures.length} held at their limit, ${failures.length} failed\n`,
  );
  for (const failure of failures) process.stderr.write(`bench target failed: ${failure}\n`);
  process.exitCode = failures.length === 0 ? 0 : 1;
}
