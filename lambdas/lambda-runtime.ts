import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricsSink, TaskContext } from '../lib/workflow';
import { createWorkflowRuntime, type WorkflowRuntime } from '../lib/workflow';

/** One structured JSON logger per function (Powertools), service name from POWERTOOLS_SERVICE_NAME. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'report-export' });

const workflowLogger = {
  info: (message: string, data?: Record<string, unknown>) => logger.info(message, data ?? {}),
  warn: (message: string, data?: Record<string, unknown>) => logger.warn(message, data ?? {}),
  error: (message: string, data?: Record<string, unknown>) => logger.error(message, data ?? {}),
};

/**
 * The handlers' runtime, built from the environment at cold start. In Lambda an invalid
 * setting fails the init with a message that names it; elsewhere (an import by the local
 * workflow, which builds its own runtime) nothing is read until the first call.
 */
let built: WorkflowRuntime | undefined;
export function runtime(): WorkflowRuntime {
  built ??= createWorkflowRuntime(process.env, { logger: workflowLogger });
  return built;
}
declare global {
  /** Set by the bundler (lib/infra/workflow-function.ts): the AWS SDK version inside the bundle. */
  var REPORT_EXPORT_AWS_SDK_VERSION: string | undefined;
}

/** The AWS SDK this code runs with: the bundle's own (never the runtime's), or the installed one. */
const AWS_SDK_VERSION = globalThis.REPORT_EXPORT_AWS_SDK_VERSION ?? 'unbundled';

if (process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined) {
  runtime();
  // Which SDK and Node a cold start runs on: the first line to read when AWS behaves unlike the tests.
  logger.info('cold start', {
    function: process.env.AWS_LAMBDA_FUNCTION_NAME,
    awsSdkVersion: AWS_SDK_VERSION,
    node: process.version,
  });
}

/** Powertools Metrics (CloudWatch embedded metric format) behind the workflow's metrics port. */
export function lambdaMetrics(): MetricsSink {
  const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'ReportExport' });
  return {
    add: (name, unit, value) => metrics.addMetric(name, MetricUnit[unit], value),
    // Metadata is a member of the EMF line, searchable in Logs Insights, not a dimension.
    addProperty: (name, value) => metrics.addMetadata(name, value),
    flush: () => {
      metrics.publishStoredMetrics();
    },
  };
}

/** A Lambda handler around a workflow handler factory: context on the logger, runtime at module scope. */
export function lambdaHandler<E, R>(
  factory: (rt: WorkflowRuntime) => (event: E, context?: TaskContext) => Promise<R>,
  options: { beforeInvoke?: () => Promise<void> } = {},
): (event: E, context?: TaskContext & object) => Promise<R> {
  let bound: ((event: E, context?: TaskContext) => Promise<R>) | undefined;
  return async (event, context) => {
    if (context !== undefined) logger.addContext(context as never);
    await options.beforeInvoke?.();
    bound ??= factory(runtime());
    return bound(event, context);
  };
}
