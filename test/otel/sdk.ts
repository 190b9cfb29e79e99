/**
 * The OpenTelemetry SDK with in-memory exporters, for the telemetry tests.
 */
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll } from 'vitest';
import { createTelemetry } from '../../src/otel/index.js';

/** Install an async-hooks context manager for the file's tests (active spans follow awaits). */
export function useContextManager(): void {
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    contextManager.enable();
    api.context.setGlobalContextManager(contextManager);
  });
  afterAll(() => {
    api.context.disable();
  });
}

/** A tracer and meter recording into memory, and the telemetry hooks over them. */
export function sdk() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const meters = new MeterProvider({ readers: [reader] });
  const tracer = provider.getTracer('test');
  const telemetry = createTelemetry({
    tracer,
    meter: meters.getMeter('test'),
    activeSpan: () => api.trace.getActiveSpan(),
  });
  async function metric(name: string) {
    const { resourceMetrics } = await reader.collect();
    const found = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((m) => m.descriptor.name === name);
    return (found?.dataPoints ?? []) as { attributes: Record<string, unknown>; value: unknown }[];
  }
  return { exporter, tracer, telemetry, metric, close: () => Promise.all([provider.shutdown(), meters.shutdown()]) };
}
