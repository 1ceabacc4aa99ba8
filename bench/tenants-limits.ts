/**
 * What the figures of bench/tenants.ts mean at scale: each tenant-night's demand on AWS,
 * scaled to 1,000 and 10,000 tenants, against AWS's published quotas and list prices.
 *
 * The worst night: every tenant in one zone at one hour, their schedules' flexible time
 * window (30 minutes, what `tenants add` sets) spreading the starts evenly. A demand is
 * the night's total over that window, per second. Quotas are AWS's defaults (the smaller
 * regions' where AWS gives two figures); prices are us-east-1 list prices. Each number
 * names the page it comes from (README "Many tenants: what limits a deployment").
 */

import { GROUP_COMMIT_DEFAULTS } from '../lib/export/table/commit/group-commit';

/** What one run of bench/tenants.ts measured. */
export interface TenantNightFigures {
  tenants: number;
  concurrency: number;
  reportsPerTenant: number;
  rowsPerDay: number;
  wallSeconds: number;
  succeeded: number;
  failed: number;
  transitions: number;
  historyEvents: number;
  invocations: number;
  invocationSeconds: number;
  /** Invocation seconds x each function's memory in the template, in GB. */
  gbSeconds: number;
  maxInFlight: number;
  byFunction: Record<string, { count: number; seconds: number }>;
  commitAttempts: number;
  commitConflicts: number;
  requests: Record<string, number>;
  secretReads: number;
  secretWrites: number;
}

/** The window a night's starts spread over: the schedules' flexible time window. */
export const NIGHT_WINDOW_SECONDS = 30 * 60;

/**
 * The part of an Iceberg commit in AWS during which another writer's commit makes it retry:
 * from GetTable to UpdateTable, five requests in sequence (GetTable, GET the metadata, PUT
 * the manifest list, PUT the metadata, UpdateTable) at an assumed 60 ms each. Not measured
 * here (no Glue on this machine): an estimate, stated as one.
 */
export const AWS_COMMIT_WINDOW_SECONDS = 0.3;

/** AWS default quotas (per account and region). */
export const AWS_QUOTAS = {
  /**
   * Step Functions StartExecution, Standard: refill per second outside us-east-1, us-west-2
   * and eu-west-1 (bucket 800; in those three 1,300 and 300/s). Step Functions developer
   * guide, "Quotas related to API action throttling".
   */
  startExecutionPerSecond: 150,
  /** Step Functions StateTransition, Standard: refill per second outside the three (bucket 800; in them 5,000 and 1,500/s). */
  stateTransitionsPerSecond: 500,
  /** Lambda concurrent executions, default account quota (new accounts start lower; AWS raises it with use). */
  lambdaConcurrency: 1000,
  /** Secrets Manager GetSecretValue per second. */
  getSecretValuePerSecond: 10_000,
  /** Secrets Manager PutSecretValue/UpdateSecret (combined) per second, not adjustable (Secrets Manager quotas page). */
  putSecretValuePerSecond: 50,
  /** EventBridge Scheduler target invocations per second (adjustable). */
  schedulerInvocationsPerSecond: 1000,
  /** EventBridge Scheduler schedules per account and region (adjustable). */
  schedules: 1_000_000,
} as const;

/** us-east-1 list prices, USD. */
export const AWS_PRICES = {
  perStateTransition: 0.025 / 1000,
  perLambdaRequest: 0.2 / 1_000_000,
  /** arm64 (the functions' architecture is x86_64 today: x86 is 0.0000166667). */
  perLambdaGbSecondX86: 0.0000166667,
  perSecretMonth: 0.4,
  perSecretsManagerCall: 0.05 / 10_000,
  perS3Put: 0.005 / 1000,
  perS3Get: 0.0004 / 1000,
  perGlueRequest: 1 / 1_000_000,
  perSchedulerInvocation: 1 / 1_000_000,
  perKmsRequest: 0.03 / 10_000,
} as const;

interface Demand {
  what: string;
  /** Per tenant-night. */
  perNight: number;
  /** The quota it meets, per second (or in flight). */
  limit: number;
  unit: string;
  /** Demand at n tenants, in the limit's unit. */
  at(n: number): number;
}

