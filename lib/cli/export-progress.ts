import type { EngineEvent } from '../local/history';
import type { Job } from '../workflow/plan';
import { formatCount } from './terminal';

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
 * The engine's events say which state runs; the log lines say for which job.
 */
export class ExportProgressTracker {
  readonly #jobs = new Map<string, JobState>();
  readonly #sink: ProgressSink | undefined;
  readonly #showState: boolean;
  /** Report runs of this execution: the partitions' manifests name them. */
  readonly requestIds = new Set<string>();
  #polls = 0;
  #state = '';
  #linesRead = 0;

  /** `showState`: name the running state in the status (a live line; in a log it only adds lines). */
  constructor(jobs: readonly Job[], sink: ProgressSink | undefined, showState = false) {
    this.#showState = showState;
    for (const job of jobs) {
      this.#jobs.set(job.jobId, {
        name: job.reportName,
        requested: false,
        rows: 0,
        partitions: 0,
        done: false,
      });
    }
    this.#sink = sink;
  }

  /** One engine event; `logLines` is the deployment's growing list of handler log lines. */
  onEvent(event: EngineEvent, logLines: readonly string[]): void {
    this.#readLines(logLines);
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

  /** The one-line status, e.g. `3/3 requested, 4 polls, 1/3 exported: 10,460 rows, 7 partitions (CheckStatus)`. */
  status(): string {
    const jobs = [...this.#jobs.values()];
    const requested = jobs.filter((j) => j.requested).length;
    const done = jobs.filter((j) => j.done).length;
    const rows = jobs.reduce((n, j) => n + j.rows, 0);
    const partitions = jobs.reduce((n, j) => n + j.partitions, 0);
    return (
      `${requested}/${jobs.length} requested, ${this.#polls} polls, ${done}/${jobs.length} exported: ` +
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
    const job = line.jobId === undefined ? undefined : this.#jobs.get(line.jobId);
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
      this.#sink?.log(
        `${line.level === 'WARN' ? 'warning' : 'error'}: ${line.message ?? ''}${line.error ? ` (${line.error})` : ''}`,
      );
    }
  }
}
