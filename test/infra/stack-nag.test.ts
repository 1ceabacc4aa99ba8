import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { cdkFeatureFlags } from '../../lib/infra/cdk-context';
import { ReportExportStack } from '../../lib/infra/report-export-stack';
import type { ReportExportConfig } from '../../lib/infra/stack-config';
import { BASE_CONFIG, MULTI_TENANT_CONFIG } from './stack-synth';

type Violation = { ruleName: string; violatingConstructs: { constructPath: string }[] };
type Suppressed = Violation & { acknowledgedId: string; reason: string };
type Report = {
  pluginReports: { pluginName: string; violations: Violation[]; suppressedViolations?: Suppressed[] }[];
};

const outdirs: string[] = [];
afterAll(() => {
  for (const d of outdirs) fs.rmSync(d, { recursive: true, force: true });
});

/** Synthesizes the app as bin/app.ts does (AwsSolutions checks), without bundling. */
function synthWithNag(
  config: Partial<ReportExportConfig>,
  extra?: (stack: ReportExportStack) => void,
  base: ReportExportConfig = BASE_CONFIG,
) {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'nag-'));
  outdirs.push(outdir);
  const app = new App({ outdir, context: { ...cdkFeatureFlags(), 'aws:cdk:bundling-stacks': [] } });
  const stack = new ReportExportStack(app, 'ReportExport', { config: { ...base, ...config } });
  extra?.(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  let error: unknown;
  try {
    app.synth();
  } catch (e) {
    error = e;
  }
  const file = path.join(outdir, 'validation-report.json');
  const report = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Report) : undefined;
  const aws = report?.pluginReports.find((p) => p.pluginName === 'AwsSolutions');
  return { error, violations: aws?.violations ?? [], report };
}

describe('ReportExportStack cdk-nag AwsSolutions', () => {
  it.each([
    ['the defaults', {}],
    [
      'access logs off, versioning on, an e-mail, the schedule off',
      {
        accessLogs: false,
        versioning: true,
        alarmEmail: 'ops@example.com',
        schedule: { enabled: false },
      },
    ],
  ])(
    'has no unacknowledged finding with %s',
    (_name, config: Partial<ReportExportConfig>) => {
      // Act
      const { error, violations } = synthWithNag(config);

      // Assess
      expect(
        violations.map((v) => `${v.ruleName} ${v.violatingConstructs.map((c) => c.constructPath)}`),
      ).toEqual([]);
      expect(error).toBeUndefined();
    },
    60_000,
  );

  it('has no unacknowledged finding with tenancy multi', () => {
    // Act
    const { error, violations } = synthWithNag({}, undefined, MULTI_TENANT_CONFIG);

    // Assess
    expect(
      violations.map((v) => `${v.ruleName} ${v.violatingConstructs.map((c) => c.constructPath)}`),
    ).toEqual([]);
    expect(error).toBeUndefined();
  }, 60_000);

  it('fails synthesis when a resource breaks a rule nobody acknowledged', () => {
    // Act: a bucket without TLS enforcement or access logs, added beside the stack's own.
    const { error, violations } = synthWithNag({}, (stack) => {
      new s3.Bucket(stack, 'Unreviewed');
    });

    // Assess
    expect(String(error)).toMatch(/^ValidationFailed/);
    expect(violations.map((v) => v.ruleName)).toEqual(
      expect.arrayContaining(['AwsSolutions-S1', 'AwsSolutions-S10']),
    );
    expect(violations.flatMap((v) => v.violatingConstructs.map((c) => c.constructPath))).toEqual(
      expect.arrayContaining(['ReportExport/Unreviewed/Resource']),
    );
  }, 60_000);
});
