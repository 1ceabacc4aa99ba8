import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { TENANCY_OUTPUTS } from '../../lib/cli/aws/stack-outputs';
import { CONTACT_TABLES, ICEBERG_TABLES, icebergTableDefinition } from '../../lib/infra/iceberg-tables';
import { PLACEHOLDERS, runsTableInput } from '../../lib/infra/lake-tables';
import { runRecordKey } from '../../lib/workflow/run-record';
import { MULTI_TENANT_CONFIG, synthStack } from './stack-synth';
import { createOnlyTables } from './table-resources';

/** A multi-tenant deployment's resources: what replaces the secret and the nightly schedule. */

let multi: Template;
let single: Template;

beforeAll(() => {
  multi = synthStack({}, MULTI_TENANT_CONFIG);
  single = synthStack();
}, 60_000);

const count = (t: Template, type: string) => Object.keys(t.findResources(type)).length;
const ofType = (t: Template, type: string) =>
  Object.entries(t.findResources(type)) as [string, { Properties: Record<string, unknown> }][];

describe('ReportExportStack with tenancy multi', () => {
  it.each([
    ['AWS::SecretsManager::Secret', 0, 1],
    // The night digest's in both; the single tenant's nightly run too (the tenants' are the CLI's).
    ['AWS::Scheduler::Schedule', 1, 2],
    ['AWS::Scheduler::ScheduleGroup', 1, 0],
    // The alarm topic's key, and the tenants' secrets' key.
    ['AWS::KMS::Key', 2, 1],
    ['AWS::SQS::Queue', 1, 1],
    ['AWS::StepFunctions::StateMachine', 1, 1],
    // Three on each of calls, summaries, contacts and contact_phones.
    ['AWS::Glue::TableOptimizer', 12, 12],
    ['Custom::CreateOnlyIcebergTable', 4, 4],
  ])('has %s x%i (single-tenant: %i)', (type, inMulti, inSingle) => {
    expect(count(multi, type)).toBe(inMulti);
    expect(count(single, type)).toBe(inSingle);
  });

  it("outputs what the CLI's tenants commands read (TENANCY_OUTPUTS), and no stack secret", () => {
    // Act
    const outputs = Object.keys(multi.toJSON().Outputs as object);

    // Assess
    expect(outputs).toEqual(expect.arrayContaining([...TENANCY_OUTPUTS]));
    expect(outputs).not.toContain('SecretArn');
    expect(Object.keys(single.toJSON().Outputs as object).filter((o) => o.startsWith('Tenant'))).toEqual([]);
  });

  it("lets only Scheduler, for this account's schedules of the group, take the schedules' role", () => {
    // Act
    const [, role] =
      ofType(multi, 'AWS::IAM::Role').find(([id]) => id.startsWith('TenantSchedulesRole')) ?? [];
    const trust = role?.Properties.AssumeRolePolicyDocument as { Statement: Record<string, unknown>[] };

    // Assess
    expect(trust.Statement).toHaveLength(1);
    expect(trust.Statement[0]).toMatchObject({
      Principal: { Service: 'scheduler.amazonaws.com' },
      Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
    });
    expect(JSON.stringify(trust.Statement[0]?.Condition)).toContain(':schedule/');
  });

  it("alarms on the dead letters of the tenants' schedules", () => {
    // Act
    const [queueId] = ofType(multi, 'AWS::SQS::Queue')[0] ?? [];
    const alarms = ofType(multi, 'AWS::CloudWatch::Alarm').filter(([, a]) =>
      JSON.stringify(a.Properties).includes(String(queueId)),
    );

    // Assess
    expect(queueId).toMatch(/^TenantSchedules/);
    expect(alarms).toHaveLength(1);
  });

  it('trusts the six functions that act for a tenant in one statement of the TenantAccess role, the committer not', () => {
    // Act
    const [, role] = ofType(multi, 'AWS::IAM::Role').find(([id]) => id.startsWith('TenantAccessRole')) ?? [];
    const trust = role?.Properties.AssumeRolePolicyDocument as { Statement: unknown[] };
    const trusted = (trust.Statement[0] as { Principal: { AWS: { 'Fn::GetAtt': [string, string] }[] } })
      .Principal.AWS;
    const roleOf = (fnId: string) =>
      (
        (ofType(multi, 'AWS::Lambda::Function').find(([id]) => id.startsWith(`${fnId}Function`))?.[1]
          .Properties.Role ?? {}) as { 'Fn::GetAtt': [string, string] }
      )['Fn::GetAtt'][0];

    // Assess: Plan, RequestReport, CheckStatus, ExportResults, SyncDirectories and Finalize.
    expect(trust.Statement).toHaveLength(1);
    expect(trust.Statement[0]).toMatchObject({ Principal: { AWS: expect.any(Array) } });
    expect(trusted).toHaveLength(6);
    expect(trusted.map((r) => r['Fn::GetAtt'][0]).sort()).toEqual(
      ['Plan', 'RequestReport', 'CheckStatus', 'ExportResults', 'SyncDirectories', 'Finalize']
        .map(roleOf)
        .sort(),
    );
    expect(trusted.map((r) => r['Fn::GetAtt'][0])).not.toContain(roleOf('WorkflowCommit'));
  });
});

