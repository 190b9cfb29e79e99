/**
 * `hyphae transitions`: list, show, release and mark-dead, on the ledger store the config names.
 */
import { GuardError } from '../../errors.js';
import { FILTER_KINDS, FILTER_OUTCOMES } from '../../ledger/operator/read-model.js';
import type { RecordKind } from '../../records/transition-record.js';
import { type Command, type CommandContext, ExitCode, UsageError } from '../command.js';
import {
  DEFAULT_CONFIG_FILE,
  ledgersOf,
  loadCommandConfig,
  openLedgerStores,
  type TransitionReader,
} from '../lib/config-ledgers.js';
import {
  flag,
  listOption,
  type OptionSpec,
  type ParsedOptions,
  parseOptions,
  stringOption,
} from '../lib/parse-options.js';
import { markDeadInputOf, releaseInputOf, runMarkDead, runRelease } from '../lib/transition-actions.js';
import { listTransitions, lookupTransition } from '../lib/transition-queries.js';
import { printRecord, printTable, recordJson } from '../lib/transition-view.js';

const HELP = `Usage: hyphae transitions <subcommand> [options]

Reads and resolves transitions in the ledger store the config names. list and show only read:
they never create a store (a SQLite file that does not exist yet holds no transitions).

Subcommands:
  list [--outcome O]... [--tool T] [--kind K | --denials] [--stuck] [--limit N] [--json]
        transitions, newest first. --outcome takes IN_FLIGHT, COMPLETED, FAILED_BEFORE_EFFECT,
        FAILED_AFTER_EFFECT, UNKNOWN, BLOCKED or EXPIRED (IN_FLIGHT with its lease passed);
        --kind takes tool, task or denial (a call its checks refused: kind denial, BLOCKED,
        never claimed, never released); --denials is --kind denial;
        --stuck shows what waits for an operator: UNKNOWN, BLOCKED, FAILED_AFTER_EFFECT, EXPIRED
        (denials never wait for one)
  show KEY [--json]
        one transition, every field; KEY may be a unique prefix of at least 4 hex digits
  release KEY (--completed [--result JSON] | --not-executed) --by WHO --reason WHY
        record what you verified with the provider: --completed stores the result and resolves
        the transition; --not-executed lets the next call run it exactly once more
  mark-dead (KEY | --owner OWNER) --by WHO --reason WHY [--override-heartbeat]
        record that the worker of IN_FLIGHT transitions is dead (who, why, when): its lease ends
        and it is fenced, so a peer may take over; OWNER is a claim's owner id, one ledger's (the
        owner id before #), or a worker's: its ownerId, or host:pid for every ledger of one
        process. Refused while the worker's heartbeat is fresher than presumed_dead_after, unless
        --override-heartbeat (you know it is gone: you killed the pod)

Options:
  -c, --config FILE   the config (default ./hyphae.yaml)
  --json              machine-readable output

Exit codes: 0 ok, 1 refused or not found (or the config cannot load), 2 usage
`;

const COMMON: Readonly<Record<string, OptionSpec>> = {
  config: { type: 'string', short: 'c' },
  json: { type: 'boolean' },
};

const SPECS: Readonly<Record<string, Readonly<Record<string, OptionSpec>>>> = {
  list: {
    ...COMMON,
    outcome: { type: 'string', multiple: true },
    tool: { type: 'string' },
    kind: { type: 'string' },
    denials: { type: 'boolean' },
    stuck: { type: 'boolean' },
    limit: { type: 'string' },
  },
  show: COMMON,
  release: {
    ...COMMON,
    completed: { type: 'boolean' },
    'not-executed': { type: 'boolean' },
    by: { type: 'string' },
    reason: { type: 'string' },
    result: { type: 'string' },
  },
  'mark-dead': {
    ...COMMON,
    owner: { type: 'string' },
    by: { type: 'string' },
    reason: { type: 'string' },
    'override-heartbeat': { type: 'boolean' },
  },
};

function limitOf(parsed: ParsedOptions): number {
  const text = stringOption(parsed, 'limit');
  if (text === undefined) return 100;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`\`--limit\` takes a positive integer, got \`${text}\``);
  return limit;
}

function outcomesOf(parsed: ParsedOptions): string[] {
  const outcomes = listOption(parsed, 'outcome')
    .flatMap((text) => text.split(','))
    .map((text) => text.trim().toUpperCase());
  for (const outcome of outcomes) {
    if (!FILTER_OUTCOMES.includes(outcome)) {
      throw new UsageError(
        `Unknown outcome \`${outcome}\` (known: ${FILTER_OUTCOMES.map((o) => `\`${o}\``).join(', ')})`,
      );
    }
  }
  return outcomes;
}

function kindOf(parsed: ParsedOptions): RecordKind | undefined {
  const text = stringOption(parsed, 'kind');
  const denials = flag(parsed, 'denials');
  if (text === undefined) return denials ? 'denial' : undefined;
  const kind = text.trim().toLowerCase();
  if (!(FILTER_KINDS as readonly string[]).includes(kind))
    throw new UsageError(`Unknown kind \`${text}\` (known: ${FILTER_KINDS.map((k) => `\`${k}\``).join(', ')})`);
  if (denials && kind !== 'denial') throw new UsageError(`\`--denials\` contradicts \`--kind ${kind}\``);
  return kind as RecordKind;
}