function demands(f: TenantNightFigures): Demand[] {
  const per = (x: number) => x / f.tenants;
  const rate = (perNight: number) => (n: number) => (perNight * n) / NIGHT_WINDOW_SECONDS;
  // Each published window is one commit request; grouped commits carry up to maxBatch of
  // them in one snapshot, so one table takes maxBatch requests per commit window.
  const requestsPerNight = per(f.byFunction.ExportResults?.count ?? 0);
  const requestsPerSecond = GROUP_COMMIT_DEFAULTS.maxBatch / AWS_COMMIT_WINDOW_SECONDS;
  const secondsPerNight = per(f.invocationSeconds);
  return [
    {
      what: 'StartExecution',
      perNight: 1,
      limit: AWS_QUOTAS.startExecutionPerSecond,
      unit: '/s',
      at: rate(1),
    },
    {
      what: 'state transitions',
      perNight: per(f.transitions),
      limit: AWS_QUOTAS.stateTransitionsPerSecond,
      unit: '/s',
      at: rate(per(f.transitions)),
    },
    {
      what: 'Lambda concurrency',
      perNight: secondsPerNight,
      limit: AWS_QUOTAS.lambdaConcurrency,
      unit: ' in flight',
      // Little's law: invocation seconds arriving per second = executions in flight.
      at: rate(secondsPerNight),
    },
    {
      what: 'GetSecretValue',
      perNight: per(f.secretReads),
      limit: AWS_QUOTAS.getSecretValuePerSecond,
      unit: '/s',
      at: rate(per(f.secretReads)),
    },
    {
      what: 'PutSecretValue',
      perNight: per(f.secretWrites),
      limit: AWS_QUOTAS.putSecretValuePerSecond,
      unit: '/s',
      at: rate(per(f.secretWrites)),
    },
    {
      what: 'commit requests on one table (grouped)',
      perNight: requestsPerNight,
      limit: requestsPerSecond,
      unit: '/s',
      at: rate(requestsPerNight),
    },
  ];
}

/** Tenants (sharing one hour) at which a demand reaches its limit. */
function tenantsAtLimit(d: Demand): number {
  return Math.floor(d.limit / d.at(1));
}

/** What one execution per tenant costs, by item; `secretMonth`: with the secret's own monthly fee as a day's share. */
function costPerNight(f: TenantNightFigures, secretMonth = true): Record<string, number> {
  const per = (x: number) => x / f.tenants;
  const puts =
    (f.requests.put ?? 0) +
    (f.requests.putIfAbsent ?? 0) +
    (f.requests.putFile ?? 0) +
    (f.requests.copy ?? 0) +
    (f.requests.list ?? 0);
  const gets = (f.requests.get ?? 0) + (f.requests.head ?? 0);
  // Glue in AWS: a GetTable and an UpdateTable per commit attempt, a GetTable per table load.
  const glue = f.commitAttempts * 2;
  return {
    'Step Functions': per(f.transitions) * AWS_PRICES.perStateTransition,
    'Lambda requests': per(f.invocations) * AWS_PRICES.perLambdaRequest,
    'Lambda GB-s': per(f.gbSeconds) * AWS_PRICES.perLambdaGbSecondX86,
    ...(secretMonth ? { 'Secrets Manager secret': AWS_PRICES.perSecretMonth / 30 } : {}),
    'Secrets Manager calls': per(f.secretReads + f.secretWrites) * AWS_PRICES.perSecretsManagerCall,
    'KMS (via Secrets Manager)': per(f.secretReads + f.secretWrites) * AWS_PRICES.perKmsRequest,
    'S3 requests': per(puts) * AWS_PRICES.perS3Put + per(gets) * AWS_PRICES.perS3Get,
    'Glue requests': per(glue) * AWS_PRICES.perGlueRequest,
    Scheduler: AWS_PRICES.perSchedulerInvocation,
  };
}

const fmt = (x: number, digits = 1) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(digits));

/** The intervals the README prices: every 15 minutes around the clock and 08-20, hourly 08-20. */
export const INTRADAY_CASES = [
  { everyMinutes: 15, hours: 24 },
  { everyMinutes: 15, hours: 12 },
  { everyMinutes: 60, hours: 24 },
  { everyMinutes: 60, hours: 12 },
] as const;

