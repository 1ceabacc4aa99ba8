/**
 * `tsx bench/tenants.ts [--tenants N] [--concurrency C] [--rows-per-day R] [--reports K]`
 * (defaults 1,000, 16, 4, 2): many tenants' nights through the real workflow path.
 *
 * One local service hosting N tenants (zones far apart, R calls a weekday each), a tenant
 * registry and a secret per tenant (each signed in through the OAuth flow as its own user),
 * K reports per tenant, and the synthesized state machine of the multi-tenant stack run by
 * aws-local-stepfunctions with the workflow's handlers in this process (the same code the
 * bundles carry; one process, not one per function, so that 1,000 nights fit this machine),
 * C executions at once, every tenant's nightly input (`{"tenant","scheduledTime"}`, what its
 * Scheduler schedule sends). Every tenant commits into the same two Iceberg tables (a file
 * catalog on a local directory: its compare-and-swap is an exclusive create, as S3's
 * If-None-Match).
 *
 * Counted, per tenant-night and in total: executions and their outcome, state transitions
 * (what Step Functions bills: every state entered, every retry), history events, Lambda
 * invocations by function, their time here and the most in flight at once, Iceberg commit
 * attempts and conflicts (exclusive creates of a table's next metadata file, and those that
 * found it taken), store requests by kind, secret reads and writes. Then the same figures
 * scaled to 1,000 and 10,000 tenants against AWS's quotas and list prices
 * (bench/tenants-limits.ts): what breaks first, and the cost per tenant-night. Then one
 * intraday refresh of every tenant (`{"tenant","intraday":true,"scheduledTime"}`, what its
 * `<id>.intraday` schedule sends), counted the same way: the cost of a refresh, and of a
 * tenant-day of them at 15 and 60 minutes.
 *
 * Reports complete before the first poll (the service's latency is set to 0): in AWS the
 * first poll comes 5 s after the request, and a small tenant's report is done by then.
 * Progress on stderr; stdout gets the tables, then one JSON line of every figure.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { synthesizeWorkflow } from '../lib/local/definition';
import type { EngineEvent } from '../lib/local/history';
import { inProcessTasks, type LocalTasks } from '../lib/local/local-tasks';
import {
  localTenancyEnvironment,
  localTenancyPaths,
  nightlyInput,
  registerLocalTenants,
} from '../lib/local/local-tenants';
import { runLocalWorkflow } from '../lib/local/run-workflow';
import { startSimulator } from '../lib/simulator/index';
import { LocalFileSecretStore, type ObjectStore, type SecretStore } from '../lib/stores/index';
import {
  createWorkflowRuntime,
  type MetricsSink,
  type RuntimeStores,
  tenantRegistryFromUri,
} from '../lib/workflow/index';
import { printTenantLimits, type TenantNightFigures } from './tenants-limits';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

function log(message: string): void {
  process.stderr.write(`[tenants] ${message}\n`);
}

/** Store requests by operation, and the table commits among them. */
class RequestCounts {
  readonly byOperation = new Map<string, number>();
  commitAttempts = 0;
  commitConflicts = 0;
  secretReads = 0;
  secretWrites = 0;

  add(operation: string, n = 1): void {
    this.byOperation.set(operation, (this.byOperation.get(operation) ?? 0) + n);
  }

  total(): number {
    return [...this.byOperation.values()].reduce((a, b) => a + b, 0);
  }

  /** Counting starts again (the next round of executions). */
  reset(): void {
    this.byOperation.clear();
    this.commitAttempts = 0;
    this.commitConflicts = 0;
    this.secretReads = 0;
    this.secretWrites = 0;
  }
}

/** A table's next metadata file: the file catalog's compare-and-swap creates it exclusively. */
const METADATA_VERSION = /\/metadata\/v\d+\.metadata\.json$/;

