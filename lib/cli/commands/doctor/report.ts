import type { IOStreams } from '../../shared/io-streams';
import { colors } from '../../shared/terminal';
import { DOCTOR_EXIT_CODES } from './spec';

/**
 * What `doctor` finds: checks, each with a stable id, the group it belongs to, a status, and
 * one line naming what is wrong and the fix; the report of them (its JSON is documented in
 * docs/deploy.md, "Before deploying: report-export doctor", and stays stable: a field is
 * added, never renamed or removed, without a new `version`).
 */

/** Every check doctor makes, and its group: the ids of the JSON, stable. */
export const CHECK_GROUPS = {
  'config.settings': 'config',
  'config.stack': 'config',
  'registry.entries': 'registry',
  'registry.entry': 'registry',
  'login.default': 'logins',
  'login.tenant': 'logins',
  'login.stack': 'logins',
  'lake.tables': 'lake',
  'lake.table': 'lake',
  'aws.credentials': 'aws',
  'aws.stack': 'aws',
  'aws.lake-formation': 'aws',
  'aws.lambda-concurrency': 'aws',
  'aws.lambda-memory': 'aws',
  'aws.schedule-group': 'aws',
} as const;

export type CheckId = keyof typeof CHECK_GROUPS;
export type CheckGroup = (typeof CHECK_GROUPS)[CheckId];

/** `skip`: not applicable here, or not asked (an AWS check without --check); never affects the exit status. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface Check {
  id: CheckId;
  group: CheckGroup;
  /** What the check is about when it is made once per thing: a tenant id, a table, a file; else null. */
  subject: string | null;
  status: CheckStatus;
  /** What was found, one line. */
  message: string;
  /** How to repair it, one line; null when nothing is to be done. */
  fix: string | null;
}

/** A check: `subject` and `fix` default to null. */
export function check(
  id: CheckId,
  status: CheckStatus,
  message: string,
  more: { subject?: string | null; fix?: string | null } = {},
): Check {
  return {
    id,
    group: CHECK_GROUPS[id],
    subject: more.subject ?? null,
    status,
    message,
    fix: more.fix ?? null,
  };
}

/** What is printed for a value found in a secret or the environment. */
export const REDACTED = '[redacted]';

/**
 * Shorter values are not redacted: a two-letter "token" of a test fixture would mangle
 * every word that holds it, and no real client secret or token is that short.
 */
const MIN_REDACTED_LENGTH = 8;

/**
 * The secret values seen while checking (a login's client secret and tokens, the client
 * secret and AWS keys of the environment), taken out of every line before it is printed: a
 * check's own words never hold one, but an error text from the service or AWS might.
 */
export class Redactor {
  readonly #values = new Set<string>();

  add(...values: readonly (string | undefined)[]): void {
    for (const v of values) if (v !== undefined && v.length >= MIN_REDACTED_LENGTH) this.#values.add(v);
  }

  redact(text: string): string {
    let out = text;
    // Longest first: a value that contains another is replaced whole.
    for (const v of [...this.#values].sort((a, b) => b.length - a.length)) out = out.split(v).join(REDACTED);
    return out;
  }
}

/** Where doctor looked, as the report names it. */
export type DoctorTarget =
  | { kind: 'local'; dir: string; lake: string }
  | { kind: 'stack'; stack: string; tenancy: 'single' | 'multi' | null };

/** The JSON document of `doctor --json` (version 1). */
export interface DoctorReport {
  version: 1;
  status: 'ok' | 'warn' | 'fail';
  exitCode: number;
  /** `offline`: no network was used; `check`: AWS was asked and the logins refreshed. */
  mode: 'offline' | 'check';
  target: DoctorTarget;
  counts: Record<CheckStatus, number>;
  checks: Check[];
}

/** The report of `checks`, every line redacted: the status is the worst check's. */
export function doctorReport(
  checks: readonly Check[],
  context: { mode: DoctorReport['mode']; target: DoctorTarget; redactor: Redactor },
): DoctorReport {
  const shown = checks.map((c) => ({
    ...c,
    message: context.redactor.redact(c.message),
    fix: c.fix === null ? null : context.redactor.redact(c.fix),
  }));
  const counts: Record<CheckStatus, number> = { ok: 0, warn: 0, fail: 0, skip: 0 };
  for (const c of shown) counts[c.status]++;
  const status = counts.fail > 0 ? 'fail' : counts.warn > 0 ? 'warn' : 'ok';
  const exitCode =
    status === 'fail'
      ? DOCTOR_EXIT_CODES.failed
      : status === 'warn'
        ? DOCTOR_EXIT_CODES.warnings
        : DOCTOR_EXIT_CODES.healthy;
  return { version: 1, status, exitCode, mode: context.mode, target: context.target, counts, checks: shown };
}

const GROUP_TITLES: Record<CheckGroup, string> = {
  config: 'Configuration',
  registry: 'Tenant registry',
  logins: 'Logins',
  lake: 'Local lake',
  aws: 'AWS',
};

/** The report for people: a header, the checks by group (one line each), the counts and the exit status. */
export function renderDoctorReport(report: DoctorReport, io: Pick<IOStreams, 'stdout' | 'env'>): string {
  const c = colors(io.stdout, io.env);
  const label: Record<CheckStatus, string> = {
    ok: c.green('ok  '),
    warn: c.yellow('warn'),
    fail: c.red('FAIL'),
    skip: c.dim('skip'),
  };
  const where =
    report.target.kind === 'local'
      ? `local deployment ${report.target.dir}, lake ${report.target.lake}`
      : `stack ${report.target.stack}`;
  const how = report.mode === 'offline' ? 'offline; --check also asks AWS' : 'AWS asked, logins refreshed';
  const lines = [`report-export doctor: ${where} (${how})`];
  for (const group of Object.keys(GROUP_TITLES) as CheckGroup[]) {
    const ofGroup = report.checks.filter((x) => x.group === group);
    if (ofGroup.length === 0) continue;
    lines.push('', c.bold(GROUP_TITLES[group]));
    for (const x of ofGroup) {
      const what = x.subject === null ? x.id : `${x.id} ${x.subject}`;
      lines.push(`  ${label[x.status]}  ${what}: ${x.message}${x.fix === null ? '' : `; fix: ${x.fix}`}`);
    }
  }
  const n = report.counts;
  const plural = (k: number, word: string) => `${k} ${word}${k === 1 ? '' : 's'}`;
  lines.push(
    '',
    `${plural(n.fail, 'failure')}, ${plural(n.warn, 'warning')}, ${n.ok} ok, ${n.skip} skipped: exit ${report.exitCode}`,
  );
  return `${lines.join('\n')}\n`;
}
