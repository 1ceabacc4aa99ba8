import {
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  DeleteScheduleCommand,
  GetScheduleCommand,
  type SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { intradayCron, intradayMinute, type TenantEntry } from '../../../workflow';
import type { TenancyOutputs } from '../../aws/stack-outputs';

/**
 * A tenant's nightly schedule in a multi-tenant stack: one EventBridge Scheduler schedule
 * per tenant, named by its id, in the stack's schedule group. Scheduler does the zone's
 * daylight-saving arithmetic; the flexible window spreads the tenants that share an hour.
 */

/** Minutes within which Scheduler may start a tenant's run after its hour. */
export const FLEXIBLE_WINDOW_MINUTES = 30;
/** Attempts to start the execution, and for how long, before the start goes to the dead-letter queue. */
const RETRY_POLICY = { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 6 * 3600 } as const;

/** The schedule's state as the tenants commands report it: absent, or whether it fires. */
export type ScheduleState = 'absent' | 'ENABLED' | 'DISABLED';

/** The schedule of a tenant: what CreateSchedule and UpdateSchedule both take (Update replaces it whole). */
export function scheduleRequest(
  entry: Pick<TenantEntry, 'id' | 'name' | 'timeZone' | 'hour' | 'enabled'>,
  stack: Pick<
    TenancyOutputs,
    'TenantScheduleGroup' | 'StateMachineArn' | 'TenantSchedulerRoleArn' | 'TenantDeadLetterQueueArn'
  >,
): CreateScheduleCommandInput {
  return {
    Name: entry.id,
    GroupName: stack.TenantScheduleGroup,
    Description: `report-export: nightly export of tenant ${entry.id} (${entry.name})`.slice(0, 512),
    ScheduleExpression: `cron(0 ${entry.hour} * * ? *)`,
    ScheduleExpressionTimezone: entry.timeZone,
    FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: FLEXIBLE_WINDOW_MINUTES },
    State: entry.enabled ? 'ENABLED' : 'DISABLED',
    Target: {
      Arn: stack.StateMachineArn,
      RoleArn: stack.TenantSchedulerRoleArn,
      // The context attribute is replaced by Scheduler: Plan exports the tenant's local day before it.
      Input: JSON.stringify({ tenant: entry.id, scheduledTime: '<aws.scheduler.scheduled-time>' }),
      DeadLetterConfig: { Arn: stack.TenantDeadLetterQueueArn },
      RetryPolicy: { ...RETRY_POLICY },
    },
  };
}

/**
 * The name of a tenant's intraday schedule: its id and `.intraday` (a tenant id has no dot, so
 * no tenant's nightly schedule can be named so).
 */
export function intradayScheduleName(id: string): string {
  return `${id}.intraday`;
}

/**
 * A tenant's intraday schedule (a second schedule beside its night: one schedule has one
 * cron), undefined when the entry has no refreshes. Its input names the refresh and its
 * scheduled time. Each tenant starts at its own minute of the interval (intradayMinute), and
 * Scheduler may start it up to a fifth of the interval late, which spreads the tenants further
 * without a refresh overtaking the next.
 */
export function intradayScheduleRequest(
  entry: Pick<TenantEntry, 'id' | 'name' | 'timeZone' | 'enabled' | 'intraday'>,
  stack: Pick<
    TenancyOutputs,
    'TenantScheduleGroup' | 'StateMachineArn' | 'TenantSchedulerRoleArn' | 'TenantDeadLetterQueueArn'
  >,
): CreateScheduleCommandInput | undefined {
  const schedule = entry.intraday;
  if (schedule === undefined) return undefined;
  const every = schedule.everyMinutes;
  return {
    Name: intradayScheduleName(entry.id),
    GroupName: stack.TenantScheduleGroup,
    Description:
      `report-export: intraday refreshes of tenant ${entry.id} (${entry.name}) every ${every} minutes`.slice(
        0,
        512,
      ),
    ScheduleExpression: intradayCron(schedule, intradayMinute(entry.id, every)),
    ScheduleExpressionTimezone: entry.timeZone,
    FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: Math.max(1, Math.floor(every / 5)) },
    State: entry.enabled ? 'ENABLED' : 'DISABLED',
    Target: {
      Arn: stack.StateMachineArn,
      RoleArn: stack.TenantSchedulerRoleArn,
      Input: JSON.stringify({
        tenant: entry.id,
        intraday: true,
        scheduledTime: '<aws.scheduler.scheduled-time>',
      }),
      DeadLetterConfig: { Arn: stack.TenantDeadLetterQueueArn },
      // A refresh older than its interval is stale before it starts: the next one replaces it.
      RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: Math.max(60, every * 60) },
    },
  };
}

function isNotFound(error: unknown): boolean {
  return (error as { name?: string }).name === 'ResourceNotFoundException';
}

/** Creates the tenant's schedule, or replaces it when it is there (a `set`, or an `add` run again). */
export async function putSchedule(
  client: SchedulerClient,
  request: CreateScheduleCommandInput,
): Promise<'created' | 'updated'> {
  try {
    await client.send(new UpdateScheduleCommand(request));
    return 'updated';
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  await client.send(new CreateScheduleCommand(request));
  return 'created';
}

/** Deletes the tenant's schedule; false when it had none. */
export async function deleteSchedule(client: SchedulerClient, group: string, id: string): Promise<boolean> {
  try {
    await client.send(new DeleteScheduleCommand({ Name: id, GroupName: group }));
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** Whether the tenant has a schedule and whether it fires. */
export async function scheduleState(
  client: SchedulerClient,
  group: string,
  id: string,
): Promise<ScheduleState> {
  try {
    const out = await client.send(new GetScheduleCommand({ Name: id, GroupName: group }));
    return out.State === 'DISABLED' ? 'DISABLED' : 'ENABLED';
  } catch (error) {
    if (isNotFound(error)) return 'absent';
    throw error;
  }
}
