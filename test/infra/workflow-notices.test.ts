import { beforeAll, describe, expect, it } from 'vitest';
import '../../lib/local/promise-polyfill';
import { StateMachine } from 'aws-local-stepfunctions';
import { STATE_NAMES as S } from '../../lib/infra/export-workflow';
import { synthesizedDefinition } from '../../lib/local/definition';
import { IMMEDIATE_NOTICE_ERROR_NAMES } from '../../lib/workflow/error-table';

/**
 * Which failures the synthesized state machine notifies at once (issue 30): only those that
 * need a person now; every other failure fails the execution without a notice and waits for
 * the night's digest. Run on the synthesized definition from its two failure paths.
 */

type Definition = { StartAt: string; States: Record<string, unknown> };

let definition: Definition;

beforeAll(() => {
  definition = synthesizedDefinition() as unknown as Definition;
});

/** Runs the definition from `start`, with `handlers` for its Tasks; what it published and how it ended. */
async function runFrom(
  start: string,
  input: Record<string, unknown>,
  handlers: Record<string, (event: unknown) => Promise<unknown>> = {},
): Promise<{ notices: unknown[]; error: string | undefined; entered: string[] }> {
  const notices: unknown[] = [];
  const notify = async (event: { Message?: unknown }) => {
    notices.push(event.Message);
    return { MessageId: 'm-1' };
  };
  const machine = new StateMachine({ ...definition, StartAt: start } as never, {
    // Started inside the definition: the states before it are unreachable, which the validator refuses.
    validationOptions: { noValidate: true },
  });
  const execution = machine.run(input as never, {
    overrides: {
      taskResourceLocalHandlers: {
        [S.notifyFailure]: notify,
        [S.notifyCaughtFailure]: notify,
        ...handlers,
      } as never,
      retryIntervalOverrides: { [S.recordFailure]: 0 },
    },
  });
  const entered: string[] = [];
  const log = (async () => {
    for await (const e of execution.eventLogs) {
      const ev = e as { type: string; state?: { name: string } };
      if (ev.type === 'StateEntered' && ev.state !== undefined) entered.push(ev.state.name);
    }
  })();
  let error: string | undefined;
  try {
    await execution.result;
  } catch (e) {
    // The engine's ExecutionError carries the Fail state's error as its cause.
    error = ((e as { cause?: { name?: string } }).cause ?? (e as Error)).name;
  }
  await log;
  return { notices, error, entered };
}

const AFTER_FINALIZE = (error: string) => ({
  executionName: 'nightly-acme',
  plan: { tenant: 'acme' },
  summary: {
    tenant: 'acme',
    runId: 'run-1',
    status: 'FAILED',
    failedJobs: 1,
    error,
    cause: `${error} of the test`,
    hasContinuation: false,
  },
});

const CAUGHT = (error: string) => ({
  executionName: 'nightly-acme',
  startedAt: '2026-12-04T02:00:00Z',
  plan: { tenant: 'acme' },
  failure: { Error: error, Cause: `${error} of the test` },
});

/** Failures that wait for the digest: a report the service failed, an input refused, crashes ... */
const NOT_URGENT = [
  'ReportRunFailedError',
  'InvalidInputError',
  'ContinuationStoppedError',
  'StoreFailedError',
  'TenantDisabledError',
  'Runtime.ExitError',
];

describe('the immediate notices', () => {
  it('are for a revoked login, an invalid tenant entry and refused deployment settings', () => {
    // Assess: the rule's list, by the classes' names
    expect([...IMMEDIATE_NOTICE_ERROR_NAMES].sort()).toEqual([
      'InvalidConfigError',
      'LoginRequiredError',
      'TenantConfigError',
    ]);
  });

  it.each(IMMEDIATE_NOTICE_ERROR_NAMES.map((n) => [n]))(
    'notify a failed job with %s at once, then fail the execution with it',
    async (name) => {
      // Act
      const run = await runFrom(S.failedJobs, AFTER_FINALIZE(name));

      // Assess
      expect(run.notices).toEqual([expect.objectContaining({ tenant: 'acme', error: name })]);
      expect(run.entered).toContain(S.failureNeedsPerson);
      expect(run.entered.at(-1)).toBe(S.exportFailed);
    },
  );

  it.each(NOT_URGENT.map((n) => [n]))(
    'do not notify a failed job with %s: the execution fails without a notice',
    async (name) => {
      // Act
      const run = await runFrom(S.failedJobs, AFTER_FINALIZE(name));

      // Assess
      expect(run.notices).toEqual([]);
      expect(run.entered).toEqual([S.failedJobs, S.failureNeedsPerson, S.exportFailed]);
      expect(run.error).toBe(name);
    },
  );

  it.each([
    ...IMMEDIATE_NOTICE_ERROR_NAMES.map((n) => [n, 1] as const),
    ...NOT_URGENT.map((n) => [n, 0] as const),
  ])('notify a caught failure with %s recorded: %i notice(s)', async (name, notices) => {
    // Act
    const run = await runFrom(S.recordFailure, CAUGHT(name), {
      [S.recordFailure]: async () => ({ tenant: 'acme', status: 'FAILED' }),
    });

    // Assess
    expect(run.notices).toHaveLength(notices);
    expect(run.entered).toContain(S.caughtFailureNeedsPerson);
    expect(run.entered.at(-1)).toBe(S.runFailed);
    expect(run.error).toBe(name);
  });

  it('notify a caught failure at once whatever it is when it could not be recorded', async () => {
    // Act: RecordFailure itself fails, so no record exists for the digest to read
    const run = await runFrom(S.recordFailure, CAUGHT('ReportRunFailedError'), {
      [S.recordFailure]: async () => {
        throw Object.assign(new Error('the lake refused'), { name: 'StoreFailedError' });
      },
    });

    // Assess
    expect(run.notices).toEqual([expect.objectContaining({ tenant: 'acme', error: 'ReportRunFailedError' })]);
    expect(run.entered).not.toContain(S.caughtFailureNeedsPerson);
    expect(run.error).toBe('ReportRunFailedError');
  });
});
