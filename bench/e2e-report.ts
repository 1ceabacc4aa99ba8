/** What bench/e2e.ts prints: tables for people, then one JSON line with every figure and ratio. */

export type Contestant = 'core' | 'dir' | 's3' | 'upload';
export type CoreCount = 1 | 2;

export interface E2eRun {
  contestant: Contestant;
  cores: CoreCount;
  round: number;
  /** The contestant's own JSON line, with what the parent added (S3 server, files stored). */
  line: Record<string, unknown>;
}

export interface E2eFigures {
  window: { from: string; to: string };
  rowsPerDay: number;
  seed: number;
  report: string;
  /** The result document of the export core contestant: {file, rows, bytes}. */
  document: Record<string, unknown>;
  runs: E2eRun[];
  cpus: { one: string | null; two: string; rest: string | null };
  benchSeconds: number;
  loadAverage: { before: number[]; after: number[] };
}

/** The aims of issue 17 (a quiet machine). */
export const E2E_AIMS = {
  dirVsCore: 0.6,
  s3VsCore: 0.4,
  s3ExtraVsUpload: 1.5,
  /** ExportResults' peak RSS at most this share of its memory size. */
  exportMemoryShare: 0.5,
} as const;

const NAMES: Record<Contestant, string> = {
  core: '1 export core, file -> directory',
  dir: '2 workflow -> local directory',
  s3: '3 workflow -> S3 (fauxqs)',
  upload: "4 raw upload of 2's files (lib-storage)",
};

type Line = Record<string, unknown>;
const num = (v: unknown) => (typeof v === 'number' ? v : Number(v));
const obj = (v: unknown): Line => (typeof v === 'object' && v !== null ? (v as Line) : {});
const r2 = (n: number) => Number(n.toFixed(2));
const r3 = (n: number) => Number(n.toFixed(3));
const fmt = (n: number) => (Number.isFinite(n) ? n.toLocaleString('en-US') : '-');

/** The run of a contestant the machine disturbed least: the shortest. */
function best(runs: readonly E2eRun[], c: Contestant, cores: CoreCount): Line | undefined {
  return runs
    .filter((r) => r.contestant === c && r.cores === cores)
    .map((r) => r.line)
    .reduce<Line | undefined>(
      (a, b) => (a === undefined || num(b.seconds) < num(a.seconds) ? b : a),
      undefined,
    );
}

/** Every process of a run: CPU seconds and peak RSS. */
function processesOf(
  c: Contestant,
  line: Line,
): Record<string, { cpu_seconds: number; peak_rss_mb: number }> {
  const p = (v: unknown) => ({
    cpu_seconds: r2(num(obj(v).cpu_seconds)),
    peak_rss_mb: num(obj(v).peak_rss_mb),
  });
  if (c === 'core') return { export_core: p(line) };
  if (c === 'upload') return { uploader: p(line), s3_server: p(line.s3_server) };
  const procs = obj(line.processes);
  return {
    export_results: p(procs.export_results),
    runner: p(procs.runner),
    other_functions: p(procs.other_functions),
    ...(c === 's3' ? { s3_server: p(line.s3_server) } : {}),
  };
}

/** The by-stage seconds of a run (see bench/e2e.ts). */
function stagesOf(c: Contestant, line: Line): Record<string, number> {
  const phases = obj(line.phases_ms);
  const ph = (k: string) => num(phases[k] ?? 0) / 1000;
  const phaseSum = ['read', 'write', 'stage', 'promote', 'cleanup'].reduce((n, k) => n + ph(k), 0);
  const exportPhases = {
    read: r3(ph('read')),
    write: r3(ph('write')),
    stage: r3(ph('stage')),
    promote: r3(ph('promote')),
    cleanup: r3(ph('cleanup')),
  };
  if (c === 'core') {
    return {
      before_export: 0,
      export_other: r3(Math.max(0, num(line.seconds) - phaseSum)),
      ...exportPhases,
      finalize: 0,
      engine_other: 0,
      total: num(line.seconds),
    };
  }
  const states = obj(line.state_seconds);
  const st = (k: string) => num(states[k] ?? 0);
  const before = st('Plan') + st('RequestReport') + st('WaitForReport') + st('CheckStatus');
  const exportState = st('ExportResults');
  const total = num(line.seconds);
  return {
    before_export: r3(before),
    export_other: r3(exportState - phaseSum),
    ...exportPhases,
    finalize: r3(st('Finalize')),
    engine_other: r3(total - before - exportState - st('Finalize')),
    total,
  };
}

