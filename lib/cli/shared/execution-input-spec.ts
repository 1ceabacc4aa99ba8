import { isGuid } from '../../api/validate';
import { parseCalendarDate } from '../../calendar';
import { choiceValue, nonEmptyValue, UsageError, type ValueParser } from '../../command-line';
import { PRESET_NAMES } from '../../spec';

/**
 * The options that make a workflow execution input (`run`, `start`, `backfill`), apart
 * from the code that makes the input of them (execution-input-options.ts, which loads the
 * input's schema), so that the commands' specs stay light for help and completion.
 */

/** A date option, checked when parsed: `2026-02-30` is a usage error naming the flag. */
export const calendarDateValue: ValueParser<string> = (raw, flag) => {
  try {
    parseCalendarDate(flag, raw);
  } catch (cause) {
    throw new UsageError((cause as Error).message, { cause });
  }
  return raw;
};

const guidValue: ValueParser<string> = (raw, flag) => {
  if (!isGuid(raw)) throw new UsageError(`${flag} must be a GUID, got '${raw}'`);
  return raw;
};

/**
 * `--dry-run` of the commands that start executions. `run` plans on this machine (it signs
 * in to list the reports, which may refresh the stored login); `start` and `backfill` know
 * only the inputs they would send: the jobs come from the deployed Plan function's settings.
 */
export const DRY_RUN_OPTIONS = {
  run: {
    'dry-run': {
      type: 'boolean',
      help: 'print the plan (executions, jobs, windows, the published partitions replaced); request no report, write nothing but a refreshed login',
    },
  },
  execution: {
    'dry-run': {
      type: 'boolean',
      help: 'print the execution inputs it would send (not the jobs: the deployment plans them; run --dry-run --out <DataLakeUri> shows jobs and partitions); start nothing',
    },
  },
} as const;

/** The input's `contacts` (lib/workflow/input.ts CONTACTS_MODES, checked in execution-input-options.ts). */
export const CONTACTS_CHOICES = ['sync', 'skip', 'only'] as const;

/** `--contacts`: what the execution does with the tenant's contact directories. */
export const CONTACTS_OPTION = {
  type: 'string',
  value: '<sync|skip|only>',
  help: 'the contact directories: sync them beside the reports (the default), skip them, or sync only them (no report, no dates)',
  parse: choiceValue(CONTACTS_CHOICES),
} as const;

export const EXECUTION_INPUT_OPTIONS = {
  date: { type: 'string', value: '<YYYY-MM-DD>', help: 'one local date', parse: calendarDateValue },
  from: {
    type: 'string',
    value: '<YYYY-MM-DD>',
    help: 'first local date (with --to)',
    parse: calendarDateValue,
  },
  to: { type: 'string', value: '<YYYY-MM-DD>', help: 'last local date, inclusive', parse: calendarDateValue },
  preset: {
    type: 'string',
    value: '<name>',
    help: `a period the service knows: ${PRESET_NAMES.join(', ')}`,
    parse: choiceValue(PRESET_NAMES),
  },
  report: {
    type: 'string',
    value: '<id|name>',
    help: 'a report to export (repeatable; default every report)',
    parse: nonEmptyValue,
    multiple: true,
  },
  'filter-id': {
    type: 'string',
    value: '<guid>',
    help: 'a predefined filter of the service',
    parse: guidValue,
  },
  'force-replace': {
    type: 'boolean',
    help: 'replace published days even with far fewer rows, or directories with far fewer items (the shrink guard holds those otherwise)',
  },
  contacts: CONTACTS_OPTION,
} as const;
