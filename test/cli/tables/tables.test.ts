import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { GetTableCommand, GlueClient, UpdateTableCommand } from '@aws-sdk/client-glue';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it, vi } from 'vitest';
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
      glue.on(GetTableCommand).resolves({
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
      const rollback = await runInProcess(['tables', 'rollback', 'calls', String(first), ...where, '--json']);

      // Assess
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as Listed[]).map((s) => s.snapshotId)).toEqual([first, second]);
      expect(glue.commandCalls(GetTableCommand)[0]?.args[0].input).toEqual({
        DatabaseName: 'report_export',
        Name: 'calls',
      });
      expect(rollback.code, rollback.stderr).toBe(0);
      expect(JSON.parse(rollback.stdout)).toMatchObject({ rolledBackTo: first, previousSnapshotId: second });
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
    const rollback = await runInProcess(['tables', 'rollback', 'calls', String(first), '--dir', root]);
    const now = await runInProcess(['query', '--dir', root, '--json', PER_DAY]);
    const before = await runInProcess(['query', '--dir', root, '--as-of', String(second), '--json', PER_DAY]);
    const listed = JSON.parse(
      (await runInProcess(['tables', 'snapshots', 'calls', '--dir', root, '--json'])).stdout,
    ) as Listed[];

    // Assess
    expect(rollback.code).toBe(0);
    const made = listed.at(-1);
    expect(rollback.stdout).toContain(`Rolled back calls to snapshot ${first}`);
    expect(rollback.stdout).toContain(
      `new snapshot ${made?.snapshotId}: data files +1 -1, rows +3 -5, 9 rows in the table`,
    );
    expect(rollback.stdout).toContain(`undo: report-export tables rollback calls ${second} --dir ${root}`);
    expect(JSON.parse(now.stdout)).toEqual([
      { dt: '2026-11-20', n: 3 },
      { dt: '2026-11-21', n: 3 },
      { dt: '2026-11-22', n: 3 },
    ]);
    expect(JSON.parse(before.stdout)).toContainEqual({ dt: '2026-11-21', n: 5 });
    expect(listed.map((s) => s.snapshotId)).toEqual([first, second, made?.snapshotId]);
    expect(made).toMatchObject({ rollbackTo: String(first), current: true, totalRows: 9 });
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
    expect(JSON.parse(run.stdout)).toEqual({ table: 'calls', snapshotId: second, rolledBack: false });
    expect(listed).toHaveLength(2);
  });

  it.each([
    [
      ['rollback', 'calls', '42'],
      /table calls has no snapshot '42' \(it has 0; .*\); list them: report-export tables snapshots calls --dir /,
    ],
    [['rollback', 'lines', '42'], /tables rollback: unknown table 'lines'; tables: calls, summaries/],
    [['rollback', 'calls'], /tables rollback takes a table and a snapshot id/],
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
      'calls: no snapshot yet (no table, or no commit)\nsummaries: no snapshot yet (no table, or no commit)\n',
    );
  });
});
