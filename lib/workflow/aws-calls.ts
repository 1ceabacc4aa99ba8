import {
  backupKey,
  COMMIT_REQUESTS_FOLDER,
  CONTACT_DATASETS,
  type ContactDataset,
  DATASETS,
  type Dataset,
  dataFileKey,
  directoryDataPrefix,
  directoryLeaseName,
  manifestKey,
  OUTPUT_FORMATS,
  type OutputFormat,
  type OutputLayout,
  partitionPrefix,
  partKey,
  stagedDirectorySyncKey,
  stagedKey,
  stagedRunKey,
  stagingRoot,
} from '../export';
import {
  AWS_CALLS,
  type AwsCallName,
  type CatalogSetting,
  type IamPermission,
  parseCatalogSetting,
  STORE_OPERATION_CALLS,
  type TargetOf,
  tableRootKey,
  versionHintKey,
  versionMetadataKey,
} from '../stores';
import { DEFAULT_LEASE_PREFIX, leaseObjectKey, metadataName, parseS3Uri } from '../stores/aws';
import { contactsLease } from './commit-task';
import { directorySyncReportKey } from './directory-sync-task';
import { publishLease } from './export-task';
import { runRecordKey, runRecordsPrefix } from './run-record';
import { DEFAULT_TABLE_CATALOG } from './runtime';
import { tokenRefreshLease } from './service-secret';
import { tenantEntryKey } from './tenant-registry';

/**
 * Which AWS calls the workflow makes, with the real keys and ARNs: the store operations
 * each handler performs (on the locations its environment names), expanded through the
 * stores' own call table (lib/stores/aws-calls.ts), and the calls of the state machine.
 * test/infra/iam-evaluation.test.ts evaluates every one against the synthesized roles.
 * test/e2e/workflow/aws-calls-coverage.test.ts records the store operations of real
 * executions and fails on any this list does not declare for the function that made it.
 */

/** The workflow's functions, one per Lambda task. */
export const WORKFLOW_FUNCTIONS = [
  'plan',
  'requestReport',
  'checkStatus',
  'exportResults',
  'syncDirectories',
  'commit',
  'finalize',
] as const;
export type WorkflowFunctionName = (typeof WORKFLOW_FUNCTIONS)[number];

/** The environment a handler finds its stores and reports in (lib/workflow/runtime.ts, settings.ts). */
export interface StoreEnvironment {
  readonly OBJECT_STORE_URI: string;
  readonly LEASE_STORE_URI: string;
  readonly SECRET_URI: string;
  /** JSON list of `{ id, name }`. */
  readonly REPORTS: string;
  readonly CSV_GZIP?: string;
  /** `glue:<database>`, `file` or `hive` (lib/workflow/runtime.ts); absent: DEFAULT_TABLE_CATALOG. */
  readonly TABLE_CATALOG?: string;
}

/** An Iceberg table of the lake: a report dataset's, or a contact table (the directory sync's). */
type LakeTable = Dataset | ContactDataset;

/** One use of a store by a handler: the adapter operation and what it acts on. */
export type StoreUse = { readonly why: string } & (
  | { readonly store: 'objects'; readonly operation: KeyOperation; readonly key: string }
  | { readonly store: 'objects'; readonly operation: 'list'; readonly prefix: string }
  | {
      readonly store: 'objects';
      readonly operation: 'copy';
      readonly fromKey: string;
      readonly toKey: string;
    }
  | { readonly store: 'leases'; readonly operation: 'acquire' | 'release'; readonly key: string }
  | { readonly store: 'secret'; readonly operation: 'get' | 'put' }
  /** The tenant registry (TENANT_REGISTRY_URI), on an entry's key. */
  | { readonly store: 'registry'; readonly operation: 'get'; readonly key: string }
  | {
      readonly store: 'catalog';
      /** The Glue catalog's operations (lib/stores/aws-calls.ts, `glueCatalog`); not `create`: the stack creates the tables. */
      readonly operation: 'load' | 'commit';
      /** The table, in TABLE_CATALOG's database. */
      readonly table: LakeTable;
    }
);

/** One AWS call a principal makes, with the permissions it needs. */
export interface DeclaredCall {
  readonly why: string;
  /** The stores' call (lib/stores/aws-calls.ts), or the service API for calls outside the stores. */
  readonly call: string;
  readonly permissions: readonly IamPermission[];
}

/**
 * Sample values the key layout is filled with: every date and run lands under the same
 * prefixes. test/e2e/workflow/aws-calls-coverage.test.ts turns each into a wildcard (with
 * the part numbers) to match the keys real executions use against these declarations.
 */
export const SAMPLE = {
  dt: '2026-11-18',
  runId: 'req-7f3a-0a1b2c3d',
  executionName: 'nightly-2026-11-19',
  startedAt: '2026-11-19T02:00:00.000Z',
  /** A data file's attempt: 8 random hex digits (table-publish.ts). */
  attempt: 'e4f5a6b7',
  /** A commit's uuid in its manifests' and manifest list's names, and a Glue metadata file's. */
  uuid: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
  /** A snapshot id in its manifest list's name. */
  snapshotId: 5318008271828182,
  /** A staged commit's id (32 hex digits of a hash of its runs), its record's name under `_commits/`. */
  commitId: '7c3e9a1b5d2f4e6a8c0b1d3f5a7e9c2b',
  /** A contact directory's id (the service's GUIDs): its partition of the contact tables. */
  directoryId: '3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b',
  /** A directory sync's data file's content id: 32 hex digits of its SHA-256 (lib/export/contacts/sync.ts). */
  contentId: '5d41402abc4b2a76b9719d911017c592',
} as const;

