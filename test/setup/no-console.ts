import { afterEach, beforeEach, vi } from 'vitest';

// Library code never prints: any console call made while a test runs fails that test.
const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
const calls: string[] = [];

beforeEach(() => {
  calls.length = 0;
  for (const method of methods) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      calls.push(`console.${method}(${args.map(String).join(' ')})`);
    });
  }
});

afterEach(() => {
  vi.restoreAllMocks();
  if (calls.length > 0) {
    throw new Error(`Library code printed during the test:\n${calls.join('\n')}`);
  }
});