function oneKey(sub: string, parsed: ParsedOptions): string {
  const [key, extra] = parsed.positionals;
  if (key === undefined) throw new UsageError(`\`hyphae transitions ${sub}\` needs a KEY`);
  if (extra !== undefined)
    throw new UsageError(`\`hyphae transitions ${sub}\` takes one KEY, got \`${key}\` and \`${extra}\``);
  return key;
}

async function list(parsed: ParsedOptions, ledgers: readonly TransitionReader[], ctx: CommandContext): Promise<number> {
  if (parsed.positionals.length > 0) throw new UsageError('`hyphae transitions list` takes no KEY');
  const now = Date.now();
  const records = await listTransitions(
    ledgers,
    {
      outcomes: outcomesOf(parsed),
      tool: stringOption(parsed, 'tool'),
      kind: kindOf(parsed),
      stuck: flag(parsed, 'stuck'),
      limit: limitOf(parsed),
    },
    now,
  );
  if (flag(parsed, 'json'))
    ctx.out.line(
      JSON.stringify(
        records.map((record) => recordJson(record, now)),
        null,
        2,
      ),
    );
  else printTable(ctx.out, records, now);
  return ExitCode.ok;
}

async function show(parsed: ParsedOptions, ledgers: readonly TransitionReader[], ctx: CommandContext): Promise<number> {
  const key = oneKey('show', parsed);
  const found = await lookupTransition(ledgers, key);
  if (found.kind === 'none') {
    ctx.err.line(`No transition \`${key}\``);
    return ExitCode.failed;
  }
  if (found.kind === 'ambiguous') {
    const shown = found.keys.slice(0, 10).map((candidate) => `  ${candidate}`);
    const more = found.keys.length > 10 ? [`  … and ${found.keys.length - 10} more`] : [];
    ctx.err.line(
      `${ctx.err.fail('Refused')}: the key prefix \`${key}\` is ambiguous; it starts ${found.keys.length} transition keys:`,
    );
    for (const line of [...shown, ...more]) ctx.err.line(line);
    return ExitCode.failed;
  }
  const now = Date.now();
  if (flag(parsed, 'json')) ctx.out.line(JSON.stringify(recordJson(found.record, now), null, 2));
  else printRecord(ctx.out, found.record, now);
  return ExitCode.ok;
}

const NO_LEDGER = 'The config has no ledger (`transition` with `action_ledger` or `task_ledger`)';

function refused(error: unknown, ctx: CommandContext): number {
  if (!(error instanceof GuardError)) throw error;
  ctx.err.line(`${ctx.err.fail('Refused')}: ${error.message}`);
  return ExitCode.failed;
}

/** `list` and `show` read the stores directly: no signing key is needed to look. */
async function read(sub: 'list' | 'show', parsed: ParsedOptions, file: string, ctx: CommandContext): Promise<number> {
  const stores = await openLedgerStores(file, ctx);
  if (stores === undefined) return ExitCode.failed;
  try {
    if (stores.length === 0) {
      ctx.err.line(NO_LEDGER);
      return ExitCode.failed;
    }
    return sub === 'list' ? await list(parsed, stores, ctx) : await show(parsed, stores, ctx);
  } catch (error) {
    return refused(error, ctx);
  } finally {
    await Promise.allSettled(stores.map((store) => store.close()));
  }
}

/** `release` and `mark-dead` go through the loaded ledgers, so each action gets its receipt. */
async function act(sub: string, parsed: ParsedOptions, file: string, ctx: CommandContext): Promise<number> {
  const config = await loadCommandConfig(file, ctx);
  if (config === undefined) return ExitCode.failed;
  try {
    const ledgers = ledgersOf(config);
    if (ledgers.length === 0) {
      ctx.err.line(NO_LEDGER);
      return ExitCode.failed;
    }
    if (sub === 'release') return await runRelease(oneKey('release', parsed), parsed, ledgers, ctx);
    return await runMarkDead(parsed, ledgers, ctx);
  } catch (error) {
    return refused(error, ctx);
  } finally {
    await config.close();
  }
}

/** `hyphae transitions`. */
export const transitionsCommand: Command = {
  name: 'transitions',
  summary: 'list, show, release and mark-dead ledger transitions',
  help: HELP,
  async run(args, ctx) {
    const [sub, ...rest] = args;
    const spec = sub === undefined ? undefined : SPECS[sub];
    if (sub === undefined || spec === undefined) {
      throw new UsageError(
        sub === undefined ? 'Missing subcommand' : `Unknown subcommand \`${sub}\` for \`hyphae transitions\``,
      );
    }
    const parsed = parseOptions(`transitions ${sub}`, rest, spec);
    // Arguments are checked before the store is opened: a usage error costs no connection.
    if (sub === 'release' || sub === 'mark-dead') {
      for (const option of ['by', 'reason']) {
        if (stringOption(parsed, option) === undefined)
          throw new UsageError(`\`hyphae transitions ${sub}\` needs \`--${option}\``);
      }
      if (sub === 'release') releaseInputOf(parsed);
      else markDeadInputOf(parsed);
    }
    const file = stringOption(parsed, 'config') ?? DEFAULT_CONFIG_FILE;
    return sub === 'list' || sub === 'show' ? read(sub, parsed, file, ctx) : act(sub, parsed, file, ctx);
  },
};
