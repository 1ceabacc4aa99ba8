import type { HeldPartition } from '../../../export';
import type { EngineEvent } from '../../../local';
import type { Job } from '../../../workflow';
import { describeHeld, handlerWarning } from '../../shared/run-outcome';
import { formatCount } from '../../shared/terminal';

/** Where progress goes: a status that changes, and lines that stay (terminal `progress()`). */
export interface ProgressSink {
  update(text: string): void;
  log(line: string): void;
}

/** A handler's log line (lib/local keeps them as JSON text). */
interface LogLine {
  level?: string;
  message?: string;
  jobId?: string;
  requestId?: string;
  rows?: number;
  partitions?: number;
  done?: boolean;
  error?: string;
  /** The shrink guard's held partitions (its warning). */
  held?: HeldPartition[];
}

interface JobState {
  name: string;
  requested: boolean;
  rows: number;
  partitions: number;
  done: boolean;
}

/**
 * Turns the local state machine's events and the handlers' log lines into progress: how
 * many jobs are requested, how many status polls ran, rows streamed into partitions and
 * partitions published (the ExportResults cursor's counts), and a line per finished job.
 * The engine's events say which state runs; the log lines say for which job. A long range
 * runs as a chain of executions (ContinueAsNew) whose job ids restart at job-0001, so jobs
 * are kept per execution and the counts are over the whole chain: the status never looks
 * finished while a later execution still has to run.
 */
export class ExportProgressTracker {
  readonly #jobs = new Map<string, JobState>();
  readonly #sink: ProgressSink | undefined;
  readonly #showState: boolean;
  /** Report runs of this execution: the partitions' manifests name them. */
  readonly requestIds = new Set<string>();
  readonly #executions: number;
  #polls = 0;
  #state = '';
  #linesRead = 0;
  /** Index of the running execution in the chain, and its name (as the engine reports it). */
  #execution = 0;
  #executionName: string | undefined;

  /**
   * `jobsPerExecution`: the planned jobs of each execution of the chain, in order (one
   * array for a range that fits one execution). `showState`: name the running state in the
   * status (a live line; in a log it only adds lines).
   */
  constructor(
    jobsPerExecution: readonly (readonly Job[])[],
    sink: ProgressSink | undefined,
    showState = false,
  ) {
    this.#showState = showState;
    this.#executions = Math.max(1, jobsPerExecution.length);
    jobsPerExecution.forEach((jobs, i) => {
      for (const job of jobs) {
        this.#jobs.set(jobKey(i, job.jobId), {
          name: job.reportName,
          requested: false,
          rows: 0,
          partitions: 0,
          done: false,
        });
      }
    });
    this.#sink = sink;
  }

  /**
   * One engine event of the execution named `execution`; `logLines` is the deployment's
   * growing list of handler log lines.
   */
  onEvent(event: EngineEvent, logLines: readonly string[], execution?: string): void {
    // Executions run one after another: lines logged before a new execution's first event
    // belong to the previous one.
    this.#readLines(logLines);
    if (execution !== undefined && execution !== this.#executionName) {
      if (this.#executionName !== undefined) this.#execution++;
      this.#executionName = execution;
    }
    if (event.type === 'StateEntered' && event.state !== undefined) {
      if (event.state.name === 'CheckStatus') this.#polls++;
      this.#state = event.state.name;
    }
    if (event.type === 'StateRetried' && event.state !== undefined) {
      this.#sink?.log(`${event.state.name}: retrying after ${event.Error ?? 'an error'}`);
    }
    this.#sink?.update(this.status());
  }

  /** Reads the last log lines once the execution ended. */
  finish(logLines: readonly string[]): void {
    this.#readLines(logLines);
  }

  /**
   * The one-line status, e.g. `3/3 requested, 4 polls, 1/3 exported: 10,460 rows, 7 partitions (CheckStatus)`,
   * prefixed with `execution 2/5: ` when the range takes several executions (counts over all of them).
   */
  status(): string {
    const jobs = [...this.#jobs.values()];
    const requested = jobs.filter((j) => j.requested).length;
    const done = jobs.filter((j) => j.done).length;
    const rows = jobs.reduce((n, j) => n + j.rows, 0);
    const partitions = jobs.reduce((n, j) => n + j.partitions, 0);
    const chain = this.#executions > 1 ? `execution ${this.#execution + 1}/${this.#executions}: ` : '';
    return (
      `${chain}${requested}/${jobs.length} requested, ${this.#polls} polls, ${done}/${jobs.length} exported: ` +
      `${formatCount(rows)} rows, ${partitions} partitions published${this.#showState && this.#state !== '' ? ` (${this.#state})` : ''}`
    );
  }

  #readLines(logLines: readonly string[]): void {
    for (; this.#linesRead < logLines.length; this.#linesRead++) {
      let line: LogLine;
      try {
        line = JSON.parse(logLines[this.#linesRead] as string) as LogLine;
      } catch {
        continue;
      }
      this.#apply(line);
    }
  }

  #apply(line: LogLine): void {
    const job = line.jobId === undefined ? undefined : this.#jobs.get(jobKey(this.#execution, line.jobId));
    if (line.message === 'report requested' && typeof line.requestId === 'string') {
      this.requestIds.add(line.requestId);
    }
    if (line.message === 'report requested' && job !== undefined) {
      if (job.requested) return;
      job.requested = true;
      this.#sink?.log(`${job.name}: requested`);
    } else if (line.message === 'exported' && job !== undefined) {
      job.rows = line.rows ?? job.rows;
      job.partitions = line.partitions ?? job.partitions;
      if (line.done === true && !job.done) {
        job.done = true;
        this.#sink?.log(
          `${job.name}: ${formatCount(job.rows)} rows in ${job.partitions} partitions published`,
        );
      }
    } else if (line.level === 'WARN' || line.level === 'ERROR') {
      // Messages only: handlers never log a token or a secret, but keep data out of the terminal too.
      const held = Array.isArray(line.held) ? line.held : [];
      this.#sink?.log(
        `${line.level === 'WARN' ? 'warning' : 'error'}: ${handlerWarning(line.message ?? '', held)}${line.error ? ` (${line.error})` : ''}`,
      );
      // The shrink guard's warning: each held day of the job's report, with both counts.
      const reportName = job?.name ?? 'a report';
      for (const h of held) {
        this.#sink?.log(`  held ${describeHeld({ ...h, reportId: '', reportName })}`);
      }
    }
  }
}

function jobKey(execution: number, jobId: string): string {
  return `${execution}/${jobId}`;
}