describe('runsTableInput of a multi-tenant lake', () => {
  const location = {
    bucket: 'b',
    prefix: 'lake',
    dataset: 'calls',
    reportIds: [],
    dataStartDate: '2025-01-01',
  };

  it("partitions by tenant, injected, then dt, over the keys Finalize writes a tenant's records to", () => {
    // Prepare
    const key = runRecordKey('lake', { runId: 'r-1', startedAt: '2026-11-19T02:00:00Z', tenant: 'acme' });

    // Act
    const table = runsTableInput({ ...location, tenants: true });
    const template = table.parameters['storage.location.template'] as string;

    // Assess
    expect(table.partitionKeys.map((k) => k.Name)).toEqual(['tenant', 'dt']);
    expect(table.parameters['projection.tenant.type']).toBe('injected');
    expect(
      `s3://b/${key}`.startsWith(
        template.replace(PLACEHOLDERS.tenant, 'acme').replace(PLACEHOLDERS.dt, '2026-11-19'),
      ),
    ).toBe(true);
    expect(table.storageDescriptor.location).toBe('s3://b/lake/runs/');
    expect(table.storageDescriptor.columns.map((c) => c.Name)).not.toContain('tenant');
  });

  it('has neither the tenant partition nor its projection in a single-tenant lake', () => {
    // Act
    const table = runsTableInput(location);

    // Assess
    expect(table.partitionKeys.map((k) => k.Name)).toEqual(['dt']);
    expect(Object.keys(table.parameters).filter((k) => k.includes('tenant'))).toEqual([]);
  });
});

describe('icebergTableDefinition of a multi-tenant lake', () => {
  it.each(['calls', 'summaries'] as const)(
    'gives %s the required tenant column and identity(tenant), identity(report_id), identity(dt) as 1000-1002',
    (dataset) => {
      // Act
      const d = icebergTableDefinition('b', 'lake', dataset, true);
      const single = icebergTableDefinition('b', 'lake', dataset);

      // Assess
      const tenant = d.schema.fields.find((f) => f.name === 'tenant');
      expect(tenant).toMatchObject({ type: 'string', required: true });
      expect(d.partitionSpec.fields.map((f) => [f.fieldId, f.name, f.transform])).toEqual([
        [1000, 'tenant', 'identity'],
        [1001, 'report_id', 'identity'],
        [1002, 'dt', 'identity'],
      ]);
      expect(d.partitionSpec.fields[0]?.sourceId).toBe(tenant?.id);
      // A single-tenant table keeps its columns and spec.
      expect(single.schema.fields.map((f) => f.name)).not.toContain('tenant');
      expect(single.partitionSpec.fields.map((f) => f.name)).toEqual(['report_id', 'dt']);
      expect(d.location).toBe(single.location);
    },
  );

  it.each(CONTACT_TABLES)(
    'gives %s the required tenant column and identity(tenant), identity(directory_id) as 1000-1001; a single-tenant one identity(directory_id) alone',
    (table) => {
      // Act
      const d = icebergTableDefinition('b', 'lake', table, true);
      const single = icebergTableDefinition('b', 'lake', table);

      // Assess
      const tenant = d.schema.fields.find((f) => f.name === 'tenant');
      const directory = d.schema.fields.find((f) => f.name === 'directory_id');
      expect(tenant).toMatchObject({ type: 'string', required: true });
      expect(d.partitionSpec.fields.map((f) => [f.fieldId, f.name, f.transform, f.sourceId])).toEqual([
        [1000, 'tenant', 'identity', tenant?.id],
        [1001, 'directory_id', 'identity', directory?.id],
      ]);
      expect(single.schema.fields.map((f) => f.name)).not.toContain('tenant');
      const singleDirectory = single.schema.fields.find((f) => f.name === 'directory_id');
      expect(single.partitionSpec.fields.map((f) => [f.fieldId, f.name, f.transform, f.sourceId])).toEqual([
        [1000, 'directory_id', 'identity', singleDirectory?.id],
      ]);
      expect(d.location).toBe(single.location);
      expect(d.location).toBe(`s3://b/lake/tables/${table}`);
    },
  );

  it('creates the stack tables of a multi-tenant deployment with the tenant partition', () => {
    // Act
    const tables = createOnlyTables(multi);
    const partitions = Object.fromEntries(
      tables.map((t) => [t.create.Name, t.input.PartitionSpec.Fields.map((f) => f.Name)]),
    );

    // Assess: the reports' tables by tenant, report and day; the contact tables by tenant and directory.
    expect(tables.map((t) => t.create.Name)).toEqual([...ICEBERG_TABLES]);
    expect(partitions).toEqual({
      calls: ['tenant', 'report_id', 'dt'],
      summaries: ['tenant', 'report_id', 'dt'],
      contacts: ['tenant', 'directory_id'],
      contact_phones: ['tenant', 'directory_id'],
    });
    const singleTenant = Object.fromEntries(
      createOnlyTables(single).map((t) => [t.create.Name, t.input.PartitionSpec.Fields.map((f) => f.Name)]),
    );
    expect(singleTenant).toEqual({
      calls: ['report_id', 'dt'],
      summaries: ['report_id', 'dt'],
      contacts: ['directory_id'],
      contact_phones: ['directory_id'],
    });
  });
});
