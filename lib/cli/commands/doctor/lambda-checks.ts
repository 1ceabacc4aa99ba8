import { type AccountLimit, GetAccountSettingsCommand } from '@aws-sdk/client-lambda';
import { awsErrorText, callOptions, type DoctorClients, isAccessDenied } from './aws-clients';
import type { StackSettings } from './config-checks';
import { type Check, check } from './report';

/**
 * `aws.lambda-concurrency` and `aws.lambda-memory`: what Lambda lets this account run, against
 * what the stack runs. New accounts start with reduced concurrency and memory quotas, which
 * AWS raises with use (Lambda Developer Guide, "Lambda quotas").
 *
 * Thresholds (docs/deploy.md, "Before deploying: report-export doctor"):
 * - One execution runs at most `mapConcurrency` jobs' functions at once (the Map's
 *   MaxConcurrency) and the directory sync beside them: mapConcurrency + 1. Fewer unreserved
 *   concurrent executions than that is a failure: every execution's Map is throttled (the
 *   tasks retry, and a long night runs out of retries or time).
 * - Below Lambda's default account quota (1,000; a new account's reduced one, often 10), or
 *   below two executions at once (a backfill's default --parallel 2, or two tenants' nights
 *   overlapping), is a warning: it works, throttled, until AWS raises it.
 * - ExportResults' memory (`exportMemoryMb`) above 3,008 MB, the most a new account may give
 *   a function, is a warning on an account whose concurrency quota is still a new account's
 *   (the deploy would fail with "'MemorySize' value failed to satisfy constraint"); ok
 *   otherwise. No API reports the memory quota itself (GetAccountSettings has none, Service
 *   Quotas lists none): the concurrency quota is what tells a new account.
 */

/** Lambda's default concurrent executions per account and region. */
const DEFAULT_ACCOUNT_CONCURRENCY = 1000;

/** The most memory a function of a new account may have, until AWS raises its quotas. */
const NEW_ACCOUNT_MEMORY_MB = 3008;

/** Executions at once the stack should run without throttling: a backfill's default --parallel. */
const PLANNED_EXECUTIONS = 2;

/** Service Quotas' code of Lambda's "Concurrent executions". */
const CONCURRENCY_QUOTA = 'L-B99A9384';

const increaseFix = (wanted: number) =>
  `request more: aws service-quotas request-service-quota-increase --service-code lambda --quota-code ${CONCURRENCY_QUOTA} --desired-value ${Math.max(wanted, DEFAULT_ACCOUNT_CONCURRENCY)}`;

export async function lambdaChecks(
  settings: StackSettings,
  clients: DoctorClients,
  signal: AbortSignal | undefined,
): Promise<Check[]> {
  let limit: AccountLimit;
  try {
    limit =
      (await clients.lambda.send(new GetAccountSettingsCommand({}), callOptions(signal))).AccountLimit ?? {};
  } catch (error) {
    const status = isAccessDenied(error) ? 'warn' : 'fail';
    const message = `cannot read the account's Lambda quotas: ${awsErrorText(error)}`;
    const fix = isAccessDenied(error)
      ? 'use credentials allowed lambda:GetAccountSettings'
      : 'run doctor --check again';
    return [
      check('aws.lambda-concurrency', status, message, { fix }),
      check('aws.lambda-memory', status, message, { fix }),
    ];
  }
  const account = limit.ConcurrentExecutions ?? 0;
  const unreserved = limit.UnreservedConcurrentExecutions ?? account;
  return [concurrencyCheck(settings, account, unreserved), memoryCheck(settings, account)];
}

function concurrencyCheck(settings: StackSettings, account: number, unreserved: number): Check {
  const perExecution = settings.mapConcurrency + 1;
  const planned = perExecution * PLANNED_EXECUTIONS;
  const has = `${unreserved} unreserved of ${account} concurrent executions`;
  const needs = `one execution runs up to ${perExecution} functions at once (mapConcurrency ${settings.mapConcurrency} from ${settings.source}, and the directory sync)`;
  if (unreserved < perExecution) {
    return check('aws.lambda-concurrency', 'fail', `${has}; ${needs}: every execution would be throttled`, {
      fix: `${increaseFix(planned)}, or lower mapConcurrency to ${Math.max(1, unreserved - 1)}`,
    });
  }
  if (account < DEFAULT_ACCOUNT_CONCURRENCY || unreserved < planned) {
    return check(
      'aws.lambda-concurrency',
      'warn',
      `${has}, below Lambda's default ${DEFAULT_ACCOUNT_CONCURRENCY} (a new account's quota) or ${PLANNED_EXECUTIONS} executions at once (${planned}); ${needs}: backfills and overlapping nights are throttled`,
      { fix: increaseFix(planned) },
    );
  }
  return check('aws.lambda-concurrency', 'ok', `${has}; ${needs}`);
}

function memoryCheck(settings: StackSettings, account: number): Check {
  const needs = `ExportResults needs ${settings.exportMemoryMb} MB (exportMemoryMb from ${settings.source})`;
  if (settings.exportMemoryMb <= NEW_ACCOUNT_MEMORY_MB) {
    return check(
      'aws.lambda-memory',
      'ok',
      `${needs}: within even a new account's ${NEW_ACCOUNT_MEMORY_MB} MB`,
    );
  }
  if (account < DEFAULT_ACCOUNT_CONCURRENCY) {
    return check(
      'aws.lambda-memory',
      'warn',
      `${needs}; this account's quotas are a new account's (${account} concurrent executions), which hold a function to ${NEW_ACCOUNT_MEMORY_MB} MB: the deploy would likely fail on MemorySize`,
      {
        fix: `set exportMemoryMb to ${NEW_ACCOUNT_MEMORY_MB} or less until AWS raises the account's quotas (or ask AWS Support to)`,
      },
    );
  }
  return check(
    'aws.lambda-memory',
    'ok',
    `${needs}; the account's quotas are past a new account's (${account} concurrent executions)`,
  );
}