const STAGE_LABELS: [string, string][] = [
  ['before_export', 'Plan, RequestReport, wait, CheckStatus'],
  ['export_other', 'ExportResults: invoke, cold start, open, leases'],
  ['read', 'read: service body, gunzip, parse, encode, spill'],
  ['write', 'write: verify the part files'],
  ['stage', 'stage: upload to the store (+ head)'],
  ['promote', 'promote: copy into place, manifests'],
  ['cleanup', 'cleanup: staging, spill'],
  ['finalize', 'Finalize'],
  ['engine_other', 'engine, other states'],
  ['total', 'total (wall)'],
];

function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function printE2eReport(f: E2eFigures): void {
  const coreCounts = ([2, 1] as const).filter((c) => f.runs.some((r) => r.cores === c));
  const out: string[] = [];
  const json: Line = {
    bench: 'e2e',
    report: f.report,
    window: f.window,
    rows_per_day: f.rowsPerDay,
    seed: f.seed,
    document_rows: num(f.document.rows),
    document_bytes: num(f.document.bytes),
  };
  const rows = num(best(f.runs, 'core', 2)?.rows);
  const checks: Line = {
    same_rows: f.runs
      .filter((r) => r.contestant !== 'upload')
      .every((r) => num(r.line.rows) === num(f.document.rows)),
    about_a_million: rows >= 900_000 && rows <= 1_100_000,
    one_job: f.runs
      .filter((r) => r.contestant === 'dir' || r.contestant === 's3')
      .every((r) => num(r.line.jobs) === 1 && num(r.line.executions) === 1),
    // On one core, ExportResults ran on the export CPU alone (the wrapper found its process).
    export_pinned: f.runs
      .filter((r) => (r.contestant === 'dir' || r.contestant === 's3') && r.cores === 1)
      .every((r) => obj(obj(obj(r.line.processes).functions).ExportResults).cpus_allowed === f.cpus.one),
    // The S3 contestant stored the bytes the directory contestant wrote; the raw upload, all of them.
    same_bytes: f.runs
      .filter((r) => r.contestant === 's3' || r.contestant === 'upload')
      .every((r) => {
        const dir = best(f.runs, 'dir', r.cores);
        const stored = obj(r.contestant === 's3' ? r.line.lake : r.line.stored);
        return (
          num(stored.bytes) === num(obj(dir?.lake).bytes) && num(stored.files) === num(obj(dir?.lake).files)
        );
      }),
  };

  out.push(
    `End to end vs the export core: report "${f.report}", ${f.window.from} .. ${f.window.to}, rowsPerDay ${f.rowsPerDay}, seed ${f.seed}: ${fmt(num(f.document.rows))} rows, ${fmt(num(f.document.bytes))} bytes of JSON`,
    `One core: the export's process (core, ExportResults, uploader) on CPU ${f.cpus.one ?? '-'}, every other process (runner + local service, other functions, S3 server) on CPU ${f.cpus.rest ?? '-'}. Two cores: all on ${f.cpus.two}.`,
    'CPU s: every process of the contestant, S3 server included; peak RSS per process (ExportResults against its memory size).',
    '',
  );
  const header = [
    'cores',
    'contestant',
    'rows',
    'seconds',
    'rows/s',
    'x core',
    'CPU s',
    'CPU s by process',
    'peak RSS MB by process',
  ];
  const rowsOut: string[][] = [header];
  for (const c of coreCounts) {
    const core = best(f.runs, 'core', c);
    for (const k of ['core', 'dir', 's3', 'upload'] as const) {
      const line = best(f.runs, k, c);
      if (line === undefined) continue;
      const procs = processesOf(k, line);
      const cpu = Object.values(procs).reduce((n, p) => n + p.cpu_seconds, 0);
      const memory = num(obj(obj(line.processes).export_results).memory_size_mb);
      const rss = Object.entries(procs)
        .map(([n, p]) => `${n} ${p.peak_rss_mb}${n === 'export_results' ? ` of ${memory}` : ''}`)
        .join(', ');
      const cpuBy = Object.entries(procs)
        .map(([n, p]) => `${n} ${p.cpu_seconds}`)
        .join(', ');
      const isUpload = k === 'upload';
      rowsOut.push([
        String(c),
        NAMES[k],
        isUpload ? `${line.files} files, ${(num(line.bytes) / 1048576).toFixed(1)} MiB` : fmt(num(line.rows)),
        String(line.seconds),
        isUpload ? `${line.mb_per_s} MiB/s` : fmt(num(line.rows_per_s)),
        isUpload || core === undefined ? '-' : (num(line.rows_per_s) / num(core.rows_per_s)).toFixed(2),
        r2(cpu).toString(),
        cpuBy,
        rss,
      ]);
      json[`${k}_${c}c`] = {
        seconds: num(line.seconds),
        ...(isUpload
          ? { files: num(line.files), bytes: num(line.bytes), mb_per_s: num(line.mb_per_s) }
          : { rows: num(line.rows), rows_per_s: num(line.rows_per_s) }),
        cpu_seconds: r2(cpu),
        processes: procs,
        ...(k === 'dir' || k === 's3'
          ? {
              export_results_memory_size_mb: memory,
              export_results_cpus: obj(obj(obj(line.processes).functions).ExportResults).cpus_allowed,
              stages: stagesOf(k, line),
              phases_rss_mb: line.phases_rss_mb,
              state_seconds: line.state_seconds,
            }
          : k === 'core'
            ? { stages: stagesOf(k, line), spilled_bytes: num(line.spilled_bytes) }
            : {}),
      };
    }
  }
  out.push(table(rowsOut), '');

  // Ratios and aims, per core count.
  const ratios: Line = {};
  for (const c of coreCounts) {
    const [core, dir, s3, upload] = (['core', 'dir', 's3', 'upload'] as const).map((k) => best(f.runs, k, c));
    if (core === undefined || dir === undefined || s3 === undefined || upload === undefined) continue;
    const dirVsCore = r3(num(dir.rows_per_s) / num(core.rows_per_s));
    const s3VsCore = r3(num(s3.rows_per_s) / num(core.rows_per_s));
    // What S3 adds to ExportResults' duration (what Lambda bills), and to the whole execution.
    const exportSeconds = (l: Line) => num(obj(l.state_seconds).ExportResults);
    const extra = exportSeconds(s3) - exportSeconds(dir);
    const extraWall = num(s3.seconds) - num(dir.seconds);
    const extraVsUpload = r3(extra / num(upload.seconds));
    const memory = num(obj(obj(dir.processes).export_results).memory_size_mb);
    const exportPeak = Math.max(
      num(obj(obj(dir.processes).export_results).peak_rss_mb),
      num(obj(obj(s3.processes).export_results).peak_rss_mb),
    );
    const stageExtra = num(obj(s3.phases_ms).stage) / 1000 - num(obj(dir.phases_ms).stage) / 1000;
    ratios[`${c}c`] = {
      dir_vs_core: dirVsCore,
      s3_vs_core: s3VsCore,
      export_results_seconds_dir: exportSeconds(dir),
      export_results_seconds_s3: exportSeconds(s3),
      s3_extra_seconds: r3(extra),
      s3_extra_wall_seconds: r3(extraWall),
      upload_seconds: num(upload.seconds),
      s3_extra_vs_upload: extraVsUpload,
      s3_extra_wall_vs_upload: r3(extraWall / num(upload.seconds)),
      s3_stage_extra_seconds: r3(stageExtra),
      export_results_peak_rss_mb: exportPeak,
      export_results_memory_share: r3(exportPeak / memory),
    };
    checks[`aim_dir_vs_core_${c}c`] = dirVsCore >= E2E_AIMS.dirVsCore;
    checks[`aim_s3_vs_core_${c}c`] = s3VsCore >= E2E_AIMS.s3VsCore;
    checks[`aim_s3_extra_vs_upload_${c}c`] = extraVsUpload <= E2E_AIMS.s3ExtraVsUpload;
    checks[`aim_export_results_memory_${c}c`] = exportPeak <= memory * E2E_AIMS.exportMemoryShare;
    out.push(
      `${c} core${c === 1 ? '' : 's'}: 2/1 = ${dirVsCore} (aim >= ${E2E_AIMS.dirVsCore}), 3/1 = ${s3VsCore} (aim >= ${E2E_AIMS.s3VsCore}); ` +
        `S3's extra time (3 - 2, ExportResults' duration) ${r3(extra)} s vs raw upload (4) ${upload.seconds} s: ${extraVsUpload}x (aim <= ${E2E_AIMS.s3ExtraVsUpload}; whole execution ${r3(extraWall)} s more, stage phase alone ${r3(stageExtra)} s more); ` +
        `ExportResults peak RSS ${exportPeak} MB of ${memory} MB (${(exportPeak / memory).toFixed(2)}, aim <= ${E2E_AIMS.exportMemoryShare})`,
    );
  }
  json.ratios = ratios;

  // The Lambda seconds: ExportResults' duration in contestant 3 on one core (else two).
  const lambdaCores = coreCounts.includes(1) ? 1 : 2;
  const s3Lambda = best(f.runs, 's3', lambdaCores);
  if (s3Lambda !== undefined) {
    const exportSeconds = num(obj(s3Lambda.state_seconds).ExportResults);
    const memory = num(obj(obj(s3Lambda.processes).export_results).memory_size_mb);
    const perMillion = (exportSeconds * 1_000_000) / num(s3Lambda.rows);
    json.lambda = {
      cores: lambdaCores,
      export_results_seconds: exportSeconds,
      export_results_seconds_per_million_rows: r2(perMillion),
      memory_size_mb: memory,
      gb_seconds_per_million_rows: r2((memory / 1024) * perMillion),
      rows_in_900_s: Math.round((num(s3Lambda.rows) / exportSeconds) * 900),
    };
    out.push(
      `Lambda seconds (contestant 3, ${lambdaCores} core${lambdaCores === 1 ? '' : 's'}): ExportResults ${exportSeconds} s for ${fmt(num(s3Lambda.rows))} rows = ${perMillion.toFixed(2)} s per 1,000,000 rows; at ${memory} MB ${((memory / 1024) * perMillion).toFixed(1)} GB-s per 1,000,000 rows; ${fmt(Math.round((num(s3Lambda.rows) / exportSeconds) * 900))} rows in 900 s`,
    );
  }

  // Where the time goes, by stage.
  out.push(
    '',
    "By stage, seconds (the export core's phase log: lib/export/phases.ts; the workflow's states):",
  );
  const stageHeader = ['stage'];
  const columns: { c: CoreCount; k: Contestant; stages: Record<string, number> }[] = [];
  for (const c of coreCounts) {
    for (const k of ['core', 'dir', 's3'] as const) {
      const line = best(f.runs, k, c);
      if (line === undefined) continue;
      stageHeader.push(`${k} ${c}c`);
      columns.push({ c, k, stages: stagesOf(k, line) });
    }
  }
  const stageRows = [stageHeader];
  for (const [key, label] of STAGE_LABELS) {
    stageRows.push([label, ...columns.map((col) => String(col.stages[key] ?? '-'))]);
  }
  out.push(table(stageRows));

  const others = f.runs.length > coreCounts.length * 4;
  if (others) {
    out.push('', "every run (the table has each one's shortest):");
    for (const r of f.runs)
      out.push(
        `  round ${r.round} ${r.cores}c ${r.contestant}: ${r.line.seconds} s, ${r.line.rows_per_s ?? '-'} rows/s`,
      );
  }
  const la = (l: number[]) => l.map((n) => n.toFixed(2)).join(' ');
  out.push(
    '',
    `load average (1, 5, 15 min) before ${la(f.loadAverage.before)}, after ${la(f.loadAverage.after)}; bench ${f.benchSeconds} s`,
    `checks: ${JSON.stringify(checks)}`,
    '',
  );
  process.stdout.write(out.join('\n'));
  json.checks = checks;
  json.cpus = f.cpus;
  json.runs = f.runs.map((r) => ({
    contestant: r.contestant,
    cores: r.cores,
    round: r.round,
    seconds: r.line.seconds,
    rows_per_s: r.line.rows_per_s,
  }));
  json.bench_seconds = f.benchSeconds;
  json.load_average = f.loadAverage;
  process.stdout.write(`${JSON.stringify(json)}\n`);
}
