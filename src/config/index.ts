/**
 * Configuration: `hyphae.yaml` checked against one schema (also published as `hyphae.schema.json`),
 * parsed to typed settings, and loaded into a config that wraps tools, tasks and agent runs.
 *
 * The root entry should re-export exactly these names (path `./config/index.js`).
 */

export type { ConfiguredTask, HyphaeConfig, Instrumented } from './create-config.js';
export { ConfigError, type ConfigIssue } from './errors.js';
export { type ConfigEvent, type ConfigSource, type LoadConfigOptions, loadConfig } from './load-config.js';
export {
  type ConfigEnv,
  type ConfigValidation,
  type ParseConfigOptions,
  parseConfig,
  validateConfig,
} from './parse-config.js';
export type { PrepareMessagesEvent } from './prepare-messages.js';
export { CONSEQUENTIAL_CLASSES } from './rules.js';
export type { ConfigRun, ConfigRunScope } from './run-context.js';
export { parseDuration } from './schema/common-nodes.js';
export { configJsonSchema, DEFAULT_LEASE_TTL_MS, SCHEMA_FILE_NAME } from './schema/config-node.js';
export type { JsonSchema } from './schema/nodes.js';
export type {
  ActionLedgerSettings,
  BoundedSettings,
  ConfigProfile,
  ConfigSettings,
  FusesSettings,
  HistoryGuardSettings,
  LedgerCoverage,
  McpSecretsAction,
  McpSettings,
  McpToolSettings,
  PriceSettings,
  ProtectSettings,
  ReceiptsSettings,
  RegistrySettings,
  RunnerSettings,
  RunSnapshotsSettings,
  SecretSource,
  StoreSettings,
  TaskLedgerSettings,
  TaskSettings,
  ToolSettings,
  TranscriptSettings,
  TransitionSettings,
  ValueSource,
} from './types.js';
export type { ConfiguredTool, ToolBody, ToolOverrides } from './wrap-tool.js';
