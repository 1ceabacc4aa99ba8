import { dateInZone, dayBefore, shiftDate, windowForDates } from '../calendar';
import { SETTLE_GRACE_MINUTES } from '../export';
import type { AdditionalCondition, PresetName } from '../spec';
import { InvalidInputError } from './errors';
import { type ExecutionInput, parseExecutionInput, syncsContacts } from './input';
import { presetDates } from './preset-dates';
import type { ConfiguredReport, WorkflowSettings } from './settings';

/** A job's window: instants with offsets (`to` exclusive) and the local dates it owns. */
interface JobWindow {
  from: string;
  to: string;
  firstDate: string;
  lastDate: string;
}

/** One report over one window of local days: a Map iteration. */
export interface Job {
  jobId: string;
  reportId: string;
  reportName: string;
  window: JobWindow;
  /** The tenant it exports for (multi-tenant deployments only): every task's event carries it. */
  tenant?: string;
  /** Replace partitions the shrink guard would hold (the input's forceReplace). */
  forceReplace?: true;
}

/** The input's filters, passed to every report request (and to a continuation). */
interface JobFilters {
  filterId?: string;
  additionalConditions?: AdditionalCondition[];
}

/** What every job of an execution shares. */
export interface JobOptions {
  /** Always present (maybe empty): the state machine merges it into the continuation's input. */
  filters: JobFilters;
  maxPollsPerJob: number;
  maxRequestsPerJob: number;
}

/** What an execution does with the contact directories. */
export interface PlannedContacts {
  sync: boolean;
  force: boolean;
}

function plannedContacts(input: ExecutionInput): PlannedContacts {
  return { sync: syncsContacts(input), force: input.forceReplace === true };
}

export interface Plan {
  runId: string;
  /** How the execution was started (`contacts`: the directories alone, input `contacts: "only"`). */
  mode: 'nightly' | 'intraday' | 'date' | 'range' | 'preset' | 'contacts';
  /** The execution's tenant; null in a single-tenant deployment (always present: `$.plan.tenant`). */
  tenant: string | null;
  /** The tenant's zone (the deployment's in a single-tenant one). */
  timeZone: string;
  /** Local dates the execution covers (a preset's as resolved at the execution's start). */
  dates: { from: string; to: string };
  jobs: Job[];
  options: JobOptions;
  jobCount: number;
  /**
   * The tenant's contact directories: whether the execution syncs them (SyncDirectories runs,
   * else its branch skips), and whether the shrink guard is released (the input's forceReplace).
   */
  contacts: PlannedContacts;
  /**
   * Input of the next execution when a long backfill does not fit one execution's history,
   * without the filters: the state machine adds `options.filters` (so the state carries
   * them once).
   */
  continuation?: ExecutionInput;
  hasContinuation: boolean;
}

interface PlanContext {
  /** Unique per execution (the execution's name). */
  executionName: string;
  /**
   * When the execution started (`$$.Execution.StartTime`): a preset resolves against it.
   * Default: now (pass it for a plan that does not depend on the clock).
   */
  now?: Date;
}

/**
 * Turns an execution input into jobs (report x window), validating it first. `settings` are
 * the input's tenant's (whether the deployment takes a tenant is the Plan handler's check).
 */
export function planExecution(raw: unknown, settings: WorkflowSettings, context: PlanContext): Plan {
  const input = parseExecutionInput(raw);
  if (input.contacts === 'only') return contactsOnlyPlan(input, settings, context);
  const reports = selectReports(input.reports, settings.reports);
  const filters: JobFilters = {
    ...(input.filterId === undefined ? {} : { filterId: input.filterId }),
    ...(input.additionalConditions === undefined ? {} : { additionalConditions: input.additionalConditions }),
  };
  const options: JobOptions = {
    filters,
    maxPollsPerJob: settings.poll.maxPollsPerJob,
    maxRequestsPerJob: settings.maxRequestsPerJob,
  };
  const runId = safeRunId(context.executionName);
  const force = input.forceReplace === true ? { forceReplace: true as const } : {};
  const tenant = input.tenant === undefined ? {} : { tenant: input.tenant };
  if (reports.length > settings.maxJobsPerExecution) {
    throw new InvalidInputError(
      `reports: ${reports.length} reports exceed the ${settings.maxJobsPerExecution} jobs one execution may run; start one execution per group of at most ${settings.maxJobsPerExecution} reports`,
    );
  }
  const { from, to, mode } = datesOf(input, settings, context.now ?? new Date());
  const windows = dayWindows(from, to, settings.maxWindowDays, settings.timeZone);
  const windowsPerExecution = Math.max(1, Math.floor(settings.maxJobsPerExecution / reports.length));
  const taken = windows.slice(0, windowsPerExecution);
  const jobs: Job[] = [];
  for (const window of taken) {
    for (const r of reports)
      jobs.push({
        jobId: jobId(jobs.length),
        reportId: r.id,
        reportName: r.name,
        window,
        ...tenant,
        ...force,
      });
  }
  const last = taken[taken.length - 1] as JobWindow;
  const plan: Plan = {
    runId,
    mode,
    tenant: input.tenant ?? null,
    timeZone: settings.timeZone,
    dates: { from, to: last.lastDate },
    jobs,
    options,
    jobCount: jobs.length,
    contacts: plannedContacts(input),
    hasContinuation: false,
  };
  if (taken.length < windows.length) {
    plan.hasContinuation = true;
    plan.continuation = {
      ...tenant,
      from: shiftDate(last.lastDate, 1),
      to,
      reports: reports.map((r) => r.id),
      ...(input.forceReplace === undefined ? {} : { forceReplace: input.forceReplace }),
      parentRunId: runId,
      // Its first execution synced the directories.
      contacts: 'skip',
    };
  }
  return plan;
}

