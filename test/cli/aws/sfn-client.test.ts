import { describe, expect, it } from 'vitest';
import { sfnClientFor } from '../../../lib/cli/aws/sfn-executions';

describe('sfnClientFor', () => {
  it('uses the region of the state machine ARN when no AWS_REGION is set', async () => {
    const client = sfnClientFor('arn:aws:states:eu-west-1:123456789012:stateMachine:ReportExport');
    expect(await client.config.region()).toBe('eu-west-1');
    client.destroy();
  });
});
