/**
 * The fuse box of the `fuses` section. Each tool's `permissions` feed the permission fuse; a
 * setting the fuse constructors refuse is reported at its key.
 */
import type { Clock } from '../core/clock.js';
import { InvalidOptionError } from '../errors.js';
import { budgetFuse } from '../fuses/budget.js';
import type { FuseEvent } from '../fuses/events.js';
import { createFuseBox, type FuseBox } from '../fuses/fuse-box.js';
import { loopFuse } from '../fuses/loop.js';
import { permissionFuse } from '../fuses/permission.js';
import type { ToolFuse } from '../fuses/tool-fuse.js';
import { defined } from './defined.js';
import type { NodeIssue } from './schema/nodes.js';
import type { ConfigSettings } from './types.js';

function snakeCase(option: string): string[] {
  return option
    .split('.')
    .map((part, index) => (index === 0 ? part.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : part));
}

/** The fuse box `settings` describe (undefined without `fuses`), or the finding that refuses it. */
export function buildFuses(
  settings: ConfigSettings,
  clock: Clock | undefined,
  emit: (event: { readonly type: 'fuse'; readonly event: FuseEvent }) => void,
): { readonly box: FuseBox | undefined } | { readonly issue: NodeIssue } {
  const fuses = settings.fuses;
  if (fuses === undefined) return { box: undefined };
  let section = 'permission';
  try {
    let permission: ToolFuse | undefined;
    if (fuses.permission !== undefined) {
      const tools: Record<string, readonly string[]> = {};
      for (const name of settings.registry?.allowed ?? []) tools[name] = [];
      for (const [name, tool] of Object.entries(settings.tools)) tools[name] = tool.permissions ?? [];
      permission = permissionFuse({ ...fuses.permission, tools });
    }
    section = 'loop';
    const loop = fuses.loop === undefined ? undefined : loopFuse(fuses.loop);
    section = 'budget';
    const budget = fuses.budget === undefined ? undefined : budgetFuse(fuses.budget);
    const box = createFuseBox({
      ...defined({ permission, loop, budget, clock }),
      // A long-lived agent must not grow a log without bound: events go to the hook only.
      keepLog: false,
      onEvent: (event) => emit({ type: 'fuse', event }),
    });
    return { box };
  } catch (error) {
    if (!(error instanceof InvalidOptionError)) throw error;
    return { issue: { path: ['fuses', section, ...snakeCase(error.option)], target: 'key', message: error.message } };
  }
}