function countedObjects(store: ObjectStore, counts: RequestCounts): ObjectStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function' || name === 'constructor') return value;
      const op = String(name);
      return (...args: unknown[]) => {
        if (op === 'deleteMany') counts.add(op, (args[0] as readonly string[]).length);
        else if (op !== 'list') counts.add(op);
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (op === 'list') {
          // One LIST request per 1,000 keys, as S3 pages them.
          const listing = result as AsyncIterable<unknown>;
          return (async function* () {
            let n = 0;
            counts.add('list');
            for await (const item of listing) {
              if (++n % 1000 === 0) counts.add('list');
              yield item;
            }
          })();
        }
        if (op === 'putIfAbsent' && METADATA_VERSION.test(String(args[0]))) {
          counts.commitAttempts++;
          return (result as Promise<unknown>).then((info) => {
            if (info === undefined) counts.commitConflicts++;
            return info;
          });
        }
        return result;
      };
    },
  });
}

function countedSecrets(store: SecretStore, counts: RequestCounts): SecretStore {
  return {
    get: (name) => {
      counts.secretReads++;
      return store.get(name);
    },
    put: (name, value) => {
      counts.secretWrites++;
      return store.put(name, value);
    },
  };
}

/** Lambda invocations by Task state: how many, their time here, the most in flight at once. */
class InvocationCounts {
  readonly byState = new Map<string, { count: number; ms: number }>();
  inFlight = 0;
  maxInFlight = 0;

  wrap(tasks: LocalTasks): LocalTasks {
    return {
      invoke: async (state, event, signal) => {
        const entry = this.byState.get(state) ?? { count: 0, ms: 0 };
        this.byState.set(state, entry);
        entry.count++;
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        const started = performance.now();
        try {
          return await tasks.invoke(state, event, signal);
        } finally {
          entry.ms += performance.now() - started;
          this.inFlight--;
        }
      },
      close: () => tasks.close(),
    };
  }

  /** Counting starts again (the next round of executions). */
  reset(): void {
    this.byState.clear();
    this.maxInFlight = this.inFlight;
  }

  total(): { count: number; ms: number } {
    let count = 0;
    let ms = 0;
    for (const e of this.byState.values()) {
      count += e.count;
      ms += e.ms;
    }
    return { count, ms };
  }
}

/** State transitions as Step Functions bills them: each state entered, each retry. */
function transitionsOf(events: readonly EngineEvent[]): number {
  return events.filter((e) => e.type === 'StateEntered' || e.type === 'StateRetried').length;
}

