import { CfnOutput, Duration, Lazy, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { directorySyncReportKey } from '../workflow';
import { acknowledgeTableCreator, tableCreatorRoleArn } from './create-only-table';
import { DataLake, LEASE_PREFIX } from './data-lake';
import { AlarmTopic, ExportAlarms } from './export-alarms';
import { ExportSchedule } from './export-schedule';
import {
  SYNC_DIRECTORIES_MEMORY_MB,
  SYNC_DIRECTORIES_TIMEOUT_SECONDS,
  spillBudgetBytes,
} from './export-sizing';
import { ExportWorkflow } from './export-workflow';
import { ICEBERG_TABLES, tableMetadataPrefix } from './iceberg-tables';
import { LakeCatalog } from './lake-catalog';
import { acknowledge, arnOf } from './nag-acknowledgements';
import { NightDigest } from './night-digest';
import { ServiceCredentials } from './service-credentials';
import { type ReportExportConfig, type ResolvedStackConfig, resolveStackConfig } from './stack-config';
import {
  grantTableCommitter,
  protectTableData,
  protectTableMetadata,
  refuseTableWrites,
} from './table-committer';
import { glueTableArns, TableMaintenance } from './table-maintenance';
import { TenantAccess, tenantSecretName } from './tenant-access';
import { TenantSchedules } from './tenant-schedules';
import { workflowEnvironment } from './workflow-environment';
import { WorkflowFunction } from './workflow-function';

export type { ReportExportConfig } from './stack-config';

/** The tenant registry's prefix in the lake bucket: at its root, outside every table's location. */
export const TENANT_REGISTRY_PREFIX = '_tenants';

type FunctionName =
  | 'plan'
  | 'requestReport'
  | 'checkStatus'
  | 'exportResults'
  | 'syncDirectories'
  | 'finalize';

interface ReportExportStackProps extends StackProps {
  /** What to export and how; validated at synthesis (errors name the setting). */
  readonly config: ReportExportConfig;
}

/**
 * The deployable export. It only composes: the data lake buckets, the service secret,
 * the alarm topic, the workflow's functions and state machine, the nightly schedule,
 * the Glue tables and Athena workgroup, and the alarms. With `tenancy: 'multi'`, instead of
 * the secret and the schedule: the TenantAccess role a tenant's run acts in, the key of the
 * tenants' secrets, and what the CLI's per-tenant schedules need.
 */
export class ReportExportStack extends Stack {
  readonly bucket: s3.Bucket;
  /** The service secret (single-tenant; a multi-tenant deployment has one per tenant, made by the CLI). */
  readonly secret: secretsmanager.Secret | undefined;
  readonly workflow: ExportWorkflow;
  readonly lake: DataLake;
  /** The nightly schedule (single-tenant). */
  readonly schedule: ExportSchedule | undefined;
  /** The schedule group, role and dead-letter queue of the tenants' schedules (multi-tenant). */
  readonly tenantSchedules: TenantSchedules | undefined;
  /** The role a tenant's run acts in (multi-tenant). */
  readonly tenantAccess: TenantAccess | undefined;
  readonly catalog: LakeCatalog;
  /** Glue's optimizers on the Iceberg tables (none with `tableFormat: 'hive'`). */
  readonly tableMaintenance: TableMaintenance | undefined;
  readonly alarms: ExportAlarms;
  /** The night's digest: its function and schedule. */
  readonly digest: NightDigest;

  constructor(scope: Construct, id: string, props: ReportExportStackProps) {
    super(scope, id, props);
    const c = resolveStackConfig(props.config);

    this.lake = new DataLake(this, 'DataLake', {
      prefix: c.prefix,
      versioning: c.versioning,
      accessLogs: c.accessLogs,
    });
    this.bucket = this.lake.bucket;
    const multi = c.tenancy === 'multi';
    this.secret = multi ? undefined : new ServiceCredentials(this, 'ServiceCredentials').secret;
    const alarmTopic = new AlarmTopic(this, 'AlarmTopic', {
      ...(c.alarmEmail === undefined ? {} : { email: c.alarmEmail }),
    });

    const stores = {
      objectStoreUri: this.lake.s3Uri(c.prefix),
      leaseStoreUri: this.lake.s3Uri(LEASE_PREFIX),
    };
    // The role's ARN once it exists: it trusts the functions' roles, made with the functions.
    let tenantAccess: TenantAccess | undefined;
    const tenantLocations = {
      ...stores,
      tenantRegistryUri: this.lake.s3Uri(TENANT_REGISTRY_PREFIX),
      tenantSecretUri: `secretsmanager:${tenantSecretName(this.stackName, '{tenant}')}`,
      tenantRoleArn: Lazy.string({ produce: () => tenantAccess?.role.roleArn }),
    };
    const environment = workflowEnvironment(
      c,
      this.secret === undefined ? tenantLocations : { ...stores, secretUri: this.secret.secretArn },
    );
    const fn = (fnId: string, handlerModule: string) =>
      new WorkflowFunction(this, fnId, { handlerModule, environment }).function;
    const functions = {
      plan: fn('Plan', 'plan'),
      requestReport: fn('RequestReport', 'request-report'),
      checkStatus: fn('CheckStatus', 'check-status'),
      // Sized in export-sizing.ts (memory: one vCPU; storage: the spill budget's arithmetic).
      exportResults: new WorkflowFunction(this, 'ExportResults', {
        handlerModule: 'export-results',
        environment: {
          ...environment,
          SPILL_BUDGET_BYTES: String(spillBudgetBytes(c.exportEphemeralStorageMb)),
        },
        memorySize: c.exportMemoryMb,
        ephemeralStorageMb: c.exportEphemeralStorageMb,
        timeout: Duration.minutes(15),
        withEncodeWorker: true,
      }).function,
      // The contacts branch: a tenant's directories, read and versioned in its session.
      syncDirectories: new WorkflowFunction(this, 'SyncDirectories', {
        handlerModule: 'sync-directories',
        environment,
        memorySize: SYNC_DIRECTORIES_MEMORY_MB,
        timeout: Duration.seconds(SYNC_DIRECTORIES_TIMEOUT_SECONDS),
      }).function,
      finalize: fn('Finalize', 'finalize'),
    };
    if (c.tenancy === 'multi') {
      tenantAccess = this.#tenantAccess(functions, c);
    } else {
      this.#grant(functions, c.prefix, this.secret as secretsmanager.Secret);
    }
    this.#acknowledgeFunctions(functions);
    this.tenantAccess = tenantAccess;

    this.workflow = new ExportWorkflow(this, 'Workflow', {
      functions,
      commitEnvironment: environment,
      alarmTopic: alarmTopic.topic,
      mapConcurrency: c.mapConcurrency,
      logGroup: new logs.LogGroup(this, 'WorkflowLogs', { retention: logs.RetentionDays.THREE_MONTHS }),
    });
    const workflowFunctions = { ...functions, commit: this.workflow.commitFunction };
    this.#acknowledgeFunctions({ commit: this.workflow.commitFunction });
    this.#acknowledgeWorkflow(workflowFunctions);

    this.schedule =
      c.tenancy === 'single'
        ? new ExportSchedule(this, 'Schedule', {
            stateMachine: this.workflow.stateMachine,
            timeZone: c.timeZone,
            hour: c.schedule.hour,
            minute: c.schedule.minute,
            enabled: c.schedule.enabled,
            intraday: c.intraday,
          })
        : undefined;
    this.tenantSchedules = multi
      ? new TenantSchedules(this, 'TenantSchedules', { stateMachine: this.workflow.stateMachine })
      : undefined;
    this.catalog = new LakeCatalog(this, 'Catalog', {
      bucketName: this.bucket.bucketName,
      prefix: c.prefix,
      dataset: c.dataset,
      promotedColumns: c.promotedColumns,
      reportIds: c.tenancy === 'single' ? c.reports.map((r) => r.id) : [],
      tenants: multi,
      dataStartDate: c.dataStartDate,
      databaseName: c.databaseName,
      tableFormat: c.tableFormat,
      tableMetadataObjects: (d) => this.bucket.arnForObjects(`${tableMetadataPrefix(c.prefix, d)}/*`),
      contactOmitFields: c.contactOmitFields,
      queryResultsBucketName: this.lake.queryResults.bucketName,
      bytesScannedCutoffPerQuery: c.athenaBytesScannedCutoff,
    });
    this.tableMaintenance =
      this.catalog.icebergTables.size === 0
        ? undefined
        : new TableMaintenance(this, 'TableMaintenance', {
            bucket: this.bucket,
            prefix: c.prefix,
            databaseName: c.databaseName,
            tables: this.catalog.icebergTables,
          });
    this.#committer([functions.exportResults, functions.syncDirectories], c);
    const deadLetterQueue = (this.schedule ?? this.tenantSchedules)?.deadLetterQueue;
    if (deadLetterQueue === undefined) throw new Error('no schedule dead-letter queue');
    this.digest = new NightDigest(this, 'NightDigest', {
      environment,
      // Bucket is an IBucket; the cast only bridges CDK's types under exactOptionalPropertyTypes.
      bucket: this.bucket as s3.IBucket,
      prefix: c.prefix,
      registryPrefix: multi ? TENANT_REGISTRY_PREFIX : undefined,
      nightlyHour: c.tenancy === 'single' ? c.schedule.hour : undefined,
      topic: alarmTopic.topic,
      deploymentName: this.stackName,
      hourUtc: c.digest.hourUtc,
      enabled: c.digest.enabled,
      deadLetterQueue,
    });
    this.#acknowledgeFunctions({ digest: this.digest.function });
    this.alarms = new ExportAlarms(this, 'Alarms', {
      topic: alarmTopic.topic,
      stateMachine: this.workflow.stateMachine,
      deadLetterQueue,
      freshnessHours: c.freshnessHours,
    });

    // What the deploy steps of lib/infra/README.md and the CLI's tenants commands use.
    const outputs: Record<string, string> = {
      StateMachineArn: this.workflow.stateMachine.stateMachineArn,
      ...(this.secret === undefined ? {} : { SecretArn: this.secret.secretArn }),
      BucketName: this.bucket.bucketName,
      DataLakeUri: this.lake.s3Uri(c.prefix),
      GlueDatabase: c.databaseName,
      AthenaWorkGroup: this.catalog.workGroup.name,
      AlarmTopicArn: alarmTopic.topic.topicArn,
      ...(this.tenantSchedules === undefined || tenantAccess === undefined
        ? {}
        : {
            TenantRegistryUri: tenantLocations.tenantRegistryUri,
            TenantSecretUri: tenantLocations.tenantSecretUri,
            TenantSecretKeyArn: tenantAccess.secretKey.keyArn,
            TenantScheduleGroup: this.tenantSchedules.group.scheduleGroupName,
            TenantSchedulerRoleArn: this.tenantSchedules.role.roleArn,
            TenantDeadLetterQueueArn: this.tenantSchedules.deadLetterQueue.queueArn,
          }),
    };
    for (const [name, value] of Object.entries(outputs)) new CfnOutput(this, name, { value });
  }

  /**
   * A multi-tenant deployment's access: every function may only take the TenantAccess role
   * for a tenant (its run's reads and writes happen in that session), and Finalize may write
   * the run record of an execution that names no valid tenant (nothing of a tenant's).
   */
  #tenantAccess(f: Record<FunctionName, lambda.IFunction>, c: ResolvedStackConfig): TenantAccess {
    const secretKey = new kms.Key(this, 'TenantSecretsKey', {
      description: "report-export: encrypts the tenants' service secrets (report-export tenants add)",
      enableKeyRotation: true,
    });
    const access = new TenantAccess(this, 'TenantAccess', {
      // Bucket is an IBucket; the cast only bridges CDK's types under exactOptionalPropertyTypes.
      bucket: this.bucket as s3.IBucket,
      prefix: c.prefix,
      leasePrefix: LEASE_PREFIX,
      registryPrefix: TENANT_REGISTRY_PREFIX,
      secretKey,
      databaseName: c.databaseName,
      tables: ICEBERG_TABLES,
      trustedRoles: Object.values(f).map((fn) => fn.role as iam.IRole),
    });
    for (const fn of Object.values(f)) access.grantAssume(fn);
    // The run record of an execution whose input names no valid tenant (no tenant session).
    this.bucket.grantPut(f.finalize, `${c.prefix}/runs/dt=*`);
    acknowledge(
      f.finalize,
      'AwsSolutions-IAM5',
      [`Resource::${arnOf(this.bucket)}/${c.prefix}/runs/dt=*`, 'Action::s3:Abort*'],
      "Run records of executions with no tenant, named by date and run id at run time; put only (Bucket.grantPut's set: abort a failed upload), outside every tenant's runs/tenant=<id>/.",
    );
    return access;
  }

  /** Least privilege per function, through grant*(); each wildcard acknowledged beside its grant. */
  #grant(f: Record<FunctionName, lambda.IFunction>, prefix: string, secret: secretsmanager.Secret): void {
    const bucket = arnOf(this.bucket);
    // Tasks that talk to the service read the token and store a refreshed one under a lease.
    const serviceCallers = [f.requestReport, f.checkStatus, f.exportResults, f.syncDirectories];
    for (const fn of serviceCallers) {
      secret.grantRead(fn);
      secret.grantWrite(fn);
      this.bucket.grantReadWrite(fn, `${LEASE_PREFIX}/*`);
      acknowledge(
        fn,
        'AwsSolutions-IAM5',
        [`Resource::${bucket}/${LEASE_PREFIX}/*`],
        'Lease objects are named per report and date at run time; the grant is limited to the lease prefix.',
      );
    }
    // ExportResults stages, verifies, promotes and deletes parts under the export's prefix;
    // SyncDirectories writes the contact tables' data files and its staged syncs there.
    for (const fn of [f.exportResults, f.syncDirectories]) {
      this.bucket.grantReadWrite(fn, `${prefix}/*`);
      acknowledge(
        fn,
        'AwsSolutions-IAM5',
        [`Resource::${bucket}/${prefix}/*`],
        'Part, manifest and staging keys are derived from report ids, dates and directory ids at run time; the grant is limited to the data lake prefix.',
      );
    }
    // Finalize writes run records, and reads the directory sync's report for the record
    // (then deletes it: the record holds its outcomes).
    this.bucket.grantPut(f.finalize, `${prefix}/runs/*`);
    acknowledge(
      f.finalize,
      'AwsSolutions-IAM5',
      [`Resource::${bucket}/${prefix}/runs/*`],
      'One run record per execution, named by run id at run time; put only, under the runs prefix.',
    );
    const syncReports = directorySyncReportKey(prefix, undefined, '*');
    f.finalize.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects(syncReports)],
      }),
    );
    acknowledge(
      f.finalize,
      'AwsSolutions-IAM5',
      [`Resource::${bucket}/${syncReports}`],
      "The directory sync's reports, one per execution, named by run id at run time; read, then deleted once recorded.",
    );
    // Plan only validates the input and plans: it reads no secret and calls no service.
    for (const fn of serviceCallers) {
      acknowledge(
        fn,
        'AwsSolutions-IAM5',
        [
          'Action::s3:GetObject*',
          'Action::s3:GetBucket*',
          'Action::s3:List*',
          'Action::s3:DeleteObject*',
          'Action::s3:Abort*',
        ],
        "Bucket.grantReadWrite's action set (get, list, conditional put, delete, abort multipart), scoped to the prefixes above; the lease and publish protocols need each of them.",
      );
    }
    acknowledge(
      f.finalize,
      'AwsSolutions-IAM5',
      ['Action::s3:Abort*'],
      "Bucket.grantPut's action set: abort a failed multipart upload of a run record.",
    );
  }

  /** Findings every function has, whatever its grants. */
  #acknowledgeFunctions(f: Partial<Record<FunctionName | 'commit' | 'digest', lambda.IFunction>>): void {
    for (const fn of Object.values(f)) {
      acknowledge(
        fn,
        'AwsSolutions-IAM4',
        ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
        'The AWS managed basic execution policy only allows creating log streams and putting log events; the function logs to its own log group with retention.',
      );
      acknowledge(
        fn,
        'AwsSolutions-IAM5',
        ['Resource::*'],
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
      );
      acknowledge(
        fn,
        'AwsSolutions-L1',
        undefined,
        'nodejs22.x on purpose: the handlers are tested on Node 22 (npm run test:node22); move with the tests, not ahead of them.',
      );
    }
  }

  /**
   * One committer (table-committer.ts): the Commit function alone writes the tables' metadata
   * and calls UpdateTable; single-tenant ExportResults and SyncDirectories, whose grants span
   * the lake prefix, are refused those writes and only read the tables (GetTable); a tenant's session only reads
   * them (TenantAccess). The bucket policy keeps the metadata and the data files create-only
   * for every other principal. No CreateTable for any of them: the stack creates the tables.
   */
  #committer(lakeWriters: readonly lambda.IFunction[], c: ResolvedStackConfig): void {
    const tables = [...this.catalog.icebergTables.keys()];
    if (tables.length === 0) return;
    const keys = {
      bucket: this.bucket as s3.IBucket,
      prefix: c.prefix,
      leasePrefix: LEASE_PREFIX,
      databaseName: c.databaseName,
      tables,
    };
    const committer = this.workflow.commitFunction;
    grantTableCommitter(committer, keys);
    if (c.tenancy === 'single') {
      for (const writer of lakeWriters) {
        refuseTableWrites(writer, keys);
        writer.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['glue:GetTable'],
            resources: glueTableArns(this, c.databaseName, tables),
          }),
        );
      }
    }
    const optimizers = Object.values(this.tableMaintenance?.roles ?? {}).map((r) => r.roleArn);
    const creator = tableCreatorRoleArn(this);
    const committerArn = (committer.role as iam.IRole).roleArn;
    protectTableMetadata(keys, [committerArn, ...optimizers, ...(creator === undefined ? [] : [creator])]);
    // The data files: deleted only by the optimizers (they expire and remove files), written
    // without If-None-Match only by those that write (orphan-file deletion writes nothing). The
    // committer is exempt as for the metadata; its own policy lets it only read them.
    const roles = this.tableMaintenance?.roles;
    protectTableData(keys, {
      deleters: [committerArn, ...optimizers],
      rewriters: [
        committerArn,
        ...(roles === undefined ? [] : [roles.compaction.roleArn, roles.retention.roleArn]),
      ],
    });
    acknowledgeTableCreator(
      this,
      tables.map((d) => `Resource::${arnOf(this.bucket)}/${tableMetadataPrefix(c.prefix, d)}/*`),
    );
  }

  /** Findings on the state machine (ExportWorkflow), acknowledged by construct. */
  #acknowledgeWorkflow(f: Record<string, lambda.IFunction>): void {
    const sm = this.workflow.stateMachine;
    acknowledge(
      sm,
      'AwsSolutions-SF1',
      undefined,
      'Logs at ERROR without execution data by design: states carry ids and counts only, the run record and metrics cover successes, and ALL would log every state of every poll loop.',
    );
    acknowledge(
      sm,
      'AwsSolutions-IAM5',
      Object.values(f).map((fn) => `Resource::${arnOf(fn)}:*`),
      'LambdaInvoke grants the function and its versions/aliases (<arn>:*); the workflow invokes only its own functions.',
    );
    acknowledge(
      sm,
      'AwsSolutions-IAM5',
      ['Resource::*'],
      'X-Ray and CloudWatch Logs delivery actions have no resource-level permissions.',
    );
    // The fixed name the continuation's permissions are scoped to.
    const name = this.resolve(
      (sm.node.defaultChild as { stateMachineName?: string }).stateMachineName,
    ) as string;
    acknowledge(
      sm,
      'AwsSolutions-IAM5',
      [`Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${name}:*`],
      "ContinueAsNew describes the continuation it started, whose name is a hash known only at run time; limited to this state machine's executions.",
    );
    acknowledge(
      sm,
      'AwsSolutions-IAM5',
      ['Action::kms:GenerateDataKey*'],
      "Topic.grantPublish's KMS actions: SNS generates a data key for each encrypted publish; on the alarm topic's key only.",
    );
  }
}