/** Every task that calls the service reads the token, and refreshes it under a lease (its secret's). */
function tokenUses(tenant: string | undefined): StoreUse[] {
  const lease = tokenRefreshLease(tenant);
  return [
    { why: 'read the access token', store: 'secret', operation: 'get' },
    { why: 'take the token refresh lease', store: 'leases', operation: 'acquire', key: lease },
    { why: 'store the refreshed tokens', store: 'secret', operation: 'put' },
    { why: 'release the token refresh lease', store: 'leases', operation: 'release', key: lease },
  ];
}

type KeyOperation = 'put' | 'putIfAbsent' | 'putFile' | 'putFileIfAbsent' | 'head' | 'get' | 'deleteMany';
const onKey = (operation: KeyOperation, why: string, key: string): StoreUse => ({
  why,
  store: 'objects',
  operation,
  key,
});
const copy = (why: string, fromKey: string, toKey: string): StoreUse => ({
  why,
  store: 'objects',
  operation: 'copy',
  fromKey,
  toKey,
});
const list = (why: string, prefix: string): StoreUse => ({
  why,
  store: 'objects',
  operation: 'list',
  prefix,
});

/**
 * ExportResults on one report's partition of the sample date: the publish protocol's steps
 * (publish.ts) for `formats` (both in the Hive layout, which publishes at once): staged
 * under the partition's lease, then promoted.
 */
function exportUses(layout: TenantLayout, formats: readonly OutputFormat[]): StoreUse[] {
  return [...stageUses(layout, formats), ...formats.flatMap((format) => promoteUses(layout, format))];
}

/** Staging a report's partition (its lease held): the run's staging area cleaned, each part staged. */
function stageUses(layout: TenantLayout, formats: readonly OutputFormat[]): StoreUse[] {
  const { dt, runId } = SAMPLE;
  const lease = publishLease(layout.reportId, dt, layout.tenant);
  return [
    { why: 'take the partition lease', store: 'leases', operation: 'acquire', key: lease },
    { why: 'release the partition lease', store: 'leases', operation: 'release', key: lease },
    list('clean the staging area', `${stagingRoot(layout, runId)}/`),
    ...formats.flatMap((format) => {
      const staged = stagedKey(layout, runId, partKey(layout, format, dt, 0));
      return [
        onKey('putFile', `stage a ${format} part`, staged),
        onKey('head', `check the staged ${format} part's size`, staged),
        onKey('deleteMany', `delete the ${format} staging`, staged),
      ];
    }),
  ];
}

/** Promoting a staged partition of one format (publish.ts): backed up, copied in, rolled back on failure. */
function promoteUses(layout: TenantLayout, format: OutputFormat): StoreUse[] {
  const { dt, runId } = SAMPLE;
  const part = partKey(layout, format, dt, 0);
  const staged = stagedKey(layout, runId, part);
  const manifest = manifestKey(layout, format, dt);
  return [
    onKey('head', `check the staged ${format} part's size`, staged),
    list(`list the ${format} partition`, `${partitionPrefix(layout, format, dt)}/`),
    copy(`back up the ${format} partition's part`, part, backupKey(layout, runId, part)),
    copy(`back up the ${format} partition's manifest`, manifest, backupKey(layout, runId, manifest)),
    copy(`promote the staged ${format} part`, staged, part),
    onKey('put', `write the ${format} manifest`, manifest),
    ...(format === OUTPUT_FORMATS.parquet
      ? [onKey('get', 'read the published rows (shrink guard)', manifest)]
      : []),
    onKey('deleteMany', `delete a stale ${format} part`, partKey(layout, format, dt, 1)),
    copy(`roll back the ${format} part`, backupKey(layout, runId, part), part),
    copy(`roll back the ${format} manifest`, backupKey(layout, runId, manifest), manifest),
    onKey('deleteMany', `roll back a new ${format} manifest`, manifest),
    onKey('deleteMany', `delete the ${format} staging`, staged),
    onKey('deleteMany', `delete the backup of the ${format} part`, backupKey(layout, runId, part)),
    onKey('deleteMany', `delete the backup of the ${format} manifest`, backupKey(layout, runId, manifest)),
  ];
}

/**
 * The file catalog's uses of a table's metadata folder (lib/stores/file-catalog.ts): reading
 * it, and with `writes` (the committer: PrepareTables creating or evolving it, Commit's
 * snapshots) writing its next version. A job's export only reads it.
 */
function fileCatalogUses(root: string, dataset: LakeTable, writes: boolean): StoreUse[] {
  const version = versionMetadataKey(root, 1);
  return [
    onKey('get', `read the ${dataset} table's version hint`, versionHintKey(root)),
    onKey('head', `look for the ${dataset} table's next versions`, version),
    list(`list the ${dataset} table's versions (no usable hint)`, `${root}/metadata/v`),
    onKey('get', `read the ${dataset} table's metadata`, version),
    ...(writes
      ? [
          onKey('putIfAbsent', `create or commit to the ${dataset} table (its next version)`, version),
          onKey('put', `write the ${dataset} table's version hint`, versionHintKey(root)),
        ]
      : []),
  ];
}

