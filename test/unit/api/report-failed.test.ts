import { describe, expect, it } from 'vitest';
import { ReportFailedError } from '../../../lib/api';

describe('ReportFailedError', () => {
  it('cuts the status message to 1 KiB when the service sends a huge one', () => {
    // Act
    const error = new ReportFailedError({
      reportStatus: 'Failed',
      statusMessage: 'm'.repeat(50_000),
      reportId: 'r',
      requestId: 'q',
    });
    // Assess
    expect(error.statusMessage).toHaveLength(1024);
    expect(error.serviceMessage).toBe(error.statusMessage);
    expect(error.message.length).toBeLessThan(1200);
    expect(error.reportStatus).toBe('Failed');
  });
});
