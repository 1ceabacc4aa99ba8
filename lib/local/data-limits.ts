import './promise-polyfill';
import { StateMachine } from 'aws-local-stepfunctions';
import { STATE_DATA_LIMIT_BYTES } from '../workflow';
import { LambdaInvokeError } from './function-processes';

/**
 * Step Functions' payload quota (the workflow's, which sizes its jobs by it): a state's input
 * (after InputPath and Parameters) and output, and a task's result, in UTF-8 bytes of their JSON.
 * https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html
 */
export { STATE_DATA_LIMIT_BYTES };

/**
 * Lambda's quota on a synchronous invocation's response, as its error message states it
 * (its quota on the request, 6 MiB, is never reached: Step Functions' comes first).
 */
const LAMBDA_RESPONSE_LIMIT_BYTES = 6_291_556;

/** The error name Step Functions gives data over its quota. */
const DATA_LIMIT_EXCEEDED = 'States.DataLimitExceeded';

/**
 * Data over Step Functions' quota. A terminal error: `States.ALL` neither retries nor catches
 * it, so the execution fails where it happened, with no Catch path run (no run record, no
 * notice), as in AWS. The engine reads `isRetryable` and `isCatchable`.
 */
class DataLimitExceededError extends Error {
  readonly isRetryable = false;
  readonly isCatchable = false;
  constructor(message: string) {
    super(message);
    this.name = DATA_LIMIT_EXCEEDED;
  }
}

/** UTF-8 bytes of a value's JSON text. */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

/** Throws States.DataLimitExceeded when `value` is over the state quota. */
function checkStateData(state: string, what: 'input' | 'output' | 'result', value: unknown): void {
  const bytes = jsonBytes(value);
  if (bytes <= STATE_DATA_LIMIT_BYTES) return;
  const verb = what === 'input' ? 'has an input' : what === 'output' ? 'has an output' : 'returned a result';
  throw new DataLimitExceededError(
    `The state/task '${state}' ${verb} with a size exceeding the maximum number of bytes service limit (${bytes} bytes > ${STATE_DATA_LIMIT_BYTES})`,
  );
}

/**
 * A Lambda Task's function with the quotas AWS applies around it, in AWS's order: Step
 * Functions' on the payload it sends, Lambda's on the response (`Function.ResponseSizeTooLarge`,
 * a function error the Task's Retry and Catch see), then Step Functions' on the result.
 */
export function withLambdaLimits<E, R>(
  state: string,
  fn: (event: E) => Promise<R>,
): (event: E) => Promise<R> {
  return async (event) => {
    checkStateData(state, 'input', event);
    const result = await fn(event);
    if (jsonBytes(result) > LAMBDA_RESPONSE_LIMIT_BYTES) {
      throw new LambdaInvokeError(
        'Function.ResponseSizeTooLarge',
        `Response payload size exceeded maximum allowed payload size (${LAMBDA_RESPONSE_LIMIT_BYTES} bytes).`,
      );
    }
    checkStateData(state, 'result', result);
    return result;
  };
}

/** A task that is not a Lambda function (SNS, the Step Functions SDK): Step Functions' quota only. */
export function withStateLimits<E, R>(state: string, fn: (event: E) => Promise<R>): (event: E) => Promise<R> {
  return async (event) => {
    checkStateData(state, 'input', event);
    const result = await fn(event);
    checkStateData(state, 'result', result);
    return result;
  };
}

interface EngineLogger {
  dispatchStateEnteredEvent(name: string, type: string, input: unknown): void;
  dispatchStateExitedEvent(name: string, type: string, input: unknown, output: unknown): void;
}

const PATCHED = Symbol.for('report-export.data-limits');
let installed = false;

/**
 * Makes aws-local-stepfunctions apply the state quota to every state's input and output,
 * as AWS does (the engine has no quota of its own). The engine announces each state's
 * input and output to its event logger synchronously inside its run loop (3.0.0, the
 * pinned version): a check there throws into the loop, which fails the execution (or the
 * Map iteration, whose Map state then neither retries nor catches the terminal error).
 * Idempotent; throws if the engine's internals are not the expected ones, rather than
 * run without the quota.
 */
export function enforceStateDataLimits(): void {
  if (installed) return;
  const proto = StateMachine.prototype as unknown as {
    execute?: (
      this: unknown,
      input: unknown,
      options: { eventLogger?: unknown },
      ...rest: unknown[]
    ) => unknown;
  };
  const execute = proto.execute;
  if (typeof execute !== 'function') {
    throw new Error(
      'aws-local-stepfunctions has no StateMachine.execute: the state data quota cannot be applied',
    );
  }
  proto.execute = function (this: unknown, input, options, ...rest) {
    patchLogger(options?.eventLogger);
    return execute.call(this, input, options, ...rest);
  };
  installed = true;
}

function patchLogger(logger: unknown): void {
  const proto = (logger === null || typeof logger !== 'object' ? undefined : Object.getPrototypeOf(logger)) as
    | (EngineLogger & { [PATCHED]?: true })
    | undefined;
  if (
    proto === undefined ||
    typeof proto.dispatchStateEnteredEvent !== 'function' ||
    typeof proto.dispatchStateExitedEvent !== 'function'
  ) {
    throw new Error(
      'aws-local-stepfunctions has no state event logger: the state data quota cannot be applied',
    );
  }
  if (proto[PATCHED]) return;
  const entered = proto.dispatchStateEnteredEvent;
  const exited = proto.dispatchStateExitedEvent;
  proto.dispatchStateEnteredEvent = function (this: EngineLogger, name, type, input) {
    checkStateData(name, 'input', input);
    entered.call(this, name, type, input);
  };
  proto.dispatchStateExitedEvent = function (this: EngineLogger, name, type, input, output) {
    checkStateData(name, 'output', output);
    exited.call(this, name, type, input, output);
  };
  proto[PATCHED] = true;
}