/**
 * The Glue catalog's calls on a table, and its uses of the metadata files
 * (lib/stores/glue-catalog.ts): loading it, and with `writes` (the committer) committing to
 * it, its metadata created only where none is (If-None-Match).
 */
function glueCatalogUses(root: string, dataset: LakeTable, writes: boolean): StoreUse[] {
  const metadata = `${root}/metadata/${metadataName(undefined, SAMPLE.uuid)}`;
  return [
    {
      why: `read the ${dataset} table's metadata location`,
      store: 'catalog',
      operation: 'load',
      table: dataset,
    },
    onKey('get', `read the ${dataset} table's metadata`, metadata),
    ...(writes
      ? [
          onKey('putIfAbsent', `write the ${dataset} table's next metadata`, metadata),
          {
            why: `commit to the ${dataset} table`,
            store: 'catalog',
            operation: 'commit',
            table: dataset,
          } as const,
          onKey('deleteMany', `delete the ${dataset} table's metadata of a refused commit`, metadata),
        ]
      : []),
  ];
}

/**
 * A table read (ExportResults' check that PrepareTables made it ready, its shrink guard and
 * shape check: the catalog, the manifest list, the manifests) and, by the committer, written:
 * its schema by PrepareTables (a metadata version and the catalog's swap), and each
 * execution's snapshot by Commit, its manifests and manifest list
 * created (named as lib/export/table/snapshot-builder.ts names them) only where none is,
 * what an attempt that did not land wrote deleted, and in a multi-tenant lake the grouped
 * commit's requests (`groupedFor`: the tenant; a contact table's commit is never grouped).
 */
function tableUses(
  root: string,
  dataset: LakeTable,
  catalog: Exclude<CatalogSetting, { kind: 'hive' }>,
  committer: { readonly groupedFor: string | undefined } | undefined,
): StoreUse[] {
  const manifest = `${root}/metadata/${SAMPLE.uuid}-m0.avro`;
  const manifestList = `${root}/metadata/snap-${SAMPLE.snapshotId}-1-${SAMPLE.uuid}.avro`;
  const writes = committer !== undefined;
  return [
    ...(catalog.kind === 'file'
      ? fileCatalogUses(root, dataset, writes)
      : glueCatalogUses(root, dataset, writes)),
    onKey('get', `read the ${dataset} table's manifest list`, manifestList),
    onKey('get', `read the ${dataset} table's manifests`, manifest),
    ...(committer === undefined
      ? []
      : [
          onKey('putIfAbsent', `write a ${dataset} table's manifest`, manifest),
          onKey('putIfAbsent', `write the ${dataset} table's manifest list`, manifestList),
          onKey('deleteMany', `delete the manifests of a ${dataset} commit that did not land`, manifest),
          onKey(
            'deleteMany',
            `delete the manifest list of a ${dataset} commit that did not land`,
            manifestList,
          ),
          ...(committer.groupedFor === undefined
            ? []
            : commitRequestUses(root, dataset, committer.groupedFor)),
        ]),
  ];
}

/**
 * A tenant's grouped commit, by the committer (lib/export/table/group-commit.ts): its commit
 * request written, the table's pending requests listed, sized and read, an invalid one moved
 * aside (commit-requests-invalid/), the committed ones deleted. The requests of other
 * tenants it reads and deletes are keyed alike (`<id>.<tenant>.json`).
 */
function commitRequestUses(root: string, dataset: LakeTable, tenant: string): StoreUse[] {
  const folder = `${root}/${COMMIT_REQUESTS_FOLDER}/`;
  const request = `${folder}${SAMPLE.uuid}.${tenant}.json`;
  const setAside = `${root}/${COMMIT_REQUESTS_FOLDER}-invalid/${SAMPLE.uuid}.${tenant}.json`;
  return [
    onKey('put', `write the run's ${dataset} commit request`, request),
    list(`list the ${dataset} table's commit requests`, folder),
    onKey('head', `check a pending ${dataset} commit request's size`, request),
    onKey('get', `read a pending ${dataset} commit request`, request),
    onKey('putIfAbsent', `set an invalid ${dataset} commit request aside`, setAside),
    onKey('deleteMany', `delete the ${dataset} commit requests a commit carried`, request),
  ];
}

/** ExportResults's Parquet data files of one report in one dataset's table (table-publish.ts). */
function dataFileUses(root: string, layout: TenantLayout): StoreUse[] {
  const { dataset, reportId } = layout;
  const file = {
    reportId,
    dt: SAMPLE.dt,
    runId: SAMPLE.runId,
    attempt: SAMPLE.attempt,
    part: 0,
    ...(layout.tenant === undefined ? {} : { tenant: layout.tenant }),
  };
  const key = dataFileKey(root, file);
  return [
    // Create-only (If-None-Match), never deleted by the run: a committed file cannot be
    // swapped or removed, and a failed run's files are orphans for Glue's orphan deletion.
    onKey('putFileIfAbsent', `write a ${dataset} data file`, key),
    onKey('head', `check a ${dataset} data file's size`, key),
    // The shrink guard counts a published summary day's calls in its files.
    ...(dataset === DATASETS.summaries ? [onKey('get', 'read the published calls (shrink guard)', key)] : []),
  ];
}

