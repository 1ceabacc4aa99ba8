import { AsyncLocalStorage } from 'node:async_hooks';
import { STATE_NAMES } from '../../../lib/infra/state-names';
import type { LocalTasks } from '../../../lib/local/local-tasks';
import type { Lease, LeaseStore } from '../../../lib/stores/lease-store';
import {
  OBJECT_STORE_ERROR_CODES,
  type ObjectStore,
  ObjectStoreError,
} from '../../../lib/stores/object-store';
import type { SecretStore } from '../../../lib/stores/secret-store';
import { SAMPLE, type StoreUse, type WorkflowFunctionName } from '../../../lib/workflow/aws-calls';
import type { RuntimeStores } from '../../../lib/workflow/runtime-types';

/**
 * Records every store operation the workflow's handlers perform, by function, and matches
 * them against the declared StoreUses of lib/workflow/aws-calls.ts.
 */

/** One operation a handler performed: the store port's method and the keys it named. */
export interface RecordedUse {
  /** The function whose Task was running; undefined for a call outside every Task. */
  readonly fn: WorkflowFunctionName | undefined;
  readonly store: StoreUse['store'];
  /** The port's method; `putStream` for a `put` of a stream (another S3 call than a put of bytes). */
  readonly operation: string;
  readonly keys: readonly string[];
}

/** The function each Lambda Task invokes (RecordFailure is Finalize on a caught failure). */
const FUNCTION_OF_STATE: Readonly<Record<string, WorkflowFunctionName>> = {
  [STATE_NAMES.plan]: 'plan',
  // The committer's action before the jobs: the Commit function.
  [STATE_NAMES.prepareTables]: 'commit',
  [STATE_NAMES.requestReport]: 'requestReport',
  [STATE_NAMES.checkStatus]: 'checkStatus',
  [STATE_NAMES.exportResults]: 'exportResults',
  [STATE_NAMES.syncDirectories]: 'syncDirectories',
  [STATE_NAMES.commit]: 'commit',
  [STATE_NAMES.finalize]: 'finalize',
  [STATE_NAMES.recordFailure]: 'finalize',
};

export interface StoreUseRecorder {
  readonly uses: RecordedUse[];
  /** RuntimeOptions.observeStores: the stores, each operation recorded. */
  observeStores(stores: RuntimeStores): RuntimeStores;
  /** The Tasks, each invocation run in its function's context so its operations are attributed to it. */
  attribute(tasks: LocalTasks): LocalTasks;
}

export interface StoreUseRecorderOptions {
  /** The first recorded use this matches fails (STORE_FAILED) instead of reaching the store. */
  failOnce?: (use: RecordedUse) => boolean;
}

export function storeUseRecorder(options: StoreUseRecorderOptions = {}): StoreUseRecorder {
  const running = new AsyncLocalStorage<WorkflowFunctionName>();
  const uses: RecordedUse[] = [];
  let failOnce = options.failOnce;
  const record = (store: StoreUse['store'], operation: string, ...keys: string[]) => {
    const use = { fn: running.getStore(), store, operation, keys };
    uses.push(use);
    if (failOnce?.(use) === true) {
      failOnce = undefined;
      throw new ObjectStoreError(OBJECT_STORE_ERROR_CODES.failed, `Injected failure of ${describeUse(use)}`);
    }
  };
  const isBytes = (body: unknown) => typeof body === 'string' || body instanceof Uint8Array;
  const objects = (s: ObjectStore): ObjectStore => ({
    rootUri: s.rootUri,
    put: (key, body, options) => {
      record('objects', isBytes(body) ? 'put' : 'putStream', key);
      return s.put(key, body, options);
    },
    putIfAbsent: (key, body, options) => {
      record('objects', 'putIfAbsent', key);
      return s.putIfAbsent(key, body, options);
    },
    putFile: (key, file, options) => {
      record('objects', 'putFile', key);
      return s.putFile(key, file, options);
    },
    putFileIfAbsent: (key, file, options) => {
      record('objects', 'putFileIfAbsent', key);
      return s.putFileIfAbsent(key, file, options);
    },
    get: (key) => {
      record('objects', 'get', key);
      return s.get(key);
    },
    head: (key) => {
      record('objects', 'head', key);
      return s.head(key);
    },
    list: (prefix) => {
      record('objects', 'list', prefix);
      return s.list(prefix);
    },
    deleteMany: (keys) => {
      for (const key of keys) record('objects', 'deleteMany', key);
      return s.deleteMany(keys);
    },
    copy: (fromKey, toKey) => {
      record('objects', 'copy', fromKey, toKey);
      return s.copy(fromKey, toKey);
    },
  });
  const leases = (s: LeaseStore): LeaseStore => ({
    acquire: async (key, options) => {
      record('leases', 'acquire', key);
      const lease = await s.acquire(key, options);
      if (lease === undefined) return undefined;
      const recorded: Lease = {
        key: lease.key,
        owner: lease.owner,
        release: () => {
          record('leases', 'release', lease.key);
          return lease.release();
        },
      };
      return recorded;
    },
  });
  const secrets = (s: SecretStore): SecretStore => ({
    get: (name) => {
      record('secret', 'get');
      return s.get(name);
    },
    put: (name, value) => {
      record('secret', 'put');
      return s.put(name, value);
    },
  });
  return {
    uses,
    observeStores: (s) => ({
      objects: objects(s.objects),
      leases: leases(s.leases),
      secrets: secrets(s.secrets),
    }),
    attribute: (tasks) => ({
      invoke: (state, event, signal) => {
        const fn = FUNCTION_OF_STATE[state];
        if (fn === undefined) return Promise.reject(new Error(`No workflow function for Task ${state}`));
        return running.run(fn, () => tasks.invoke(state, event, signal));
      },
      close: () => tasks.close(),
    }),
  };
}