/**
 * The intraday refreshes priced from one measured refresh per tenant: per tenant-day at each
 * interval and window (refreshes a day = hours x 60 / interval), beside the night's cost, and
 * the demand of 1,000 and 10,000 tenants refreshing at 15 minutes against the quotas (starts
 * spread over the interval: each tenant's schedule starts at its own minute of it).
 */
function intradayLines(
  night: TenantNightFigures,
  refresh: TenantNightFigures,
): { lines: string[]; json: unknown } {
  const per = (x: number) => x / refresh.tenants;
  const perRefresh = Object.values(costPerNight(refresh, false)).reduce((a, b) => a + b, 0);
  const nightCost = Object.values(costPerNight(night)).reduce((a, b) => a + b, 0);
  const lines = [
    `\nIntraday: one refresh of each of ${refresh.tenants} tenants (today so far), in ${fmt(refresh.wallSeconds)} s here: ${refresh.succeeded} succeeded, ${refresh.failed} failed`,
    '\n| per refresh | per tenant |',
    '|---|---:|',
    `| state transitions (billed) | ${fmt(per(refresh.transitions), 2)} |`,
    `| Lambda invocations | ${fmt(per(refresh.invocations), 2)} |`,
    `| Lambda GB-s (here) | ${fmt(per(refresh.gbSeconds), 3)} |`,
    `| Iceberg commit attempts | ${fmt(per(refresh.commitAttempts), 2)} |`,
    `| secret reads / writes | ${fmt(per(refresh.secretReads), 2)} / ${fmt(per(refresh.secretWrites), 2)} |`,
    `| cost, list prices | $${perRefresh.toFixed(6)} |`,
    '\n| intraday (on top of the night) | refreshes a day | per tenant-day | per tenant-month | 1,000 tenants a month | x the night |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  const cases = INTRADAY_CASES.map((c) => {
    const perDay = (c.hours * 60) / c.everyMinutes;
    const day = perDay * perRefresh;
    lines.push(
      `| every ${c.everyMinutes} min, ${c.hours === 24 ? 'all day' : `${c.hours} h (08-20)`} | ${perDay} | $${day.toFixed(4)} | $${(day * 30).toFixed(2)} | $${(day * 30 * 1000).toFixed(0)} | ${fmt(day / nightCost, 1)} |`,
    );
    return { ...c, refreshesPerDay: perDay, usdPerTenantDay: day, usdPerTenantMonth: day * 30 };
  });
  // Tenants at 15 minutes: a refresh of each every 900 s, each at its own minute of the
  // quarter (the schedule's intradayMinute), so starts spread over the whole interval.
  const window = 15 * 60;
  const rate = (x: number, n: number) => (per(x) * n) / window;
  lines.push(
    '\n| at 15 minutes, starts spread over the interval | per refresh | limit | at 1,000 tenants | at 10,000 tenants |',
    '|---|---:|---:|---:|---:|',
    `| StartExecution | 1 | ${AWS_QUOTAS.startExecutionPerSecond}/s | ${fmt(1000 / window, 2)} | ${fmt(10_000 / window, 2)} |`,
    `| state transitions | ${fmt(per(refresh.transitions), 2)} | ${AWS_QUOTAS.stateTransitionsPerSecond}/s | ${fmt(rate(refresh.transitions, 1000), 1)} | ${fmt(rate(refresh.transitions, 10_000), 1)} |`,
    `| Lambda concurrency | ${fmt(per(refresh.invocationSeconds), 2)} s | ${AWS_QUOTAS.lambdaConcurrency} | ${fmt(rate(refresh.invocationSeconds, 1000), 1)} | ${fmt(rate(refresh.invocationSeconds, 10_000), 1)} |`,
  );
  return {
    lines,
    json: {
      perRefresh: {
        transitions: per(refresh.transitions),
        invocations: per(refresh.invocations),
        gbSeconds: per(refresh.gbSeconds),
        commitAttempts: per(refresh.commitAttempts),
        costUsd: perRefresh,
      },
      nightCostUsd: nightCost,
      cases,
    },
  };
}