/** What a run's keys derive from: the lake, its reports and catalog, and its tenant if any. */
interface RunKeys {
  readonly prefix: string;
  readonly reports: readonly { readonly id: string }[];
  readonly csvGzip: boolean;
  readonly catalog: CatalogSetting;
  readonly tenant?: string;
}

/** A report's layout in a dataset, with the run's tenant (its keys under `tenant=<t>/`). */
type TenantLayout = OutputLayout & { readonly tenant?: string };

/** The layouts of a run's reports, one per report and dataset. */
function runLayouts(run: RunKeys): TenantLayout[] {
  const csvExtension = run.csvGzip ? '.csv.gz' : '.csv';
  return run.reports.flatMap((r) =>
    Object.values(DATASETS).map(
      (dataset): TenantLayout => ({
        prefix: run.prefix,
        dataset,
        reportId: r.id,
        csvExtension,
        ...(run.tenant === undefined ? {} : { tenant: run.tenant }),
      }),
    ),
  );
}

/**
 * ExportResults's store uses for the reports and the catalog of its run: the Hive layout
 * publishes at once; beside tables it stages the CSV and writes the data files and its
 * staged run, reads the tables (never writes their metadata: PrepareTables made them ready)
 * and leaves the rest to Commit.
 */
function exportResultsUses(run: RunKeys): StoreUse[] {
  const { prefix, catalog } = run;
  const layouts = runLayouts(run);
  if (catalog.kind === 'hive')
    return layouts.flatMap((layout) => exportUses(layout, Object.values(OUTPUT_FORMATS)));
  const staging = { prefix, ...(run.tenant === undefined ? {} : { tenant: run.tenant }) };
  return [
    ...layouts.flatMap((layout) => [
      ...stageUses(layout, [OUTPUT_FORMATS.csv]),
      ...dataFileUses(tableRootKey(prefix, layout.dataset), layout),
    ]),
    onKey('put', 'write the staged run for the Commit task', stagedRunKey(staging, SAMPLE.runId)),
    ...Object.values(DATASETS).flatMap((dataset) =>
      tableUses(tableRootKey(prefix, dataset), dataset, catalog, undefined),
    ),
  ];
}

/**
 * A contact table's data file of the sample directory, as the directory sync names it
 * (lib/export/contacts/sync.ts): `<run>-<attempt>-<content id>.parquet` in the directory's
 * partition (the tenant's in a multi-tenant lake).
 */
function contactDataFileKey(prefix: string, table: ContactDataset, tenant: string | undefined): string {
  const partition = directoryDataPrefix(tableRootKey(prefix, table), tenant, SAMPLE.directoryId);
  return `${partition}/${SAMPLE.runId}-${SAMPLE.attempt}-${SAMPLE.contentId}.parquet`;
}

/**
 * SyncDirectories' store uses ('defer': lib/export/contacts/sync.ts, directory-sync-task.ts):
 * the contact tables read (never written: the committer prepared them), a directory's
 * partition of `contacts` read back to version it, each changed partition's data file
 * created only (If-None-Match, its size the put's answer), a staged sync per changed
 * directory and the sync's report for Commit and Finalize, in the run's staging area.
 */
function syncDirectoriesUses(run: RunKeys): StoreUse[] {
  const { prefix, catalog, tenant } = run;
  if (catalog.kind === 'hive') return []; // no contact table: the sync skips
  const contactTables = Object.values(CONTACT_DATASETS);
  return [
    ...contactTables.flatMap((table) => tableUses(tableRootKey(prefix, table), table, catalog, undefined)),
    onKey(
      'get',
      "read a directory's versions (its contacts partition)",
      contactDataFileKey(prefix, CONTACT_DATASETS.contacts, tenant),
    ),
    ...contactTables.map((table) =>
      onKey('putIfAbsent', `write a ${table} data file`, contactDataFileKey(prefix, table, tenant)),
    ),
    onKey(
      'put',
      "stage a directory's sync for the Commit task",
      stagedDirectorySyncKey(prefix, tenant, SAMPLE.runId, SAMPLE.directoryId),
    ),
    onKey('put', "write the sync's report", directorySyncReportKey(prefix, tenant, SAMPLE.runId)),
  ];
}

/**
 * Commit's landing of the staged directory syncs (lib/export/publish/commit-staged-syncs.ts):
 * the sync's report read, each staged sync sized and read, its data files sized and read
 * (their footers and keys checked), the directories' partition leases, one plain commit per
 * contact table (created or evolved by PrepareTables before), the staged syncs removed.
 */