const regexLiteral = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const DATE = '\\d{4}-\\d{2}-\\d{2}';
/** A run id, request id or execution name: one key segment (plan.ts safeRunId, resolve-export-options.ts). */
const RUN = '[A-Za-z0-9._-]+';
const HEX = (n: number) => `[0-9a-f]{${n}}`;
const UUID = [8, 4, 4, 4, 12].map(HEX).join('-');
/** A GUID as the service writes ids, in any case (lib/api/validate.ts): a directory's id. */
const GUID = [8, 4, 4, 4, 12].map((n) => `[0-9A-Fa-f]{${n}}`).join('-');

/**
 * The pieces of a declared key that stand for any value, each with its pattern: the SAMPLE
 * values (the same layout for any date, run, execution, attempt, commit, snapshot, directory
 * or data file content), then
 * the numbers a layout counts (Hive parts, a data file's part, a commit's manifests, a file
 * catalog's versions, a Glue metadata file's number), recognised where the layout puts them.
 * Tried in this order at each position; report ids, prefixes, formats and extensions stay literal.
 */
const WILDCARDS: readonly (readonly [source: string, pattern: string])[] = [
  ...(
    [
      [SAMPLE.startedAt, `${DATE}T[0-9:.]+Z`],
      [SAMPLE.executionName, RUN],
      [SAMPLE.runId, RUN],
      [SAMPLE.startedAt.slice(0, 10), DATE],
      [SAMPLE.dt, DATE],
      [SAMPLE.attempt, HEX(8)],
      [SAMPLE.uuid, UUID],
      [SAMPLE.commitId, HEX(32)],
      [SAMPLE.directoryId, GUID],
      [SAMPLE.contentId, HEX(32)],
      [String(SAMPLE.snapshotId), '\\d+'],
    ] as const
  ).map(([sample, pattern]) => [regexLiteral(sample), pattern] as const),
  ['part-\\d{5}', 'part-\\d{5}'],
  ['\\d{5}(?=\\.parquet$)', '\\d{5}'],
  ['-m\\d+(?=\\.avro$)', '-m\\d+'],
  ['v\\d+(?=\\.metadata\\.json$)', 'v[1-9]\\d*'],
  [`\\d{5}(?=-${regexLiteral(SAMPLE.uuid)}\\.metadata\\.json$)`, '\\d{5}'],
];
const WILDCARD = new RegExp(WILDCARDS.map(([source]) => `(${source})`).join('|'), 'g');

/** What a declared key stands for: its WILDCARDS made patterns, the rest literal. */
export function declaredKeyPattern(key: string): RegExp {
  let source = '';
  let last = 0;
  for (const m of key.matchAll(WILDCARD)) {
    const which = m.findIndex((group, i) => i > 0 && group !== undefined);
    source += `${regexLiteral(key.slice(last, m.index))}${WILDCARDS[which - 1]?.[1]}`;
    last = m.index + m[0].length;
  }
  return new RegExp(`^${source}${regexLiteral(key.slice(last))}$`);
}

/** The keys a declared use names, in the order a RecordedUse lists them. */
function declaredKeys(use: StoreUse): string[] {
  if (use.store === 'secret') return [];
  // Glue's calls: no e2e execution makes them (it runs the file catalog); never recorded.
  if (use.store === 'catalog') return [use.table];
  if (use.operation === 'list') return [use.prefix];
  if (use.operation === 'copy') return [use.fromKey, use.toKey];
  return [use.key];
}

/** Whether a declared use covers a recorded one. */
export type UseMatcher = (recorded: RecordedUse) => boolean;

export function declaredUseMatcher(use: StoreUse): UseMatcher {
  const patterns = declaredKeys(use).map(declaredKeyPattern);
  return (r) =>
    r.store === use.store &&
    r.operation === use.operation &&
    r.keys.length === patterns.length &&
    patterns.every((p, i) => p.test(r.keys[i] as string));
}

/** One line per recorded use, for failure messages. */
export function describeUse(r: RecordedUse): string {
  return `${r.fn ?? '(no task)'}: ${r.store}.${r.operation}(${r.keys.join(' -> ')})`;
}
