import { describe, expect, it } from 'vitest';
import * as api from '../../../lib/api';
import { LoginRequiredError, PollBudgetExhaustedError } from '../../../lib/api';
import { toWorkflowError } from '../../../lib/workflow/classify';
import {
  BY_CAUSE,
  DIRECTORY_RETRIED_ERROR_NAMES,
  LEASE_WAIT_ERROR_NAMES,
  RETRIED_ERROR_NAMES,
  SOURCE_ERROR_CODES,
  TASK_ERROR_NAMES,
  TASK_ERROR_OUTCOMES,
  type TaskErrorCode,
  TERMINAL_ERROR_NAMES,
} from '../../../lib/workflow/error-table';
import { LeaseBusyError, loginRequired, WorkflowError } from '../../../lib/workflow/errors';

/** An error of the client or the export core as the handlers meet it: a code and a message. */
function coded(code: string, cause?: unknown): Error & { code: string } {
  const error = new Error(`failure ${code}`, cause === undefined ? undefined : { cause }) as Error & {
    code: string;
  };
  error.code = code;
  return error;
}

// The client's PollBudgetExhaustedError passes as itself (tested below), not rebuilt from a code.
const ROWS = Object.entries(SOURCE_ERROR_CODES).filter(
  ([code, target]) => target !== BY_CAUSE && code !== 'API_POLL_BUDGET_EXHAUSTED',
) as [string, TaskErrorCode][];

describe('toWorkflowError', () => {
  it.each(ROWS)('turns %s into the task error the table names (%s)', (code, target) => {
    // Act
    const named = toWorkflowError(coded(code), 'Exporting report X');
    // Assess: the name the state machine matches, its code, and the outcome that name gets.
    expect(named.name).toBe(TASK_ERROR_NAMES[target]);
    expect(named.code).toBe(target);
    const outcome = TASK_ERROR_OUTCOMES[target];
    if (outcome === 'terminal') expect(TERMINAL_ERROR_NAMES).toContain(named.name);
    else if (outcome === 'lease-wait') expect(LEASE_WAIT_ERROR_NAMES).toContain(named.name);
    else expect(RETRIED_ERROR_NAMES).toContain(named.name);
  });

  it.each([
    ['API_SERVER_ERROR', 'ServiceUnavailableError'],
    ['OAUTH_INVALID_GRANT', 'LoginRequiredError'],
    ['EXPORT_ROW_INVALID', 'ExportFailedError'],
  ])('classifies the export core\'s "source failed" by its cause (%s -> %s)', (causeCode, name) => {
    const named = toWorkflowError(coded('EXPORT_SOURCE_FAILED', coded(causeCode)), 'Exporting');
    expect(named.name).toBe(name);
  });

  it("passes its own errors and the client's LoginRequiredError and PollBudgetExhaustedError through unchanged", () => {
    const own = new LeaseBusyError('busy');
    const login = loginRequired('log in again');
    const polls = new PollBudgetExhaustedError(3, 'Running');
    expect(toWorkflowError(own, 'x')).toBe(own);
    expect(toWorkflowError(login, 'x')).toBe(login);
    expect(toWorkflowError(polls, 'x')).toBe(polls);
    expect(login).toBeInstanceOf(LoginRequiredError);
    expect(login.message).toBe('log in again');
  });

  it.each(['ObjectStoreError', 'SecretStoreError', 'LeaseStoreError'])(
    'retries a %s as StoreFailedError',
    (name) => {
      const error = Object.assign(new Error('S3 said no'), { name });
      expect(toWorkflowError(error, 'x').name).toBe('StoreFailedError');
    },
  );

  it('ends the job on an error it does not know (ExportFailedError), never retried', () => {
    const named = toWorkflowError(new TypeError('x is undefined'), 'Exporting');
    expect(named).toBeInstanceOf(WorkflowError);
    expect(named.name).toBe('ExportFailedError');
    expect(TERMINAL_ERROR_NAMES).toContain('ExportFailedError');
  });

  it('says to log in again when the service refuses a freshly refreshed token (API_UNAUTHORIZED)', () => {
    const named = toWorkflowError(coded('API_UNAUTHORIZED'), 'Checking report X');
    expect(named.name).toBe('LoginRequiredError');
    expect(named.message).toMatch(/^Checking report X: .*log in again/);
  });
});

describe('the error table', () => {
  it('puts every task error name in exactly one of the retried, lease-wait, directory and terminal lists', () => {
    const all = Object.values(TASK_ERROR_NAMES);
    const listed = [
      ...RETRIED_ERROR_NAMES,
      ...LEASE_WAIT_ERROR_NAMES,
      ...DIRECTORY_RETRIED_ERROR_NAMES,
      ...TERMINAL_ERROR_NAMES,
    ];
    expect([...listed].sort()).toEqual([...all].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('never retries what a retry cannot fix: login, failed reports, invalid input, the spill budget', () => {
    for (const name of [
      'LoginRequiredError',
      'ReportRunFailedError',
      'InvalidInputError',
      'SpillBudgetExceededError',
      'PollBudgetExhaustedError',
    ]) {
      expect(TERMINAL_ERROR_NAMES).toContain(name);
    }
  });
});

describe("the client's transient and terminal lists", () => {
  it.each([
    () => new api.ConnectionError('m'),
    () => new api.TimeoutError('m'),
    () => new api.RateLimitedError('m'),
    () => new api.ServerError('m'),
    () => new api.TruncatedBodyError('m'),
    () => new api.PollBudgetExhaustedError(1, 'Running'),
    () => new api.LoginRequiredError(undefined, 400),
    () => new api.ValidationError('a', 'b'),
    () => new api.BadRequestError('m'),
    () => new api.NotFoundError('m'),
    () => new api.RedirectError(undefined),
    () => new api.ResponseTooLargeError(1),
  ])('agree with the workflow table for %s', (make) => {
    // Act: what the client calls transient, the state machine retries; terminal, it does not.
    const error = make();
    const named = toWorkflowError(error, 'Task');
    // Assess
    if ((api.API_TRANSIENT_ERROR_NAMES as readonly string[]).includes(error.name)) {
      expect(RETRIED_ERROR_NAMES).toContain(named.name);
    } else {
      expect(api.API_TERMINAL_ERROR_NAMES as readonly string[]).toContain(error.name);
      expect(TERMINAL_ERROR_NAMES).toContain(named.name);
    }
  });
});