function commitContactsUses(run: RunKeys, catalog: Exclude<CatalogSetting, { kind: 'hive' }>): StoreUse[] {
  const { prefix, tenant } = run;
  const staged = stagedDirectorySyncKey(prefix, tenant, SAMPLE.runId, SAMPLE.directoryId);
  const lease = contactsLease(directoryLeaseName(SAMPLE.directoryId), tenant);
  return [
    onKey('get', "read the sync's report", directorySyncReportKey(prefix, tenant, SAMPLE.runId)),
    onKey('head', "check a staged directory sync's size", staged),
    onKey('get', 'read a staged directory sync', staged),
    { why: "take a directory's partition lease", store: 'leases', operation: 'acquire', key: lease },
    { why: "release a directory's partition lease", store: 'leases', operation: 'release', key: lease },
    ...Object.values(CONTACT_DATASETS).flatMap((table) => {
      const file = contactDataFileKey(prefix, table, tenant);
      return [
        onKey('head', `check a staged ${table} data file's size`, file),
        onKey('get', `read a staged ${table} data file`, file),
        ...tableUses(tableRootKey(prefix, table), table, catalog, { groupedFor: undefined }),
      ];
    }),
    onKey('deleteMany', 'remove a landed staged directory sync', staged),
  ];
}

/**
 * The Commit function's store uses, as the committer: PrepareTables' (each table loaded, and
 * created or its schema evolved: tableUses' writes) and Commit's (lib/export/publish/commit-staged.ts): each staged
 * run sized and read, its data files sized and their footers read, its staged CSV sized; the
 * partitions' leases; the CSV promoted; one commit per table; the staging removed; the
 * commit's record kept for a retry (`_commits/`); then the staged directory syncs landed
 * (commitContactsUses).
 */
function commitUses(run: RunKeys): StoreUse[] {
  const { prefix, catalog } = run;
  if (catalog.kind === 'hive') return [];
  const staging = { prefix, ...(run.tenant === undefined ? {} : { tenant: run.tenant }) };
  const stagedRun = stagedRunKey(staging, SAMPLE.runId);
  const record = [
    prefix,
    '_commits',
    ...(run.tenant === undefined ? [] : [`tenant=${run.tenant}`]),
    `${SAMPLE.commitId}.json`,
  ]
    .filter((p) => p !== '')
    .join('/');
  return [
    onKey('get', "look for the commit's record (a retry)", record),
    onKey('put', "keep the commit's record", record),
    onKey('head', "check the staged run's size", stagedRun),
    onKey('get', 'read the staged run', stagedRun),
    list("list the run's staging (removed once committed)", `${stagingRoot(staging, SAMPLE.runId)}/`),
    onKey('deleteMany', "remove the run's staging", stagedRun),
    ...runLayouts(run).flatMap((layout) => {
      const lease = publishLease(layout.reportId, SAMPLE.dt, layout.tenant);
      const file = dataFileKey(tableRootKey(prefix, layout.dataset), {
        reportId: layout.reportId,
        dt: SAMPLE.dt,
        runId: SAMPLE.runId,
        attempt: SAMPLE.attempt,
        part: 0,
        ...(layout.tenant === undefined ? {} : { tenant: layout.tenant }),
      });
      return [
        { why: 'take the partition lease', store: 'leases', operation: 'acquire', key: lease } as const,
        { why: 'release the partition lease', store: 'leases', operation: 'release', key: lease } as const,
        onKey('head', `check a staged ${layout.dataset} data file's size`, file),
        onKey('get', `read a staged ${layout.dataset} data file's footer`, file),
        // An older run never replaces a day a newer export published (its manifest's exportedAt).
        onKey(
          'head',
          "size a published day's CSV manifest",
          manifestKey(layout, OUTPUT_FORMATS.csv, SAMPLE.dt),
        ),
        onKey(
          'get',
          "read a published day's CSV manifest",
          manifestKey(layout, OUTPUT_FORMATS.csv, SAMPLE.dt),
        ),
        ...promoteUses(layout, OUTPUT_FORMATS.csv),
      ];
    }),
    ...Object.values(DATASETS).flatMap((dataset) =>
      tableUses(tableRootKey(prefix, dataset), dataset, catalog, { groupedFor: run.tenant }),
    ),
    ...commitContactsUses(run, catalog),
  ];
}

/** The store operations of a handler's run, on the keys the run and the key layout give. */
function runStoreUses(fn: WorkflowFunctionName, run: RunKeys): StoreUse[] {
  const tenant = run.tenant === undefined ? {} : { tenant: run.tenant };
  switch (fn) {
    case 'plan':
      return []; // validates the input and plans: no store, no service
    case 'requestReport':
    case 'checkStatus':
      return tokenUses(run.tenant);
    case 'exportResults':
      return [...tokenUses(run.tenant), ...exportResultsUses(run)];
    case 'syncDirectories':
      return [...tokenUses(run.tenant), ...syncDirectoriesUses(run)];
    case 'commit':
      return commitUses(run);
    case 'finalize': {
      const record = { runId: SAMPLE.runId, startedAt: SAMPLE.startedAt, ...tenant };
      const failed = { runId: SAMPLE.executionName, startedAt: SAMPLE.startedAt, ...tenant };
      const report = directorySyncReportKey(run.prefix, run.tenant, SAMPLE.runId);
      return [
        onKey('put', 'write the run record', runRecordKey(run.prefix, record)),
        onKey('put', 'record a failure caught outside the jobs', runRecordKey(run.prefix, failed, 'failure')),
        // The Hive layout has no contact tables: its sync writes no report.
        ...(run.catalog.kind === 'hive'
          ? []
          : [
              onKey('get', "read the sync's report for the run record", report),
              onKey('deleteMany', "delete the sync's report once recorded", report),
            ]),
      ];
    }
  }
}

