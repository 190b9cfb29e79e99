/**
 * A payment gateway for the demo: one JSON line per charge in a file, shared across processes.
 */
import { appendFileSync, closeSync, existsSync, fsyncSync, openSync, readFileSync } from 'node:fs';

/** A charge the gateway accepted. */
export interface Charge {
  readonly ref: string;
  readonly amount: number;
  readonly recipient: string;
}

/** The demo gateway over a charges file. */
export interface FakeGateway {
  charge(charge: Charge): Charge;
  find(ref: string): Charge | undefined;
  count(): number;
}

/** Open the gateway whose charges live in `path`. */
export function openFakeGateway(path: string): FakeGateway {
  const read = (): Charge[] =>
    existsSync(path)
      ? readFileSync(path, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as Charge)
      : [];
  return {
    charge(charge) {
      appendFileSync(path, `${JSON.stringify(charge)}\n`);
      const fd = openSync(path, 'r');
      fsyncSync(fd);
      closeSync(fd);
      return charge;
    },
    find: (ref) => read().find((c) => c.ref === ref),
    count: () => read().length,
  };
}