export function printTenantLimits(f: TenantNightFigures, refresh?: TenantNightFigures): void {
  const per = (x: number) => x / f.tenants;
  const out: string[] = [];
  out.push(
    `\n${f.tenants} tenant-nights (${f.reportsPerTenant} reports each, ${f.rowsPerDay} calls a weekday), ${f.concurrency} executions at once, in ${fmt(f.wallSeconds)} s here: ${f.succeeded} succeeded, ${f.failed} failed`,
  );
  out.push('\n| figure | total | per tenant-night |', '|---|---:|---:|');
  const row = (what: string, total: number) =>
    out.push(`| ${what} | ${fmt(total, 0)} | ${fmt(per(total), 2)} |`);
  row('executions', f.succeeded + f.failed);
  row('state transitions (billed)', f.transitions);
  row('history events', f.historyEvents);
  row('Lambda invocations', f.invocations);
  for (const [state, e] of Object.entries(f.byFunction)) row(`  ${state}`, e.count);
  row('Lambda seconds (here)', f.invocationSeconds);
  out.push(`| Lambda invocations in flight at most (here) | ${f.maxInFlight} | |`);
  row('Iceberg commit attempts', f.commitAttempts);
  row('  that met another commit (retried)', f.commitConflicts);
  row('secret reads', f.secretReads);
  row('secret writes', f.secretWrites);
  for (const [op, n] of Object.entries(f.requests).sort()) row(`store ${op}`, n);

  out.push(
    `\nAt scale, the worst night: every tenant at one hour, starts spread over the schedules' ${NIGHT_WINDOW_SECONDS / 60}-minute flexible window`,
    '\n| demand | per tenant-night | limit | at 1,000 tenants | at 10,000 tenants | tenants at the limit |',
    '|---|---:|---:|---:|---:|---:|',
  );
  const all = demands(f);
  for (const d of all) {
    out.push(
      `| ${d.what} | ${fmt(d.perNight, 2)} | ${fmt(d.limit)}${d.unit} | ${fmt(d.at(1000), 2)} | ${fmt(d.at(10_000), 2)} | ${tenantsAtLimit(d).toLocaleString('en-US')} |`,
    );
  }
  const first = [...all].sort((a, b) => tenantsAtLimit(a) - tenantsAtLimit(b))[0] as Demand;
  out.push(
    `\nFirst to break: ${first.what}, at ${tenantsAtLimit(first).toLocaleString('en-US')} tenants sharing one hour (${fmt(first.at(10_000) / first.limit, 1)}x its limit at 10,000).`,
  );

  const cost = costPerNight(f);
  const total = Object.values(cost).reduce((a, b) => a + b, 0);
  out.push(
    '\n| cost, list prices (us-east-1) | per tenant-night | per tenant-month | 1,000 tenants a month |',
    '|---|---:|---:|---:|',
  );
  for (const [what, usd] of Object.entries(cost)) {
    out.push(
      `| ${what} | $${usd.toFixed(6)} | $${(usd * 30).toFixed(4)} | $${(usd * 30 * 1000).toFixed(2)} |`,
    );
  }
  out.push(
    `| total | $${total.toFixed(6)} | $${(total * 30).toFixed(4)} | $${(total * 30 * 1000).toFixed(2)} |`,
  );
  const intraday = refresh === undefined ? undefined : intradayLines(f, refresh);
  if (intraday !== undefined) out.push(...intraday.lines);
  process.stdout.write(`${out.join('\n')}\n`);
  process.stdout.write(
    `${JSON.stringify({
      ...f,
      perTenantNight: {
        transitions: per(f.transitions),
        invocations: per(f.invocations),
        commitAttempts: per(f.commitAttempts),
        commitConflicts: per(f.commitConflicts),
        secretReads: per(f.secretReads),
        secretWrites: per(f.secretWrites),
        costUsd: total,
      },
      atScale: Object.fromEntries(
        all.map((d) => [
          d.what,
          { at1000: d.at(1000), at10000: d.at(10_000), limit: d.limit, tenantsAtLimit: tenantsAtLimit(d) },
        ]),
      ),
      firstToBreak: first.what,
      ...(intraday === undefined ? {} : { intraday: intraday.json }),
    })}\n`,
  );
}