/** The store operations a handler performs, on the keys its environment and the key layout give. */
export function functionStoreUses(fn: WorkflowFunctionName, env: StoreEnvironment): StoreUse[] {
  return runStoreUses(fn, {
    prefix: parseS3Uri('OBJECT_STORE_URI', env.OBJECT_STORE_URI).prefix,
    reports: JSON.parse(env.REPORTS) as { id: string }[],
    csvGzip: env.CSV_GZIP === 'true',
    catalog: parseCatalogSetting('TABLE_CATALOG', env.TABLE_CATALOG ?? DEFAULT_TABLE_CATALOG),
  });
}

function expand<N extends AwsCallName>(
  why: string,
  calls: readonly N[],
  target: TargetOf<N>,
): DeclaredCall[] {
  return calls.map((call) => ({
    why,
    call,
    permissions: (AWS_CALLS[call].permissions as (t: TargetOf<N>) => readonly IamPermission[])(target),
  }));
}

/** Where a function runs: the Region and account of the Glue Data Catalog it commits to (its own). */
export interface FunctionPlace {
  readonly region: string;
  readonly account: string;
}

/** Where a handler's stores are: the lake, the leases, the secret (an ARN or a name), the catalog. */
interface StoreLocations {
  readonly objectStoreUri: string;
  readonly leaseStoreUri: string;
  readonly secretId: string;
  readonly tableCatalog: string | undefined;
  readonly registryUri?: string;
}

/** The Region and account of a secret's ARN: the stack creates the secret beside the function. */
function placeOfSecret(secretId: string): FunctionPlace | undefined {
  const m = /^arn:aws[a-z-]*:secretsmanager:([a-z0-9-]+):(\d{12}):secret:/.exec(secretId);
  return m === null ? undefined : { region: m[1] as string, account: m[2] as string };
}

/** A store use as the AWS calls its adapter makes (STORE_OPERATION_CALLS). */
function storeUseCalls(use: StoreUse, at: StoreLocations, place: FunctionPlace | undefined): DeclaredCall[] {
  switch (use.store) {
    case 'catalog': {
      const catalog = parseCatalogSetting('TABLE_CATALOG', at.tableCatalog ?? DEFAULT_TABLE_CATALOG);
      const where = place ?? placeOfSecret(at.secretId);
      if (catalog.kind !== 'glue' || where === undefined)
        throw new Error(
          `A Glue catalog's calls need TABLE_CATALOG=glue:<database> and the function's Region and account`,
        );
      return expand(use.why, STORE_OPERATION_CALLS.glueCatalog[use.operation], {
        ...where,
        database: catalog.database,
        table: use.table,
      });
    }
    case 'secret':
      return expand(use.why, STORE_OPERATION_CALLS.secretsManagerStore[use.operation], {
        secretId: at.secretId,
      });
    case 'leases': {
      const { bucket, prefix } = parseS3Uri('LEASE_STORE_URI', at.leaseStoreUri);
      const key = leaseObjectKey(prefix || DEFAULT_LEASE_PREFIX, use.key);
      return expand(use.why, STORE_OPERATION_CALLS.s3LeaseStore[use.operation], { bucket, key });
    }
    case 'registry': {
      const { bucket } = parseS3Uri('TENANT_REGISTRY_URI', at.registryUri ?? '');
      return expand(use.why, STORE_OPERATION_CALLS.s3Store.get, { bucket, key: use.key });
    }
    case 'objects': {
      const { bucket } = parseS3Uri('OBJECT_STORE_URI', at.objectStoreUri);
      const calls = STORE_OPERATION_CALLS.s3Store;
      if (use.operation === 'list') return expand(use.why, calls.list, { bucket, prefix: use.prefix });
      if (use.operation === 'copy')
        return expand(use.why, calls.copy, { bucket, fromKey: use.fromKey, toKey: use.toKey });
      return expand(use.why, calls[use.operation], { bucket, key: use.key });
    }
  }
}

/**
 * Every AWS call a handler makes through its stores. `place`: the function's Region and
 * account, for the Glue catalog's ARNs (default: its secret's, as the stack deploys them).
 */
export function functionAwsCalls(
  fn: WorkflowFunctionName,
  env: StoreEnvironment,
  place?: FunctionPlace,
): DeclaredCall[] {
  const at: StoreLocations = {
    objectStoreUri: env.OBJECT_STORE_URI,
    leaseStoreUri: env.LEASE_STORE_URI,
    secretId: env.SECRET_URI.replace(/^secretsmanager:/, ''),
    tableCatalog: env.TABLE_CATALOG,
  };
  return functionStoreUses(fn, env).flatMap((use) => storeUseCalls(use, at, place));
}

/** The environment of a multi-tenant deployment's handler (lib/workflow/runtime.ts). */
export interface TenantStoreEnvironment {
  readonly OBJECT_STORE_URI: string;
  readonly LEASE_STORE_URI: string;
  /** `s3://<bucket>/<prefix>`: one `<tenant>.json` entry per tenant. */
  readonly TENANT_REGISTRY_URI: string;
  /** The secrets' template, `{tenant}` in place of the id. */
  readonly TENANT_SECRET_URI: string;
  /** The role a tenant's run takes, with the session tag `tenant=<id>`. */
  readonly TENANT_ROLE_ARN: string;
  readonly CSV_GZIP?: string;
  readonly TABLE_CATALOG?: string;
}

