/**
 * The tool boundary: schemas (field specs, JSON Schema, Standard Schema), bounded tools, scoped
 * paths, the tool registry and the LLM-retry runner.
 *
 * The root `src/index.ts` should re-export exactly these names (copy the block below, with the
 * path changed to `./boundary/index.js`).
 */
export {
  type AnyBoundedTool,
  type BoundedOptions,
  type BoundedResult,
  type BoundedTool,
  bounded,
  type CheckedArgs,
  isBoundedTool,
  type SchemaInput,
} from './bounded.js';
export type { AssistantMessage, ChatMessage, ChatToolCall, ToolCallRequest, ToolMessage } from './chat.js';
export {
  type CompiledSchema,
  compileSchema,
  detectSchemaKind,
  isCompiledSchema,
  type SchemaKind,
  type SchemaOutput,
  type ToolSchema,
} from './compile-schema.js';
export { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from './create-tool-registry.js';
export {
  createToolRunner,
  type RunnerCallOptions,
  type ToolRunner,
  type ToolRunnerOptions,
} from './create-tool-runner.js';
export {
  type ExhaustedBudget,
  type ExhaustedContext,
  SchemaDefinitionError,
  type SchemaDefinitionErrorOptions,
  ToolBoundaryError,
  type ToolBoundaryErrorInit,
  ToolBoundaryExhaustedError,
  ToolBoundaryViolation,
  ToolDefinitionError,
  ToolRegistryError,
  type ToolRegistryReason,
  ValidationError,
} from './errors.js';
export { fieldSpecToJsonSchema, type JsonSchemaObject } from './field-spec.js';
export type {
  ArrayField,
  BooleanField,
  FieldBase,
  FieldDef,
  FieldSpec,
  FieldType,
  InferField,
  InferFieldSpec,
  NumericField,
  ObjectField,
  StringField,
} from './field-spec-types.js';
export {
  describeValue,
  IssueCode,
  type PathSegment,
  toJsonPointer,
  type ValidationIssue,
  type ValidationResult,
} from './issues.js';
export type {
  FormatToolResult,
  InvokeLlm,
  LlmRequest,
  LlmRetryOptions,
  LlmTurnResult,
  ToolCallResult,
} from './llm-turn.js';
export type { ScopeOptions } from './scope-checks.js';
export {
  isPathInside,
  isSubpath,
  resolveScopedPath,
  type ScopedPathRefusal,
  type ScopedPathResult,
} from './scoped-path.js';
export {
  isStandardSchema,
  type StandardInput,
  type StandardIssue,
  type StandardOutput,
  type StandardPathSegment,
  type StandardProps,
  type StandardResult,
  type StandardSchemaV1,
} from './standard-schema.js';
export { type ParseToolArgs, parseJsonArgs, type ToolLookup } from './tool-execution.js';
export { assertValid, validate, validateAsync } from './validate.js';
