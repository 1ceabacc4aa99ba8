import { mkdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { GetTableCommand, GlueClient, UpdateTableCommand } from '@aws-sdk/client-glue';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it, vi } from 'vitest';
import { tablesRollback } from '../../../lib/cli/commands/tables/rollback';
import type { IOStreams } from '../../../lib/cli/shared/io-streams';
import { startLocalS3 } from '../../integration/stores/local-s3';
import { runInProcess } from '../../support/cli-in-process';
import { runCli } from '../../support/cli-process';
import { useTempDir } from '../../support/test-scope';
import { localS3Env } from '../shared/local-s3-env';
import { writeTableLake } from './table-lake';

interface Listed {
  table: string;
  snapshotId: number;
  operation: string;
  requestId: string | null;
  addedRows: number | null;
  deletedRows: number | null;
  totalRows: number | null;
  rollbackTo: string | null;
  current: boolean;
}

const PER_DAY = 'SELECT dt, count(*)::INTEGER AS n FROM calls GROUP BY dt ORDER BY dt';

describe('report-export tables', () => {
  const dir = useTempDir('tables-cli-');
  let n = 0;
  /** A lake of its own (a rollback changes it): two snapshots of calls. */
  async function lake(): Promise<{ lake: string; first: number; second: number }> {
    const root = path.join(dir(), `lake-${++n}`);
    await mkdir(root);
    return { lake: root, ...(await writeTableLake(root)) };
  }

  it('lists the snapshots oldest first with their run, rows and the current one, when asked for --json and as a table', async () => {
    // Prepare
    const { lake: root, first, second } = await lake();

    // Act
    const json = await runInProcess(['tables', 'snapshots', 'calls', '--dir', root, '--json']);
    const table = await runInProcess(['tables', 'snapshots', '--dir', root]);

    // Assess
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject([
      {
        table: 'calls',
        snapshotId: first,
        operation: 'overwrite',
        requestId: 'req-1',
        addedRows: 9,
        deletedRows: 0,
        totalRows: 9,
        current: false,
      },
      {
        table: 'calls',
        snapshotId: second,
        operation: 'overwrite',
        requestId: 'req-2',
        addedRows: 5,
        deletedRows: 3,
        totalRows: 11,
        current: true,
      },
    ]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^table\s+snapshot\s+committed \(UTC\)\s+operation\s+run\s+request\s+rows added\s+deleted\s+total rows\s+current$/,
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^calls\\s+${first}\\s+\\d{4}-\\d{2}-\\d{2} [\\d:]{8}\\s+overwrite\\s+.*req-1\\s+9\\s+0\\s+9\\s*$`,
      ),
    );
    expect(lines[3]).toMatch(new RegExp(`^calls\\s+${second}\\s.*req-2\\s+5\\s+3\\s+11\\s+current$`));
  });

  it('lists the snapshots of a lake in S3 when --dir is an s3:// URI (the file catalog beside the data)', async () => {
    // Prepare
    const s3 = await startLocalS3('tables-bucket');
    try {
      const { first, second } = await writeTableLake(s3.store());

      // Act: the built program, as the AWS SDK reads its endpoint and credentials from the
      // process's own environment.
      const run = await runCli(['tables', 'snapshots', 'calls', '--dir', 's3://tables-bucket', '--json'], {
        env: localS3Env(s3.endpoint),
      });

      // Assess
      expect(run.stderr).not.toMatch(/report-export:/);
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as Listed[]).map((s) => [s.snapshotId, s.totalRows])).toEqual([
        [first, 9],
        [second, 11],
      ]);
    } finally {
      await s3.close();
    }
  });

  it("lists and rolls back a deployment's tables through Glue when given --catalog glue:<database> and an s3:// --dir", async () => {
    // Prepare: the lake in S3; Glue names its metadata file (as the stack's tables do).
    const s3 = await startLocalS3('glue-lake');
    const glue = mockClient(GlueClient);
    try {
      const { first, second } = await writeTableLake(s3.store());
      const metadataLocation = 's3://glue-lake/tables/calls/metadata/v3.metadata.json';
      // The lake has a calls table only: Glue has no summaries table.
      glue
        .on(GetTableCommand)
        .rejects(Object.assign(new Error('no table'), { name: 'EntityNotFoundException' }));
      glue.on(GetTableCommand, { Name: 'calls' }).resolves({
        Table: {
          Name: 'calls',
          DatabaseName: 'report_export',
          VersionId: '7',
          Parameters: { table_type: 'ICEBERG', metadata_location: metadataLocation },
        },
      });
      glue.on(UpdateTableCommand).resolves({});
      for (const [name, value] of Object.entries(localS3Env(s3.endpoint))) vi.stubEnv(name, value);
      const where = ['--dir', 's3://glue-lake', '--catalog', 'glue:report_export'];

      // Act
      const listed = await runInProcess(['tables', 'snapshots', 'calls', ...where, '--json']);
      const rollback = await runInProcess([
        'tables',
        'rollback',
        'calls',
        String(first),
        ...where,
        '--force',
        '--json',
      ]);

      // Assess
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as Listed[]).map((s) => s.snapshotId)).toEqual([first, second]);
      expect(glue.commandCalls(GetTableCommand)[0]?.args[0].input).toEqual({
        DatabaseName: 'report_export',
        Name: 'calls',
      });
      expect(rollback.code, rollback.stderr).toBe(0);
      expect(JSON.parse(rollback.stdout)).toMatchObject({
        rolledBack: true,
        tables: [{ table: 'calls', targetSnapshotId: first, currentSnapshotId: second, rolledBack: true }],
      });
      const update = glue.commandCalls(UpdateTableCommand)[0]?.args[0].input;
      expect(update).toMatchObject({ DatabaseName: 'report_export', VersionId: '7' });
      expect(update?.TableInput?.Parameters).toMatchObject({
        previous_metadata_location: metadataLocation,
        metadata_location: expect.stringMatching(
          /^s3:\/\/glue-lake\/tables\/calls\/metadata\/00000-.*\.metadata\.json$/,
        ),
      });
    } finally {
      glue.restore();
      vi.unstubAllEnvs();
      await s3.close();
    }
  });

  it('rolls back with a new snapshot, after which query reads the old rows and history keeps every snapshot', async () => {
    // Prepare
    const { lake: root, first, second } = await lake();

    // Act
    const rollback = await runInProcess([
      'tables',
      'rollback',
      'calls',
      String(first),
      '--dir',
      root,
      '--force',
    ]);
    const now = await runInProcess(['query', '--dir', root, '--json', PER_DAY]);
    const before = await runInProcess(['query', '--dir', root, '--as-of', String(second), '--json', PER_DAY]);
    const listed = JSON.parse(
      (await runInProcess(['tables', 'snapshots', 'calls', '--dir', root, '--json'])).stdout,
    ) as Listed[];

    // Assess
    expect(rollback.code).toBe(0);
    const made = listed.at(-1);
    expect(rollback.stdout).toContain(
      `Rolled back calls to snapshot ${first}: new snapshot ${made?.snapshotId}, data files +1 -1, rows +3 -5`,
    );
    expect(rollback.stdout).toMatch(/discarded: \d+ \([^)]*\); the previous snapshot/);
    expect(rollback.stdout).toContain('CSV: 1 partitions rewritten from the restored rows, 0 emptied');
    expect(rollback.stdout).toContain(
      `undo: report-export tables rollback calls ${second} --force --dir ${root}`,
    );
    // The CSV says what the table says: the day's first export again.
    const csvDay = path.join(root, 'calls', 'format=csv', 'report_id=report-1', 'dt=2026-11-21');
    expect(
      (await readFile(path.join(csvDay, 'part-00000.csv'), 'utf8')).trimEnd().split('\r\n'),
    ).toHaveLength(4);
    expect(JSON.parse(now.stdout)).toEqual([
      { dt: '2026-11-20', n: 3 },
      { dt: '2026-11-21', n: 3 },
      { dt: '2026-11-22', n: 3 },
    ]);
    expect(JSON.parse(before.stdout)).toContainEqual({ dt: '2026-11-21', n: 5 });
    expect(listed.map((s) => s.snapshotId)).toEqual([first, second, made?.snapshotId]);
    expect(made).toMatchObject({ rollbackTo: String(first), current: true, totalRows: 9 });
  });

  it('prints the plan and rolls nothing back without --force or --if-current off a terminal (exit 2)', async () => {
    // Prepare
    const { lake: root, first, second } = await lake();

    // Act
    const run = await runInProcess(['tables', 'rollback', String(first), '--dir', root]);
    const confirmed = await runInProcess([
      'tables',
      'rollback',
      String(first),
      '--dir',
      root,
      '--if-current',
      String(second),
    ]);
    const refused = await runInProcess([
      'tables',
      'rollback',
      String(second),
      '--dir',
      root,
      '--if-current',
      String(second),
    ]);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`Plan: the tables back to calls snapshot ${first}`);
    expect(run.stdout).toContain(
      `calls: current ${second} -> snapshot ${first}: 1 partitions change, 5 rows -> 3`,
    );
    expect(run.stdout).toContain(
      `confirm: report-export tables rollback ${first} --if-current ${second} --dir ${root}`,
    );
    expect(run.stderr).toMatch(/nothing rolled back; confirm the plan above with --if-current/);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    // The rollback landed after the snapshot given: a second confirmation with it is stale.
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(`a snapshot changing the table landed after snapshot ${second}`),
    );
  });

  it('asks on a terminal after the plan, and rolls back only when the answer is yes', async () => {
    // Prepare
    const { lake: root, first } = await lake();
    const args = ['tables', 'rollback', String(first), '--dir', root];
    const count = async () =>
      (JSON.parse((await runInProcess(['tables', 'snapshots', '--dir', root, '--json'])).stdout) as unknown[])
        .length;

    // A terminal: stdin a person types into, stderr a stream readline can write the question to.
    const onTerminal = async (answer: string) => {
      let stdout = '';
      let stderr = '';
      const err = new PassThrough();
      err.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const io: IOStreams = {
        stdin: Object.assign(Readable.from([Buffer.from(answer)]), { isTTY: true }),
        stdout: {
          write: (chunk: string) => {
            stdout += chunk;
            return true;
          },
        },
        stderr: err,
        env: { NO_COLOR: '1' },
        cwd: root,
      };
      const code = await tablesRollback(args.slice(2), io);
      return { code, stdout, stderr };
    };

    // Act
    const declined = await onTerminal('no\n');
    const afterDecline = await count();
    const accepted = await onTerminal('yes\n');

    // Assess
    expect(declined.code).toBe(1);
    expect(declined.stdout).toContain(`Plan: the tables back to calls snapshot ${first}`);
    expect(declined.stderr).toContain('Type yes to confirm');
    expect(declined.stderr).toContain('Not confirmed: nothing rolled back');
    expect(afterDecline).toBe(2);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain(`Rolled back calls to snapshot ${first}`);
    expect(await count()).toBe(3);
  });

  it('commits nothing when the table is at that snapshot already', async () => {
    // Prepare
    const { lake: root, second } = await lake();

    // Act
    const run = await runInProcess(['tables', 'rollback', 'calls', String(second), '--dir', root, '--json']);
    const listed = JSON.parse(
      (await runInProcess(['tables', 'snapshots', 'calls', '--dir', root, '--json'])).stdout,
    ) as Listed[];

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      rolledBack: false,
      tables: [{ table: 'calls', currentSnapshotId: second, partitions: [] }],
      confirm: null,
    });
    expect(listed).toHaveLength(2);
  });

  it.each([
    [
      ['rollback', 'calls', '42'],
      /table calls has no snapshot '42' \(snapshots: no table; .*\); list them: report-export tables snapshots --dir /,
    ],
    [['rollback', '42', '--tenant', 'acme'], /no table has snapshot '42'/],
    [['rollback', 'lines', '42'], /tables rollback: unknown table 'lines'; tables: calls, summaries/],
    [['rollback'], /tables rollback takes a snapshot id, optionally after its table/],
    [['rollback', '42', '--force', '--dry-run'], /give one of --dry-run, --if-current and --force/],
    [['snapshots', 'calls', 'summaries'], /takes one table at most/],
    [['snapshots', '--catalog', 'hive'], /--catalog hive: the Hive layout has no tables/],
    [['snapshots', '--catalog', 'glue:lake'], /--catalog glue:lake needs --dir s3:\/\/bucket\/prefix/],
    [['snapshots', '--catalog', 'nessie'], /--catalog/],
    [['drop'], /unknown subcommand 'tables drop'; subcommands: snapshots, rollback/],
  ])('exits 2 naming the problem when argv is tables %j', async (args, message) => {
    // Prepare
    const root = path.join(dir(), 'usage');
    await mkdir(root, { recursive: true });

    // Act
    const run = await runInProcess(['tables', ...args, '--dir', root]);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('says a table has no snapshot yet, and lists nothing, when the lake has no tables', async () => {
    // Prepare
    const root = path.join(dir(), 'empty');
    await mkdir(root, { recursive: true });

    // Act
    const run = await runInProcess(['tables', 'snapshots', '--dir', root]);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      ['calls', 'summaries', 'contacts', 'contact_phones']
        .map((t) => `${t}: no snapshot yet (no table, or no commit)\n`)
        .join(''),
    );
  });
});
