/**
 * `tools.<name>.bounded` checked at load time: the schemas compile, patterns are regular
 * expressions and path arguments are declared — by defining the tool once with a body that never
 * runs, so the checks are exactly those `bounded` makes.
 */
import { type BoundedOptions, bounded } from '../boundary/bounded.js';
import { compileSchema, type ToolSchema } from '../boundary/compile-schema.js';
import { SchemaDefinitionError, ToolDefinitionError } from '../boundary/errors.js';
import type { ConfigPathSegment, NodeIssue } from './schema/nodes.js';
import type { BoundedSettings, ConfigSettings } from './types.js';

const OPTION_KEYS: Readonly<Record<string, string>> = {
  schema: 'schema',
  outputSchema: 'output_schema',
  allowedPaths: 'allowed_paths',
  pathParams: 'path_params',
  entityPattern: 'entity_pattern',
};

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The key path of a `bounded` option (`entityPattern.order_id` → `entity_pattern.order_id`). */
function optionPath(option: string): ConfigPathSegment[] {
  const [head = option, ...rest] = option.split('.');
  return [OPTION_KEYS[head] ?? head, ...rest];
}

/** The `bounded` options of a configured tool. */
export function boundedOptions(
  name: string,
  settings: BoundedSettings,
  sideEffectClass: string | undefined,
): BoundedOptions<ToolSchema, ToolSchema | undefined> {
  return {
    name,
    schema: settings.schema as ToolSchema,
    ...(settings.outputSchema === undefined ? {} : { outputSchema: settings.outputSchema as ToolSchema }),
    ...(settings.allowedPaths === undefined ? {} : { allowedPaths: settings.allowedPaths }),
    ...(settings.pathParams === undefined ? {} : { pathParams: settings.pathParams }),
    ...(settings.entityPattern === undefined ? {} : { entityPattern: settings.entityPattern }),
    ...(sideEffectClass === undefined ? {} : { sideEffectClass }),
  };
}

function schemaIssue(schema: unknown, path: ConfigPathSegment[]): NodeIssue | undefined {
  try {
    compileSchema(schema as ToolSchema);
    return undefined;
  } catch (error) {
    if (!(error instanceof SchemaDefinitionError)) throw error;
    return {
      path: [...path, ...pointerSegments(error.field)],
      target: 'value',
      message: `Invalid schema: ${error.problem}`,
    };
  }
}

/** Define every bounded tool once and report what `bounded` refuses, at the offending key. */
export function checkBoundedTools(settings: ConfigSettings, issues: NodeIssue[]): void {
  for (const [name, tool] of Object.entries(settings.tools)) {
    if (tool.bounded === undefined) continue;
    const at: ConfigPathSegment[] = ['tools', name, 'bounded'];
    const schemaIssues = [
      schemaIssue(tool.bounded.schema, [...at, 'schema']),
      tool.bounded.outputSchema === undefined
        ? undefined
        : schemaIssue(tool.bounded.outputSchema, [...at, 'output_schema']),
    ].filter((issue) => issue !== undefined);
    if (schemaIssues.length > 0) {
      issues.push(...schemaIssues);
      continue;
    }
    try {
      bounded(boundedOptions(name, tool.bounded, tool.sideEffectClass), function unused() {
        return undefined;
      });
    } catch (error) {
      if (!(error instanceof ToolDefinitionError)) throw error;
      issues.push({ path: [...at, ...optionPath(error.option)], target: 'value', message: error.problem });
    }
  }
}
