import * as path from 'node:path';
import { createClient, TokenProvider, type TokenSet } from '../api';
import { type ExportSummary, exportReportResult } from '../export';
import { dayBefore, type ReportWindow, shiftDate, toReportPeriod, windowForDates } from '../export/window';
import { startSimulator } from '../simulator';
import { LocalDirectoryStore, LocalFileSecretStore } from '../stores';
import { loginWithAutoApproval } from './local-login';

/** Options of {@link runLocalExport}; every member has a default. */
export interface LocalExportOptions {
  /** Root of the local data lake. Default `./data-lake`. */
  outDir?: string;
  /** Secrets file (refresh token, client secret), written with mode 0600. Default `./.report-export/secrets.json`. */
  secretsFile?: string;
  /** First local date (YYYY-MM-DD). Default: 7 days before `to`. */
  from?: string;
  /** Last local date (YYYY-MM-DD), inclusive. Default: yesterday in the tenant's time zone. */
  to?: string;
  /** Generated calls per weekday in the local service. Default 2,000. */
  rowsPerDay?: number;
  /** Export only this report id; default every report of the workspace. */
  reportId?: string;
  /** Gzip the CSV files. */
  csvGzip?: boolean;
  /** Progress lines (stderr in the CLI). */
  progress?: (line: string) => void;
  /**
   * The whole run (login, every report's request, wait, download and export) must end
   * within this; then it is aborted and publishes nothing more. Default 60 minutes.
   */
  deadlineMs?: number;
  /** Aborts the run, with the deadline and Ctrl+C (SIGINT, caught while the run lasts). */
  signal?: AbortSignal;
}

export interface LocalExportResult {
  outDir: string;
  window: ReportWindow;
  exports: (ExportSummary & { reportName: string })[];
}

const SECRET_NAME = 'service';
const DAYS_DEFAULT = 7;
/** Default of {@link LocalExportOptions.deadlineMs}: 60 minutes. */
export const LOCAL_EXPORT_DEADLINE_MS = 60 * 60_000;

/**
 * The main job, entirely on this machine: starts the local service, logs in with the
 * authorization-code flow, keeps the tokens in a local secret file, runs each report over
 * the window, waits for it, and streams its rows into a local data lake as date-partitioned
 * Parquet and CSV (the same export core the Lambda uses).
 */
export async function runLocalExport(options: LocalExportOptions = {}): Promise<LocalExportResult> {
  const say = options.progress ?? (() => {});
  const outDir = path.resolve(options.outDir ?? 'data-lake');
  // One signal for every call of the run: the deadline, Ctrl+C, and the caller's.
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort(new Error('interrupted (Ctrl+C)'));
  process.once('SIGINT', onInterrupt);
  const deadlineMs = options.deadlineMs ?? LOCAL_EXPORT_DEADLINE_MS;
  const signal = AbortSignal.any([
    AbortSignal.timeout(deadlineMs),
    interrupt.signal,
    ...(options.signal === undefined ? [] : [options.signal]),
  ]);
  const sim = await startSimulator({ autoApprove: true, rowsPerDay: options.rowsPerDay ?? 2000 });
  try {
    say(`local service on ${sim.baseUrl} (tenant time zone ${sim.timeZoneId})`);
    const to = options.to ?? dayBefore(new Date(), sim.timeZoneId);
    const from = options.from ?? shiftDate(to, -(DAYS_DEFAULT - 1));
    const window = windowForDates(from, to, sim.timeZoneId);

    const app = {
      authUrl: sim.authUrl,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      redirectUri: sim.redirectUri,
    };
    const secrets = new LocalFileSecretStore(options.secretsFile ?? '.report-export/secrets.json');
    const persist = (tokens: TokenSet) =>
      secrets.put(SECRET_NAME, { clientId: app.clientId, clientSecret: app.clientSecret, ...tokens });
    const tokens = await loginWithAutoApproval(app, { signal });
    await persist(tokens);
    say(`logged in as ${sim.username}; tokens kept in ${secrets.file}`);

    const auth = new TokenProvider({ client: app, tokens, onTokens: persist });
    const api = createClient({ baseUrl: sim.baseUrl, auth, workspaceId: sim.workspaceId });
    const store = new LocalDirectoryStore(outDir);
    const exports: LocalExportResult['exports'] = [];
    for await (const report of api.reporting.listReports({ signal })) {
      if (options.reportId !== undefined && report.id !== options.reportId) continue;
      say(`${report.name}: requesting ${window.from} .. ${window.to}`);
      const run = await api.reporting.requestReport(
        { reportId: report.id, period: toReportPeriod(window) },
        { signal },
      );
      let last = '';
      await api.reporting.waitForCompletion(run, {
        signal,
        pollIntervalMs: 250,
        onStatus: ({ status }) => {
          if (status !== last) say(`${report.name}: ${status}`);
          last = status;
        },
      });
      const source = await api.reporting.openResult(run, { signal, totalTimeoutMs: deadlineMs });
      const summary = await exportReportResult({
        source,
        store,
        reportId: report.id,
        ...(options.csvGzip ? { csvGzip: true } : {}),
        window,
        signal,
        logger: { warn: (message, data) => say(`warning: ${message} ${JSON.stringify(data ?? {})}`) },
      });
      say(
        `${report.name}: ${summary.rows} rows in ${summary.partitions.length} partitions, ${summary.files} files`,
      );
      exports.push({ ...summary, reportName: report.name });
    }
    if (options.reportId !== undefined && exports.length === 0) {
      throw new Error(`report ${options.reportId} is not a report of workspace ${sim.workspaceId}`);
    }
    return { outDir, window, exports };
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    await sim.close();
  }
}
