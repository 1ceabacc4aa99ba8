import '../../../lib/local/promise-polyfill';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import {
  enforceStateDataLimits,
  STATE_DATA_LIMIT_BYTES,
  withLambdaLimits,
} from '../../../lib/local/data-limits';

/** A Task whose every failure is caught by States.ALL into a Pass, as the workflow's are. */
function caughtTask(next?: string) {
  return {
    Type: 'Task',
    Resource: 'arn:aws:lambda:us-east-1:123456789012:function:Big',
    Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }],
    ...(next === undefined ? { End: true } : { Next: next }),
  };
}

const CAUGHT = { Type: 'Pass', Result: 'caught', End: true };

async function run(definition: object, handlers: Record<string, (e: never) => Promise<unknown>>, input = {}) {
  enforceStateDataLimits();
  const machine = new StateMachine(definition as never, { validationOptions: { checkArn: false } });
  const execution = machine.run(input as never, {
    overrides: { taskResourceLocalHandlers: handlers as never },
  });
  try {
    return { output: await execution.result, error: null };
  } catch (error) {
    const cause = (error as { cause?: Error }).cause ?? (error as Error);
    return { output: null, error: cause };
  }
}

const big = (extra = 1) => ({ text: 'x'.repeat(STATE_DATA_LIMIT_BYTES + extra) });

describe('local state data limits', () => {
  it('fails the execution with States.DataLimitExceeded, not caught by States.ALL, when a task returns more than 256 KiB', async () => {
    // Prepare
    const definition = { StartAt: 'Big', States: { Big: caughtTask(), Caught: CAUGHT } };
    // Act
    const result = await run(definition, { Big: withLambdaLimits('Big', async () => big()) });
    // Assess
    expect(result.error?.name).toBe('States.DataLimitExceeded');
    expect(result.error?.message).toContain("'Big' returned a result");
  });

  it("fails the execution when a Pass state's output is over the limit, and inside a Map whose Catch is States.ALL", async () => {
    const definition = {
      StartAt: 'Each',
      States: {
        Each: {
          Type: 'Map',
          ItemsPath: '$.items',
          ItemProcessor: {
            StartAt: 'Grow',
            States: { Grow: { Type: 'Pass', Parameters: { 'a.$': '$.text', 'b.$': '$.text' }, End: true } },
          },
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }],
          End: true,
        },
        Caught: CAUGHT,
      },
    };
    const half = { text: 'x'.repeat(STATE_DATA_LIMIT_BYTES / 2) };
    const result = await run(definition, {}, { items: [half] });
    expect(result.error?.name).toBe('States.DataLimitExceeded');
    expect(result.error?.message).toContain("'Grow' has an output");
  });

  it('lets a function fail with Function.ResponseSizeTooLarge, a task error States.ALL catches, when it returns more than 6 MB', async () => {
    const definition = { StartAt: 'Big', States: { Big: caughtTask(), Caught: CAUGHT } };
    const result = await run(definition, { Big: withLambdaLimits('Big', async () => big(6_291_556)) });
    expect(result.error).toBeNull();
    expect(result.output).toBe('caught');
  });

  it('passes data at the limit', async () => {
    const definition = {
      StartAt: 'Fits',
      States: { Fits: { ...caughtTask(), ResultPath: null }, Caught: CAUGHT },
    };
    const fits = { text: 'x'.repeat(STATE_DATA_LIMIT_BYTES - '{"text":""}'.length) };
    const result = await run(definition, { Fits: withLambdaLimits('Fits', async () => fits) });
    expect(result.error).toBeNull();
  });
});