/** A tenant's run of a handler: its calls in the tenant's session, and in the function's own role. */
export interface TenantRunCalls {
  /** As the TenantAccess role, in a session tagged `tenant=<id>`: everything of the tenant's. */
  readonly tenantSession: DeclaredCall[];
  /** As the function: taking that session, and the record of an execution with no tenant. */
  readonly ownRole: DeclaredCall[];
}

/**
 * The calls of one tenant's run of a handler in a multi-tenant deployment. Every handler
 * takes the TenantAccess role for the tenant (sts:AssumeRole with the one session tag
 * `tenant=<id>`, sts:TagSession) and reads the tenant's registry entry in that session; the
 * store uses are the single-tenant ones on the tenant's keys and secret. Finalize also
 * records, as itself, the failure of an execution whose input names no valid tenant.
 */
export function tenantRunAwsCalls(
  fn: WorkflowFunctionName,
  env: TenantStoreEnvironment,
  run: { readonly tenant: string; readonly reports: readonly { readonly id: string }[] },
  place: FunctionPlace,
): TenantRunCalls {
  const registry = parseS3Uri('TENANT_REGISTRY_URI', env.TENANT_REGISTRY_URI);
  // A secret by name: the one in the function's Region and account (any of its suffixes).
  const secretName = env.TENANT_SECRET_URI.replace(/^secretsmanager:/, '').replaceAll('{tenant}', run.tenant);
  const at: StoreLocations = {
    objectStoreUri: env.OBJECT_STORE_URI,
    leaseStoreUri: env.LEASE_STORE_URI,
    secretId: secretName.startsWith('arn:')
      ? secretName
      : `arn:aws:secretsmanager:${place.region}:${place.account}:secret:${secretName}-??????`,
    tableCatalog: env.TABLE_CATALOG,
    registryUri: env.TENANT_REGISTRY_URI,
  };
  const keys: RunKeys = {
    prefix: parseS3Uri('OBJECT_STORE_URI', env.OBJECT_STORE_URI).prefix,
    reports: run.reports,
    csvGzip: env.CSV_GZIP === 'true',
    catalog: parseCatalogSetting('TABLE_CATALOG', env.TABLE_CATALOG ?? DEFAULT_TABLE_CATALOG),
    tenant: run.tenant,
  };
  // The committer never takes a tenant's session: every call of Commit is its own role's.
  if (fn === 'commit') {
    return {
      tenantSession: [],
      ownRole: runStoreUses(fn, keys).flatMap((use) => storeUseCalls(use, at, place)),
    };
  }
  const uses: StoreUse[] = [
    {
      why: "read the tenant's registry entry",
      store: 'registry',
      operation: 'get',
      key: tenantEntryKey(registry.prefix, run.tenant),
    },
    ...runStoreUses(fn, keys),
  ];
  // The request carries the one session tag: AWS evaluates it for both actions.
  const tag = { 'aws:RequestTag/tenant': run.tenant, 'aws:TagKeys': 'tenant' };
  const assume = expand(
    "take the tenant's session (TenantAccess, tagged with the tenant)",
    STORE_OPERATION_CALLS.tenantSession.assume,
    { roleArn: env.TENANT_ROLE_ARN, tenant: run.tenant },
  ).map((c) => ({
    ...c,
    permissions: c.permissions.map((p) => ({ ...p, context: { ...p.context, ...tag } })),
  }));
  const noTenant = { runId: SAMPLE.executionName, startedAt: SAMPLE.startedAt };
  const ownUses: StoreUse[] =
    fn === 'finalize'
      ? [
          onKey(
            'put',
            'record the failure of an execution that names no valid tenant',
            runRecordKey(keys.prefix, noTenant, 'failure'),
          ),
        ]
      : [];
  return {
    tenantSession: uses.flatMap((use) => storeUseCalls(use, at, place)),
    ownRole: [...assume, ...ownUses.flatMap((use) => storeUseCalls(use, at, place))],
  };
}

/** A call outside the stores: one action on one resource. */
const single = (why: string, action: string, resource: string): DeclaredCall => ({
  why,
  call: action,
  permissions: [{ action, resource }],
});

/**
 * What the Lambda service does with every function's role: logs to the function's log
 * group (both actions act on the stream) and sends its X-Ray segments (active tracing).
 */
export function lambdaRuntimeCalls(logGroupArn: string): DeclaredCall[] {
  const stream = `${logGroupArn.replace(/:\*$/, '')}:log-stream:2026/11/19/[$LATEST]0a1b2c3d`;
  return [
    single('open a log stream', 'logs:CreateLogStream', stream),
    single('write log events', 'logs:PutLogEvents', stream),
    ...['xray:PutTraceSegments', 'xray:PutTelemetryRecords'].map((a) => single('X-Ray tracing', a, '*')),
  ];
}

