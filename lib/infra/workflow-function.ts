import * as fs from 'node:fs';
import * as path from 'node:path';
import { Duration, Size, Token } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { environmentBytes, LAMBDA_ENVIRONMENT_LIMIT_BYTES } from './export-sizing';
import { StackConfigError } from './stack-config';

/** Repository root (handlers are known to infra by path only). */
export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** The global the bundles read the bundled SDK's version from (logged at cold start). */
export const AWS_SDK_VERSION_DEFINE = 'globalThis.REPORT_EXPORT_AWS_SDK_VERSION';

/** The version of the S3 client installed here, which every bundle carries. */
export function bundledAwsSdkVersion(): string {
  const manifest = path.join(PROJECT_ROOT, 'node_modules/@aws-sdk/client-s3/package.json');
  return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
}

interface WorkflowFunctionProps {
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
   * Ephemeral storage (`/tmp`) in MB.
   * @default 512
   */
  readonly ephemeralStorageMb?: number;
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
    const environment = {
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'report-export',
      POWERTOOLS_METRICS_NAMESPACE: 'ReportExport',
      ...props.environment,
    };
    checkEnvironmentSize(id, environment);
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
      ...(props.ephemeralStorageMb === undefined
        ? {}
        : { ephemeralStorageSize: Size.mebibytes(props.ephemeralStorageMb) }),
      tracing: lambda.Tracing.ACTIVE,
      loggingFormat: lambda.LoggingFormat.JSON,
      logGroup,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      environment,
      bundling: {
        // The SDK the tests ran, not the runtime's: lib-storage is not in every runtime, and
        // an older S3 client drops IfNoneMatch/IfMatch, the lease writes' conditions.
        bundleAwsSDK: true,
        define: { [AWS_SDK_VERSION_DEFINE]: JSON.stringify(bundledAwsSdkVersion()) },
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

/** What a reference resolved at deploy time (a bucket name, a secret ARN) may take at most. */
const DEPLOY_TIME_VALUE_BYTES = 256;

/**
 * Lambda refuses a function whose environment passes 4 KB (names and values): fail the
 * synthesis instead, naming the largest variables (REPORTS grows with the report list).
 */
function checkEnvironmentSize(id: string, environment: Record<string, string>): void {
  const sized = Object.fromEntries(
    Object.entries(environment).map(([k, v]) => [
      k,
      Token.isUnresolved(v) ? 'x'.repeat(DEPLOY_TIME_VALUE_BYTES) : v,
    ]),
  );
  const bytes = environmentBytes(sized);
  if (bytes <= LAMBDA_ENVIRONMENT_LIMIT_BYTES) return;
  const largest = Object.entries(sized)
    .sort((a, b) => b[1].length - a[1].length)
    .slice(0, 3)
    .map(([k, v]) => `${k} (${Buffer.byteLength(v)} bytes)`);
  throw new StackConfigError(
    `Function ${id}: its environment takes ${bytes} bytes, more than Lambda's ${LAMBDA_ENVIRONMENT_LIMIT_BYTES}; largest: ${largest.join(', ')}. Configure fewer reports per stack, or shorter report names`,
  );
}
