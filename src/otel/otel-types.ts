/**
 * The few shapes of `@opentelemetry/api` 1.x that hyphae uses, declared structurally so that no
 * OpenTelemetry type leaks into hyphae's declarations and nothing is imported at run time.
 */

/** An attribute value. */
export type OtelAttributeValue = string | number | boolean;
/** Attributes of a span, an event or a measurement. */
export type OtelAttributes = Record<string, OtelAttributeValue>;

/** A span (`Span` of `@opentelemetry/api`). */
export interface OtelSpan {
  setAttributes(attributes: OtelAttributes): unknown;
  addEvent(name: string, attributes?: OtelAttributes, time?: number): unknown;
  /** `code` 2 is ERROR. */
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: number): void;
  isRecording(): boolean;
}

/** A tracer (`Tracer` of `@opentelemetry/api`). */
export interface OtelTracer {
  startSpan(name: string, options?: { attributes?: OtelAttributes; startTime?: number; kind?: number }): OtelSpan;
}

/** A meter (`Meter` of `@opentelemetry/api`). */
export interface OtelMeter {
  createCounter(
    name: string,
    options?: { description?: string; unit?: string },
  ): {
    add(value: number, attributes?: OtelAttributes): void;
  };
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string },
  ): {
    record(value: number, attributes?: OtelAttributes): void;
  };
}

/** The global API (`import * as api from '@opentelemetry/api'`), when hyphae should use it. */
export interface OtelApi {
  readonly trace: {
    getTracer(name: string, version?: string): OtelTracer;
    getActiveSpan(): OtelSpan | undefined;
  };
  readonly metrics: { getMeter(name: string, version?: string): OtelMeter };
}
