import * as path from 'node:path';
import type { PhoneRegion } from '../../../api';
import { parseOrHelp, UsageError } from '../../../command-line';
import type { Directory } from '../../../spec';
import type { IOStreams } from '../../shared/io-streams';
import { type Colors, colors, isInteractive, progress } from '../../shared/terminal';
import { connect, resolveDirectory, supportedRegion } from './client';
import { parseContacts, readContactsFile } from './contacts';
import { DIRECTORY_CLI_ERROR_CODES, DirectoryCommandError } from './errors';
import { writeJson } from './output';
import type { ServedServices } from './served-service';
import { DIRECTORY_SYNC_COMMAND } from './spec';
import { type SyncReport, syncDirectory } from './sync';

/** Every `step` rows on a log (one line per row would flood it), every row on a terminal. */
function progressStep(total: number, live: boolean): number {
  return live ? 1 : Math.max(1, Math.ceil(total / 20));
}

function counts(r: SyncReport): string {
  return `${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.deleted} deleted, ${r.failed} failed`;
}

/** The report for people: the plan (dry run), the summary, bad rows, and what to do next. */
function renderSyncReport(report: SyncReport, c: Colors): string {
  const lines: string[] = [];
  if (report.dryRun && report.changes.length > 0) {
    lines.push('Plan:');
    for (const ch of report.changes) {
      const where = ch.line === undefined ? '' : `line ${ch.line}  `;
      const what = ch.changedFields === undefined ? '' : `  (${ch.changedFields.join(', ')})`;
      lines.push(
        `  ${ch.action.padEnd(6)}  ${where}${ch.crmId}${ch.label === undefined ? '' : `  ${ch.label}`}${what}`,
      );
    }
  }
  const failed = report.failed > 0 ? c.red(`${report.failed} failed`) : `${report.failed} failed`;
  const summary = report.dryRun
    ? `Dry run (nothing changed): would create ${report.created}, update ${report.updated}, delete ${report.deleted}; ${report.unchanged} unchanged; ${failed}.`
    : `Created ${report.created}, updated ${report.updated}, unchanged ${report.unchanged}, deleted ${report.deleted}, ${failed}.`;
  lines.push(c.bold(summary));
  if (report.failures.length > 0) {
    lines.push(`Failed rows (${report.failures.length}):`);
    for (const f of report.failures) {
      const where = f.line === undefined ? `crmId ${f.crmId ?? '?'}` : `line ${f.line}`;
      lines.push(`  ${where}: ${f.reason} [${f.code}]`);
    }
  }
  if (report.warnings.length > 0) {
    lines.push(c.yellow(`Warnings (${report.warnings.length}):`));
    for (const w of report.warnings)
      lines.push(`  line ${w.line ?? '?'} (crmId ${w.crmId ?? '?'}): ${w.reason} [${w.code}]`);
  }
  if (report.deletionsSkipped !== undefined)
    lines.push(c.yellow(`Deletions skipped: ${report.deletionsSkipped}.`));
  if (report.stopped !== undefined) {
    lines.push(
      c.red(`Stopped before the end: ${report.stopped.reason} [${report.stopped.code}].`),
      'Run the same command again to finish: rows already applied are found by crmId and left alone.',
    );
  }
  return `${lines.join('\n')}\n`;
}

function checkColumns(columns: readonly string[], directory: Directory): void {
  const foreign = columns.filter((c) => !directory.fields.includes(c));
  if (foreign.length > 0) {
    throw new DirectoryCommandError(
      DIRECTORY_CLI_ERROR_CODES.columnNotInDirectory,
      `directory '${directory.name}' has no field ${foreign.join(', ')} (its fields: ${directory.fields.join(', ')}); remove the column(s)`,
    );
  }
}

export async function directorySync(
  argv: readonly string[],
  io: IOStreams,
  services: ServedServices,
): Promise<number> {
  const v = parseOrHelp(DIRECTORY_SYNC_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const region: PhoneRegion = supportedRegion(v['default-region']);
  if (v.csv === undefined) throw new UsageError('--csv is required (see --help)');
  // The file first: its problems need no network and no login.
  const sheet = parseContacts(await readContactsFile(v.csv, io.cwd), region);
  const api = await connect({
    flags: v,
    io,
    defaultRegion: region,
    services,
  });
  const directory = await resolveDirectory(api, v.directory, io.env);
  checkColumns(sheet.columns, directory);

  const bar = progress(io.stderr, io.env);
  const step = progressStep(sheet.rows.length, isInteractive(io.stderr, io.env));
  bar.log(
    `${path.basename(v.csv)}: ${sheet.rows.length + sheet.bad.length} rows (${sheet.bad.length} bad) -> directory '${directory.name}'${v['dry-run'] ? ' (dry run)' : ''}`,
  );
  // Ctrl-C (the program's io.signal) stops the sync between items: what is done is reported.
  const signal = io.signal;
  let report: SyncReport;
  try {
    report = await syncDirectory(api.directories, {
      directoryId: directory.id,
      sheet,
      deleteMissing: v['delete-missing'],
      dryRun: v['dry-run'],
      concurrency: v.concurrency,
      ...(signal === undefined ? {} : { signal }),
      onProgress: (r, done, total) => {
        if (done % step === 0 || done === total) bar.update(`${done}/${total}: ${counts(r)}`);
      },
    });
  } finally {
    bar.done();
  }
  if (v.json) {
    writeJson(io.stdout, {
      directory: { id: directory.id, name: directory.name },
      file: v.csv,
      ...report,
    });
  } else {
    io.stdout.write(renderSyncReport(report, colors(io.stdout, io.env)));
  }
  return report.failed === 0 && report.stopped === undefined ? 0 : 1;
}