/** The resources the state machine acts on, as the deployment names them. */
interface StateMachineResources {
  readonly stateMachineArn: string;
  readonly functionArns: Readonly<Record<WorkflowFunctionName, string>>;
  readonly alarmTopicArn: string;
  /** The KMS key the alarm topic is encrypted with. */
  readonly alarmTopicKeyArn: string;
}

/**
 * The state machine's calls: its Lambda tasks (one function each), failure notices to the
 * encrypted alarm topic (SNS generates and decrypts the data key as the publisher), the
 * continuation of a long backfill (StartExecution of itself, DescribeExecution of the
 * continuation it started), execution logs and X-Ray.
 */
export function stateMachineAwsCalls(r: StateMachineResources): DeclaredCall[] {
  const execution = `${r.stateMachineArn.replace(':stateMachine:', ':execution:')}:2f1d7c0e9b4a6d3c8e5f1a2b3c4d5e6f7a8b9c0d`;
  const logDelivery = [
    'logs:CreateLogDelivery',
    'logs:GetLogDelivery',
    'logs:UpdateLogDelivery',
    'logs:DeleteLogDelivery',
    'logs:ListLogDeliveries',
    'logs:PutResourcePolicy',
    'logs:DescribeResourcePolicies',
    'logs:DescribeLogGroups',
  ];
  const xray = [
    'xray:PutTraceSegments',
    'xray:PutTelemetryRecords',
    'xray:GetSamplingRules',
    'xray:GetSamplingTargets',
  ];
  const notice = 'encrypt the notice (SNS, as the publisher)';
  return [
    ...WORKFLOW_FUNCTIONS.map((fn) => single(`invoke ${fn}`, 'lambda:InvokeFunction', r.functionArns[fn])),
    single('notify a failure', 'sns:Publish', r.alarmTopicArn),
    single(notice, 'kms:GenerateDataKey', r.alarmTopicKeyArn),
    single(notice, 'kms:Decrypt', r.alarmTopicKeyArn),
    single('continue a long backfill', 'states:StartExecution', r.stateMachineArn),
    single('find the continuation already started', 'states:DescribeExecution', execution),
    ...logDelivery.map((a) => single('deliver execution logs', a, '*')),
    ...xray.map((a) => single('X-Ray tracing', a, '*')),
  ];
}

/** The Digest function's environment (lib/workflow/digest-task.ts): the lake, the registry, the topic. */
export interface DigestEnvironment {
  readonly OBJECT_STORE_URI: string;
  /** Multi-tenant: `s3://<bucket>/<prefix>`; absent: a single-tenant deployment. */
  readonly TENANT_REGISTRY_URI?: string;
  /** The alarm topic's ARN. */
  readonly NOTICE_TOPIC_URI: string;
}

/**
 * The Digest function's calls, all in its own role (it never takes a tenant's session: it
 * reads every tenant's records and writes nothing in the lake): the registry listed and each
 * entry read (multi-tenant), each tenant's run records of a date listed and read, a
 * multi-tenant lake's records of no tenant likewise, and one publish to the KMS-encrypted
 * alarm topic (SNS generates and decrypts the data key as the publisher). `tenant`: the
 * sample tenant the keys are filled with.
 */
export function digestAwsCalls(env: DigestEnvironment, topicKeyArn: string, tenant = 'acme'): DeclaredCall[] {
  const { bucket, prefix } = parseS3Uri('OBJECT_STORE_URI', env.OBJECT_STORE_URI);
  const calls = STORE_OPERATION_CALLS.s3Store;
  const records = (owner: string | undefined, kind: 'run' | 'failure'): DeclaredCall[] => {
    const sample = {
      runId: SAMPLE.runId,
      startedAt: SAMPLE.startedAt,
      ...(owner === undefined ? {} : { tenant: owner }),
    };
    const whose = owner === undefined ? 'of no tenant' : "of a tenant's";
    return [
      ...expand(`list the run records ${whose} of a date`, calls.list, {
        bucket,
        prefix: `${runRecordsPrefix(prefix, owner)}dt=${SAMPLE.dt}/`,
      }),
      ...expand(`read a ${kind} record ${whose}`, calls.get, {
        bucket,
        key: runRecordKey(prefix, sample, kind),
      }),
    ];
  };
  const registry =
    env.TENANT_REGISTRY_URI === undefined
      ? undefined
      : parseS3Uri('TENANT_REGISTRY_URI', env.TENANT_REGISTRY_URI);
  const notice = 'encrypt the digest (SNS, as the publisher)';
  return [
    ...(registry === undefined
      ? [...records(undefined, 'run'), ...records(undefined, 'failure')]
      : [
          ...expand('list the tenant registry', calls.list, {
            bucket: registry.bucket,
            prefix: registry.prefix === '' ? '' : `${registry.prefix}/`,
          }),
          ...expand("read a tenant's registry entry", calls.get, {
            bucket: registry.bucket,
            key: tenantEntryKey(registry.prefix, tenant),
          }),
          ...records(tenant, 'run'),
          ...records(tenant, 'failure'),
          ...records(undefined, 'failure'),
        ]),
    single('publish the digest', 'sns:Publish', env.NOTICE_TOPIC_URI),
    single(notice, 'kms:GenerateDataKey', topicKeyArn),
    single(notice, 'kms:Decrypt', topicKeyArn),
  ];
}
