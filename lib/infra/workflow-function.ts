import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** Repository root (handlers are known to infra by path only). */
export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface WorkflowFunctionProps {
  /** Handler module under `lambdas/`, without extension, e.g. `export-results`. */
  readonly handlerModule: string;
  /**
   * Memory in MB.
   * @default 256
   */
  readonly memorySize?: number;
  /**
   * Timeout.
   * @default Duration.seconds(120)
   */
  readonly timeout?: Duration;
  readonly environment?: Record<string, string>;
  /**
   * Log retention.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Copy the export's encode worker (`encode-worker.mjs`) next to the bundle.
   * @default false
   */
  readonly withEncodeWorker?: boolean;
}

/**
 * One Lambda function of the workflow with the project's defaults: nodejs22.x on ARM64,
 * bundled by the local esbuild (no Docker) as ESM, minified with names kept (Step Functions
 * matches error names), source maps, structured JSON logs with retention, X-Ray tracing.
 */
export class WorkflowFunction extends Construct {
  readonly function: nodejs.NodejsFunction;

  constructor(scope: Construct, id: string, props: WorkflowFunctionProps) {
    super(scope, id);
    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    });
    const workerSource = path.join(PROJECT_ROOT, 'lib/export/spill/encode-worker.ts');
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, 'lambdas', `${props.handlerModule}.ts`),
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 256,
      timeout: props.timeout ?? Duration.seconds(120),
      tracing: lambda.Tracing.ACTIVE,
      loggingFormat: lambda.LoggingFormat.JSON,
      logGroup,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'report-export',
        POWERTOOLS_METRICS_NAMESPACE: 'ReportExport',
        ...props.environment,
      },
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: 'node22',
        minify: true,
        keepNames: true,
        sourceMap: true,
        mainFields: ['module', 'main'],
        // ESM bundles of CommonJS dependencies need require().
        banner:
          "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        forceDockerBundling: false,
        ...(props.withEncodeWorker
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_input: string, output: string) => [
                  `"${path.join(PROJECT_ROOT, 'node_modules/.bin/esbuild')}" "${workerSource}" --bundle --platform=node --format=esm --target=node22 --minify --keep-names --outfile="${output}/encode-worker.mjs" --banner:js="import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"`,
                ],
              },
            }
          : {}),
      },
    });
  }
}
