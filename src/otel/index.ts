/**
 * `hyphae/otel`: OpenTelemetry spans, span events and metrics for guarded calls, fed by the
 * `onEvent` hooks of the ledger, the fuse box and `loadConfig`. Imports nothing at run time;
 * `@opentelemetry/api` 1.x is an optional peer whose objects you pass in.
 *
 * @module
 */
export { createTelemetry, type Telemetry, type TelemetryOptions } from './create-telemetry.js';
export type {
  OtelApi,
  OtelAttributes,
  OtelAttributeValue,
  OtelMeter,
  OtelSpan,
  OtelTracer,
} from './otel-types.js';
