/**
 * The PostgreSQL baseline: the driver's own statements (`src/storage/postgres/queries.ts`) sent
 * through the same pool, on a table made by the driver's migration, with documents of the same size.
 *   create = INSERT … ON CONFLICT DO NOTHING, reading the conflicting row in the same statement
 *   update = UPDATE … WHERE key = $1 AND version = $2
 */
import type { TransitionRecord } from '../../src/index.js';
import { decodeRecord } from '../../src/storage/record-codec.js';
import { randomKey } from './random-key.js';
import { parseDoc, splitWrites, type WrittenDoc } from './written-docs.js';

/** The slice of a `pg` pool the baseline uses. */
export interface RawPgPool {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** The statement texts to run (the driver's), built once. */
export interface PostgresStatements {
  readonly create: string;
  readonly update: string;
}

/** The operation of each case. */
export interface RawPostgres {
  write(docs: readonly string[]): () => Promise<void>;
  replay(doc: string): Promise<() => Promise<void>>;
}

/** The driver's statement texts for a table, from its statement builders and one captured document. */
export function statementTexts(
  build: {
    create(record: TransitionRecord, doc: string): { text: string };
    update(record: TransitionRecord, doc: string): { text: string };
  },
  doc: string,
): PostgresStatements {
  const record = decodeRecord(doc, 'bench');
  return { create: build.create(record, doc).text, update: build.update(record, doc).text };
}

/** Build the raw operations over `pool`. */
export function openRawPostgres(pool: RawPgPool, statements: PostgresStatements): RawPostgres {
  const create = (key: string, ticketKey: string, write: WrittenDoc) =>
    pool.query(statements.create, [
      key,
      ticketKey,
      write.tool,
      write.kind,
      write.outcome,
      String(Date.now()),
      write.version,
      write.doc,
    ]);
  const update = (key: string, expected: number, write: WrittenDoc) =>
    pool.query(statements.update, [
      key,
      expected,
      write.tool,
      write.kind,
      write.outcome,
      String(Date.now()),
      write.version,
      write.doc,
    ]);
  const status = (rows: unknown[]): unknown => (rows[0] as { status?: unknown } | undefined)?.status;

  return {
    write(docs) {
      const { first, rest } = splitWrites(docs);
      return async () => {
        const key = randomKey();
        if (status((await create(key, randomKey(), first)).rows) !== 'created') throw new Error('Raw insert met a row');
        let version = first.version;
        for (const write of rest) {
          if ((await update(key, version, write)).rowCount !== 1) throw new Error('Raw CAS update lost');
          version = write.version;
        }
      };
    },
    async replay(doc) {
      const key = randomKey();
      const ticketKey = randomKey();
      const stored = parseDoc(doc);
      await create(key, ticketKey, stored);
      return async () => {
        if (status((await create(key, ticketKey, stored)).rows) !== 'key')
          throw new Error('Raw replay did not meet its row');
      };
    },
  };
}