/**
 * A plan of no job that syncs the directories (input `contacts: "only"`): its dates are the
 * local day it started on in the tenant's zone, the day the run record is of.
 */
function contactsOnlyPlan(input: ExecutionInput, settings: WorkflowSettings, context: PlanContext): Plan {
  const today = dateInZone((context.now ?? new Date()).getTime(), settings.timeZone);
  return {
    runId: safeRunId(context.executionName),
    mode: 'contacts',
    tenant: input.tenant ?? null,
    timeZone: settings.timeZone,
    dates: { from: today, to: today },
    jobs: [],
    options: {
      filters: {},
      maxPollsPerJob: settings.poll.maxPollsPerJob,
      maxRequestsPerJob: settings.maxRequestsPerJob,
    },
    jobCount: 0,
    contacts: plannedContacts(input),
    hasContinuation: false,
  };
}

function jobId(index: number): string {
  return `job-${String(index + 1).padStart(4, '0')}`;
}

/** Execution names may hold characters keys should not: keep a readable, safe id. */
function safeRunId(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
  return safe.length > 0 ? safe : 'run';
}

function datesOf(
  input: ExecutionInput,
  settings: WorkflowSettings,
  now: Date,
): { from: string; to: string; mode: Plan['mode'] } {
  if (input.preset !== undefined) {
    // Resolved here, not by the service: a summary report runs day by day, and the days
    // are the partitions' own.
    return { ...presetDates(input.preset as PresetName, settings.timeZone, now), mode: 'preset' };
  }
  if (input.intraday === true) return { ...intradayDates(input, settings, now), mode: 'intraday' };
  if (input.scheduledTime !== undefined) {
    // The local day before the scheduled time, in the configured zone: never now().
    const yesterday = dayBefore(input.scheduledTime, settings.timeZone);
    return { from: shiftDate(yesterday, -settings.lookBackDays), to: yesterday, mode: 'nightly' };
  }
  if (input.date !== undefined) return { from: input.date, to: input.date, mode: 'date' };
  return { from: input.from as string, to: input.to as string, mode: 'range' };
}

/**
 * An intraday refresh's days: today (of the scheduled time, else of now) in the tenant's zone,
 * from yesterday while yesterday may not be settled yet: when the refresh before it (one
 * interval earlier) was less than the settle grace (SETTLE_GRACE_MINUTES) after midnight, or
 * before it. The first refresh past midnight and the grace reads yesterday whole and settles
 * it. Whole days are requested: the service answers with the calls up to the request, and the
 * export marks a day not ended then (or within the grace) provisional.
 */
function intradayDates(
  input: ExecutionInput,
  settings: WorkflowSettings,
  now: Date,
): { from: string; to: string } {
  const at = input.scheduledTime === undefined ? now.getTime() : Date.parse(input.scheduledTime);
  const today = dateInZone(at, settings.timeZone);
  const every = settings.intradayEveryMinutes;
  const before =
    every === undefined ? today : dateInZone(at - (every + SETTLE_GRACE_MINUTES) * 60_000, settings.timeZone);
  return { from: before < today ? before : today, to: today };
}

/** Consecutive local days grouped into windows of at most `maxDays`, each aligned to local midnights. */
function dayWindows(from: string, to: string, maxDays: number, timeZone: string): JobWindow[] {
  const windows: JobWindow[] = [];
  for (let first = from; first <= to; first = shiftDate(first, maxDays)) {
    const candidate = shiftDate(first, maxDays - 1);
    const lastDate = candidate < to ? candidate : to;
    const w = windowForDates(first, lastDate, timeZone);
    windows.push({ from: w.from, to: w.to, firstDate: first, lastDate });
  }
  return windows;
}

/** The configured reports an input names (by id or by name), or all of them. */
function selectReports(
  wanted: readonly string[] | undefined,
  configured: readonly ConfiguredReport[],
): ConfiguredReport[] {
  if (wanted === undefined) return [...configured];
  const chosen = new Map<string, ConfiguredReport>();
  for (const w of wanted) {
    // An id, then a name as written, then a name in any case (`lost calls`).
    const match =
      configured.find((r) => r.id === w) ??
      configured.find((r) => r.name === w) ??
      configured.find((r) => r.name.toLowerCase() === w.toLowerCase());
    if (match === undefined) {
      const known = configured.map((r) => `"${r.name}"`).join(', ');
      throw new InvalidInputError(
        `reports: "${w}" is not a configured report (id or name); configured: ${known}`,
      );
    }
    chosen.set(match.id, match);
  }
  return [...chosen.values()];
}
