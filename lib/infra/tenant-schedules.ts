import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { scheduleDeadLetterQueue } from './export-schedule';

interface TenantSchedulesProps {
  readonly stateMachine: sfn.IStateMachine;
}

/**
 * What the CLI's per-tenant schedules need from the stack (`report-export tenants add/set/
 * remove` creates, changes and deletes them, no redeploy): a schedule group to keep them
 * in, the role Scheduler starts the state machine with, and the dead-letter queue of starts
 * it gave up on. One schedule per tenant, in the tenant's zone at its hour, with input
 * `{"tenant":"<id>","scheduledTime":"<aws.scheduler.scheduled-time>"}` (lib/infra/README.md).
 */
export class TenantSchedules extends Construct {
  readonly group: scheduler.ScheduleGroup;
  readonly role: iam.Role;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: TenantSchedulesProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.group = new scheduler.ScheduleGroup(this, 'Group', {});
    this.deadLetterQueue = scheduleDeadLetterQueue(this, 'DeadLetters');
    // Only Scheduler, for schedules of this account in this group (the confused deputy).
    this.role = new iam.Role(this, 'Role', {
      description: "report-export: EventBridge Scheduler starts a tenant's nightly run",
      assumedBy: new iam.PrincipalWithConditions(new iam.ServicePrincipal('scheduler.amazonaws.com'), {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': stack.formatArn({
            service: 'scheduler',
            resource: 'schedule',
            resourceName: `${this.group.scheduleGroupName}/*`,
          }),
        },
      }),
    });
    props.stateMachine.grantStartExecution(this.role);
    this.deadLetterQueue.grantSendMessages(this.role);
  }
}