async function main(): Promise<void> {
  const tenantCount = arg('tenants', 1000);
  const concurrency = arg('concurrency', 16);
  const rowsPerDay = arg('rows-per-day', 4);
  const reportsPerTenant = arg('reports', 2);
  const workDir = await mkdtemp(join(tmpdir(), 'bench-tenants-'));
  const sim = await startSimulator({
    tenants: tenantCount,
    rowsPerDay,
    reportLatencyMs: 0,
    autoApprove: true,
  });
  try {
    const paths = localTenancyPaths(workDir);
    const leasesDir = join(workDir, 'leases');
    const started = performance.now();
    log(`signing ${tenantCount} tenants in (one OAuth flow each) and registering them`);
    const tenants = await registerLocalTenants(sim, { paths, leasesDir });
    const env = localTenancyEnvironment(paths);
    // K reports a tenant: a small customer's nightly set.
    const registry = tenantRegistryFromUri('TENANT_REGISTRY_URI', env.TENANT_REGISTRY_URI as string);
    for (const t of tenants) {
      await registry.put({ ...t.entry, reports: t.entry.reports.slice(0, reportsPerTenant) });
    }
    // The access token a tenant's previous night left has expired by this night (it lives
    // 90 minutes): each night refreshes once, as in AWS, and writes the new tokens back.
    for (const t of tenants) {
      const secrets = new LocalFileSecretStore(t.secretFile);
      const value = await secrets.get<Record<string, unknown>>('service');
      await secrets.put('service', { ...value, accessTokenExpiresAt: 0 });
    }
    const setupSeconds = (performance.now() - started) / 1000;
    log(`registered in ${setupSeconds.toFixed(1)} s`);

    const counts = new RequestCounts();
    const runtime = createWorkflowRuntime(
      {
        ...env,
        OBJECT_STORE_URI: pathToFileURL(join(workDir, 'data-lake')).href,
        LEASE_STORE_URI: pathToFileURL(leasesDir).href,
        TABLE_CATALOG: 'file',
      },
      {
        logger: { info() {}, warn() {}, error() {} },
        observeStores: (stores: RuntimeStores): RuntimeStores => ({
          objects: countedObjects(stores.objects, counts),
          leases: stores.leases,
          secrets: countedSecrets(stores.secrets, counts),
        }),
      },
    );
    const metrics = (): MetricsSink => ({ add() {}, flush() {} });
    const invocations = new InvocationCounts();
    const tasks = invocations.wrap(inProcessTasks(runtime, metrics));
    const workflow = synthesizeWorkflow({ tenancy: 'multi' });
    const memoryMb = Object.fromEntries(
      Object.entries(workflow.taskFunctions).map(([state, id]) => [
        state,
        workflow.functions[id]?.memorySizeMb ?? 0,
      ]),
    );

    /** One execution per tenant, C at once, from `inputOf`; every figure counted from zero. */
    const round = async (
      label: string,
      inputOf: (t: (typeof tenants)[number]) => unknown,
    ): Promise<{ figures: TenantNightFigures; failed: string[] }> => {
      counts.reset();
      invocations.reset();
      let transitions = 0;
      let historyEvents = 0;
      let succeeded = 0;
      const failed: string[] = [];
      let next = 0;
      const began = performance.now();
      const worker = async () => {
        while (next < tenants.length) {
          const tenant = tenants[next++];
          if (tenant === undefined) break;
          const result = await runLocalWorkflow(inputOf(tenant), {
            tasks,
            definition: workflow.definition,
            name: `${tenant.id}-${label}`,
          });
          for (const e of result.executions) {
            transitions += transitionsOf(e.events);
            historyEvents += e.historyEvents;
          }
          if (result.status === 'SUCCEEDED') succeeded++;
          else failed.push(`${tenant.id}: ${result.error}`);
          const done = succeeded + failed.length;
          if (done % 100 === 0)
            log(`${done}/${tenants.length} ${label === 'night' ? 'nights' : 'refreshes'}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      const wallSeconds = (performance.now() - began) / 1000;
      const inv = invocations.total();
      const figures: TenantNightFigures = {
        tenants: tenantCount,
        concurrency,
        reportsPerTenant,
        rowsPerDay,
        wallSeconds,
        succeeded,
        failed: failed.length,
        transitions,
        historyEvents,
        invocations: inv.count,
        invocationSeconds: inv.ms / 1000,
        gbSeconds: [...invocations.byState].reduce(
          (s, [state, e]) => s + ((memoryMb[state] ?? 0) / 1024) * (e.ms / 1000),
          0,
        ),
        maxInFlight: invocations.maxInFlight,
        byFunction: Object.fromEntries(
          [...invocations.byState].map(([state, e]) => [state, { count: e.count, seconds: e.ms / 1000 }]),
        ),
        commitAttempts: counts.commitAttempts,
        commitConflicts: counts.commitConflicts,
        requests: Object.fromEntries(counts.byOperation),
        secretReads: counts.secretReads,
        secretWrites: counts.secretWrites,
      };
      return { figures, failed };
    };

    const now = new Date();
    const night = await round('night', (t) => nightlyInput(t.entry, now));
    // Then one intraday refresh of every tenant (today so far, what its `<id>.intraday`
    // schedule sends): the cost of one refresh, which an interval multiplies.
    const refresh = await round('refresh', (t) => ({
      tenant: t.id,
      intraday: true,
      scheduledTime: new Date().toISOString(),
    }));
    await tasks.close();
    const figures = night.figures;
    const failed = [...night.failed, ...refresh.failed];
    for (const f of failed.slice(0, 5)) log(`failed: ${f}`);
    printTenantLimits(figures, refresh.figures);
  } finally {
    await sim.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
