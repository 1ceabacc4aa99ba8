import { describe, expect, it } from 'vitest';
import {
  API_ERROR_TABLE,
  type ApiErrorCode,
  type ApiErrorTreatment,
  type OAuthErrorCode,
} from '../../../lib/api';
import {
  type ErrorOutcome,
  SOURCE_ERROR_CODES,
  TASK_ERROR_NAMES,
  TASK_ERROR_OUTCOMES,
} from '../../../lib/workflow/error-table';

/** The task outcomes the workflow may give an error the client treats so. */
const ALLOWED: Record<ApiErrorTreatment, readonly ErrorOutcome[]> = {
  // Worth retrying later: the state machine must not end the job on it.
  transient: ['transient', 'split', 'lease-wait'],
  // The same call fails the same way: retrying would only spend the budget (and tokens).
  terminal: ['terminal'],
  'caller-decides': ['transient', 'split', 'lease-wait', 'terminal'],
};

const CODES = Object.keys(API_ERROR_TABLE) as (ApiErrorCode | OAuthErrorCode)[];

describe("the client's error table against the workflow's", () => {
  it.each(CODES)('gives %s a task outcome its treatment allows', (code) => {
    // Prepare
    const { name, treatment } = API_ERROR_TABLE[code];
    const task = SOURCE_ERROR_CODES[code];

    // Act
    const outcome = TASK_ERROR_OUTCOMES[task];

    // Assess
    expect(ALLOWED[treatment], `${name} (${treatment}) becomes ${task} (${outcome})`).toContain(outcome);
  });

  it('names a client error the workflow passes on as the client does', () => {
    // Prepare: the task codes that are the client's own (invalid_grant, the poll budget).
    const passedOn = CODES.filter((code) => code in TASK_ERROR_NAMES) as (keyof typeof TASK_ERROR_NAMES &
      keyof typeof API_ERROR_TABLE)[];

    // Assess
    expect(passedOn.length).toBeGreaterThan(0);
    for (const code of passedOn) expect(TASK_ERROR_NAMES[code], code).toBe(API_ERROR_TABLE[code].name);
  });
});
