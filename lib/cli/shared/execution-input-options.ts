import { UsageError } from '../../command-line';
import { type ExecutionInput, parseExecutionInput } from '../../workflow';
import type { CONTACTS_CHOICES } from './execution-input-spec';

/**
 * The options that make a workflow execution input, shared by `run`, `start` and
 * `backfill`: they produce the same JSON the nightly schedule and Step Functions take
 * (lib/workflow/input.ts), checked before anything is started.
 */

export { calendarDateValue, EXECUTION_INPUT_OPTIONS } from './execution-input-spec';

interface ExecutionInputValues {
  date?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  preset?: string | undefined;
  report?: string[] | undefined;
  'filter-id'?: string | undefined;
  'force-replace'?: boolean | undefined;
  contacts?: (typeof CONTACTS_CHOICES)[number] | undefined;
}

/** The execution input of the flags; a usage error naming them when they do not make one. */
export function executionInputOf(v: ExecutionInputValues): ExecutionInput {
  const modes = [
    v.date !== undefined && '--date',
    (v.from !== undefined || v.to !== undefined) && '--from/--to',
    v.preset !== undefined && '--preset',
  ].filter((m): m is string => m !== false);
  // --contacts only: the directories alone, no report and no dates.
  if (v.contacts === 'only') return contactsOnlyInput(v, modes);
  if (modes.length !== 1) {
    throw new UsageError(
      modes.length === 0
        ? 'give one of --date, --from and --to, or --preset'
        : `give only one of --date, --from/--to, --preset; got ${modes.join(' and ')}`,
    );
  }
  if ((v.from === undefined) !== (v.to === undefined)) {
    throw new UsageError(
      `${v.from === undefined ? '--from' : '--to'} is required with ${v.from === undefined ? '--to' : '--from'}`,
    );
  }
  if (v.from !== undefined && v.to !== undefined && v.to < v.from) {
    throw new UsageError(`--to (${v.to}) must not be before --from (${v.from})`);
  }
  const input: Record<string, unknown> = {};
  if (v.date !== undefined) input.date = v.date;
  if (v.from !== undefined) input.from = v.from;
  if (v.to !== undefined) input.to = v.to;
  if (v.preset !== undefined) input.preset = v.preset;
  if (v.report !== undefined) input.reports = v.report;
  if (v['filter-id'] !== undefined) input.filterId = v['filter-id'];
  if (v['force-replace'] === true) input.forceReplace = true;
  if (v.contacts !== undefined) input.contacts = v.contacts;
  return parsed(input);
}

/** `--contacts only` with report options (flag names, e.g. `--from`): a usage error naming them. */
export function refuseWithContactsOnly(reportOptions: readonly string[]): void {
  if (reportOptions.length > 0) {
    throw new UsageError(
      `--contacts only syncs the contact directories alone: it takes no ${reportOptions.join(', ')}`,
    );
  }
}

/** `--contacts only`'s input: any report option is a usage error naming it. */
function contactsOnlyInput(v: ExecutionInputValues, modes: readonly string[]): ExecutionInput {
  const reportOptions = [
    ...modes,
    ...(v.report === undefined ? [] : ['--report']),
    ...(v['filter-id'] === undefined ? [] : ['--filter-id']),
  ];
  refuseWithContactsOnly(reportOptions);
  return parsed({ contacts: 'only', ...(v['force-replace'] === true ? { forceReplace: true } : {}) });
}

function parsed(input: Record<string, unknown>): ExecutionInput {
  try {
    return parseExecutionInput(input);
  } catch (cause) {
    throw new UsageError((cause as Error).message, { cause });
  }
}
