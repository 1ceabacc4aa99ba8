import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AccessDeniedException,
  AlreadyExistsException,
  ConcurrentModificationException,
  CreateTableCommand,
  EntityNotFoundException,
  GetTableCommand,
  GlueClient,
  type Table,
  UpdateTableCommand,
} from '@aws-sdk/client-glue';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CatalogColumn,
  CatalogRequestError,
  CommitConflictError,
  CommitStateUnknownError,
  LocalDirectoryStore,
  listAll,
  readObject,
} from '../../../lib/stores';
import { GlueCatalog } from '../../../lib/stores/aws';

const DATABASE = 'report_lake';
const CALLS = { namespace: '', name: 'calls' };
const COLUMNS: CatalogColumn[] = [
  { name: 'call_id', type: 'string', fieldId: 1, required: false, comment: 'the call' },
  { name: 'dt', type: 'date', fieldId: 2, required: true },
];
const meta = { $metadata: { httpStatusCode: 400 }, message: 'refused' };

describe('GlueCatalog', () => {
  let root: string;
  let store: LocalDirectoryStore;
  let location: string;
  let base: { metadataLocation: string; version: string };
  let ours: string;
  let commit: { metadata: string; location: string; columns: CatalogColumn[] };
  const glue = mockClient(GlueClient);

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'glue-catalog-'));
    store = new LocalDirectoryStore(root);
    location = `${store.rootUri}/lake/tables/calls`;
    base = { metadataLocation: `${location}/metadata/00003-aaaa.metadata.json`, version: '7' };
    ours = `${location}/metadata/00004-b0c1d2e3.metadata.json`;
    commit = { metadata: '{"format-version":2}', location, columns: COLUMNS };
    glue.reset();
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const catalog = () =>
    new GlueCatalog({
      client: new GlueClient({ region: 'eu-west-1' }),
      store,
      database: DATABASE,
      newId: () => 'b0c1d2e3',
    });
  /** The table as GetTable shows it at `version`, its metadata `file`. */
  const shown = (version: string, file: string): { Table: Table } => ({
    Table: {
      Name: 'calls',
      DatabaseName: DATABASE,
      Description: 'Calls, one row per call',
      TableType: 'EXTERNAL_TABLE',
      VersionId: version,
      Parameters: {
        table_type: 'ICEBERG',
        metadata_location: `${location}/metadata/${file}`,
        'write.parquet.compression-codec': 'zstd',
      },
      StorageDescriptor: {
        Location: location,
        Columns: [{ Name: 'call_id', Type: 'string' }],
        SerdeInfo: { SerializationLibrary: 'org.apache.iceberg.mr.hive.HiveIcebergSerDe' },
      },
    },
  });
  const files = async () => (await listAll(store, 'lake/')).map((o) => o.key);

  it('loads the metadata location and the VersionId GetTable shows', async () => {
    // Prepare
    glue.on(GetTableCommand).resolves(shown('7', '00003-aaaa.metadata.json'));

    // Act
    const loaded = await catalog().load(CALLS);

    // Assess
    expect(loaded).toEqual(base);
    expect(glue.commandCalls(GetTableCommand)[0]?.args[0].input).toEqual({
      DatabaseName: DATABASE,
      Name: 'calls',
    });
  });

  it.each([
    { name: 'there is no such table', answer: 'missing' },
    { name: 'the table is not an Iceberg table', answer: 'hive' },
  ])('loads undefined or refuses when $name', async ({ answer }) => {
    // Prepare
    if (answer === 'missing') glue.on(GetTableCommand).rejects(new EntityNotFoundException(meta));
    else glue.on(GetTableCommand).resolves({ Table: { Name: 'calls', VersionId: '1', Parameters: {} } });

    // Act
    const loaded = await catalog()
      .load(CALLS)
      .catch((e: unknown) => e);

    // Assess
    if (answer === 'missing') expect(loaded).toBeUndefined();
    else expect(loaded).toBeInstanceOf(CatalogRequestError);
  });

  it('writes the next metadata file and moves the table with UpdateTable at the VersionId read', async () => {
    // Prepare
    glue
      .on(GetTableCommand)
      .resolvesOnce(shown('7', '00003-aaaa.metadata.json'))
      .resolves(shown('8', '00004-b0c1d2e3.metadata.json'));
    glue.on(UpdateTableCommand).resolves({});

    // Act
    const next = await catalog().commit(CALLS, base, commit);

    // Assess
    expect(next).toEqual({ metadataLocation: ours, version: '8' });
    expect(
      Buffer.from(
        await readObject(store, 'lake/tables/calls/metadata/00004-b0c1d2e3.metadata.json'),
      ).toString(),
    ).toBe(commit.metadata);
    expect(glue.commandCalls(UpdateTableCommand).map((c) => c.args[0].input)).toEqual([
      {
        DatabaseName: DATABASE,
        VersionId: '7',
        SkipArchive: true,
        TableInput: {
          Name: 'calls',
          Description: 'Calls, one row per call',
          TableType: 'EXTERNAL_TABLE',
          Parameters: {
            'write.parquet.compression-codec': 'zstd',
            table_type: 'ICEBERG',
            metadata_location: ours,
            previous_metadata_location: base.metadataLocation,
          },
          StorageDescriptor: {
            Location: location,
            SerdeInfo: { SerializationLibrary: 'org.apache.iceberg.mr.hive.HiveIcebergSerDe' },
            Columns: [
              {
                Name: 'call_id',
                Type: 'string',
                Comment: 'the call',
                Parameters: {
                  'iceberg.field.id': '1',
                  'iceberg.field.optional': 'true',
                  'iceberg.field.current': 'true',
                },
              },
              {
                Name: 'dt',
                Type: 'date',
                Parameters: {
                  'iceberg.field.id': '2',
                  'iceberg.field.optional': 'false',
                  'iceberg.field.current': 'true',
                },
              },
            ],
          },
        },
      },
    ]);
  });

  it('never overwrites a metadata file: one of its name with other contents refuses the commit, untouched', async () => {
    // Prepare: an object already at the name the commit would write.
    glue.on(GetTableCommand).resolves(shown('7', '00003-aaaa.metadata.json'));
    glue.on(UpdateTableCommand).resolves({});
    const key = 'lake/tables/calls/metadata/00004-b0c1d2e3.metadata.json';
    await store.put(key, '{"someone":"else"}');

    // Act
    const error = await catalog()
      .commit(CALLS, base, commit)
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(CatalogRequestError);
    expect(Buffer.from(await readObject(store, key)).toString('utf8')).toBe('{"someone":"else"}');
    expect(glue.commandCalls(UpdateTableCommand)).toHaveLength(0);
  });

  it('refuses with CommitConflictError and writes nothing when the table moved before the commit', async () => {
    // Prepare
    glue.on(GetTableCommand).resolves(shown('8', '00004-other.metadata.json'));

    // Act
    const error = await catalog()
      .commit(CALLS, base, commit)
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(CommitConflictError);
    expect(glue.commandCalls(UpdateTableCommand)).toHaveLength(0);
    expect(await files()).toEqual([]);
  });

  it('refuses with CommitConflictError and deletes its metadata file when UpdateTable meets a concurrent commit', async () => {
    // Prepare
    glue
      .on(GetTableCommand)
      .resolvesOnce(shown('7', '00003-aaaa.metadata.json'))
      .resolves(shown('8', '00004-other.metadata.json'));
    glue.on(UpdateTableCommand).rejects(new ConcurrentModificationException(meta));

    // Act
    const error = await catalog()
      .commit(CALLS, base, commit)
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(CommitConflictError);
    expect(error).toMatchObject({
      code: 'CATALOG_COMMIT_CONFLICT',
      table: { namespace: DATABASE, name: 'calls' },
    });
    expect(await files()).toEqual([]);
  });

  it('commits when the concurrent commit UpdateTable met was its own retried request', async () => {
    // Prepare: the SDK's retry of a request that had succeeded meets the version it made.
    glue
      .on(GetTableCommand)
      .resolvesOnce(shown('7', '00003-aaaa.metadata.json'))
      .resolves(shown('8', '00004-b0c1d2e3.metadata.json'));
    glue.on(UpdateTableCommand).rejects(new ConcurrentModificationException(meta));

    // Act
    const next = await catalog().commit(CALLS, base, commit);

    // Assess
    expect(next).toEqual({ metadataLocation: ours, version: '8' });
    expect(await files()).toEqual(['lake/tables/calls/metadata/00004-b0c1d2e3.metadata.json']);
  });

  it('throws CommitStateUnknownError and keeps its metadata file when UpdateTable gets no answer', async () => {
    // Prepare
    glue.on(GetTableCommand).resolves(shown('7', '00003-aaaa.metadata.json'));
    glue.on(UpdateTableCommand).rejects(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));

    // Act
    const error = await catalog()
      .commit(CALLS, base, commit)
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(CommitStateUnknownError);
    expect(await files()).toEqual(['lake/tables/calls/metadata/00004-b0c1d2e3.metadata.json']);
  });

  it('names the permission and deletes its metadata file when UpdateTable is denied', async () => {
    // Prepare
    glue.on(GetTableCommand).resolves(shown('7', '00003-aaaa.metadata.json'));
    glue.on(UpdateTableCommand).rejects(new AccessDeniedException(meta));

    // Act
    const error = await catalog()
      .commit(CALLS, base, commit)
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(CatalogRequestError);
    expect(String(error)).toContain(`glue:UpdateTable on arn:aws:glue:*:*:table/${DATABASE}/calls`);
    expect(await files()).toEqual([]);
  });

  it('registers a new table with CreateTable when there is no base', async () => {
    // Prepare
    const created = `${location}/metadata/00000-b0c1d2e3.metadata.json`;
    glue
      .on(GetTableCommand)
      .rejectsOnce(new EntityNotFoundException(meta))
      .resolves(shown('0', '00000-b0c1d2e3.metadata.json'));
    glue.on(CreateTableCommand).resolves({});

    // Act
    const first = await catalog().commit(CALLS, undefined, commit);

    // Assess
    expect(first).toEqual({ metadataLocation: created, version: '0' });
    expect(glue.commandCalls(CreateTableCommand)[0]?.args[0].input).toMatchObject({
      DatabaseName: DATABASE,
      TableInput: {
        Name: 'calls',
        TableType: 'EXTERNAL_TABLE',
        Parameters: { table_type: 'ICEBERG', metadata_location: created },
        StorageDescriptor: { Location: location },
      },
    });
    const input = glue.commandCalls(CreateTableCommand)[0]?.args[0].input;
    expect(input?.TableInput?.Parameters).not.toHaveProperty('previous_metadata_location');
  });

  it('refuses with CommitConflictError and deletes its file when CreateTable finds the table', async () => {
    // Prepare
    glue.on(GetTableCommand).rejects(new EntityNotFoundException(meta));
    glue.on(CreateTableCommand).rejects(new AlreadyExistsException(meta));

    // Act
    const error = await catalog()
      .commit(CALLS, undefined, commit)
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(CommitConflictError);
    expect(await files()).toEqual([]);
  });

  it('refuses a table of another database than the catalog', async () => {
    // Act
    const error = await catalog()
      .load({ namespace: 'other_db', name: 'calls' })
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(CatalogRequestError);
    expect(glue.commandCalls(GetTableCommand)).toHaveLength(0);
  });
});
