import { describe, expect, it } from 'vitest';
import { DirectoryStoreError } from '../../../lib/simulator/directories/directory-store';
import { SIM_ERROR_CODES, SimulatorError } from '../../../lib/simulator/errors';
import { InvalidFaultRuleError } from '../../../lib/simulator/faults';
import {
  InvalidValueError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  ReportNotReadyError,
  WindowTooLongError,
} from '../../../lib/simulator/http/errors';
import {
  AuthorizeRedirectError,
  BodyTooLargeError,
  InvalidClientError,
  UntrustedRedirectError,
} from '../../../lib/simulator/oauth/errors';

describe('simulator errors', () => {
  it.each([
    { error: new InvalidValueError('x'), name: 'InvalidValueError', code: 'SIM_INVALID_VALUE' },
    { error: new WindowTooLongError('a', 'b', 366), name: 'WindowTooLongError', code: 'SIM_WINDOW_TOO_LONG' },
    { error: new NotFoundError(), name: 'NotFoundError', code: 'SIM_NOT_FOUND' },
    {
      error: new MethodNotAllowedError(['GET']),
      name: 'MethodNotAllowedError',
      code: 'SIM_METHOD_NOT_ALLOWED',
    },
    { error: new ReportNotReadyError('m'), name: 'ReportNotReadyError', code: 'SIM_REPORT_NOT_READY' },
    { error: new PayloadTooLargeError(), name: 'PayloadTooLargeError', code: 'SIM_PAYLOAD_TOO_LARGE' },
    { error: new InvalidFaultRuleError('m'), name: 'InvalidFaultRuleError', code: 'SIM_INVALID_FAULT_RULE' },
    {
      error: new DirectoryStoreError('m'),
      name: 'DirectoryStoreError',
      code: 'SIM_DIRECTORY_STORE_UNREADABLE',
    },
    { error: new InvalidClientError(), name: 'InvalidClientError', code: 'SIM_OAUTH_INVALID_CLIENT' },
    {
      error: new UntrustedRedirectError('invalid_request', 'd'),
      name: 'UntrustedRedirectError',
      code: 'SIM_OAUTH_INVALID_REQUEST',
    },
    { error: new BodyTooLargeError(10), name: 'BodyTooLargeError', code: 'SIM_OAUTH_INVALID_REQUEST' },
    {
      error: new AuthorizeRedirectError('access_denied', 'd', { redirectUri: 'http://x/', state: undefined }),
      name: 'AuthorizeRedirectError',
      code: 'SIM_OAUTH_ACCESS_DENIED',
    },
  ])('names $name by a literal and carries $code from the one list', ({ error, name, code }) => {
    // Assess
    expect(error).toBeInstanceOf(SimulatorError);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(Object.values(SIM_ERROR_CODES)).toContain(code);
  });

  it('spells every code in UPPER_SNAKE with the SIM_ prefix', () => {
    // Assess
    for (const code of Object.values(SIM_ERROR_CODES)) expect(code).toMatch(/^SIM_[A-Z0-9_]+$/);
  });
});
