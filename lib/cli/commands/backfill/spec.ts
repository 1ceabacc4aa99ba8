import { defineCommand, HELP_OPTION, integerValue, nonEmptyValue } from '../../../command-line';
import { CONFIG_FILE_OPTION, configOptions } from '../../shared/config';
import { CLI_DEFAULTS } from '../../shared/defaults';
import { DRY_RUN_OPTIONS, EXECUTION_INPUT_OPTIONS } from '../../shared/execution-input-spec';
import { HELD_EXIT_NOTE } from '../../shared/exit-codes';
import { tenantOption } from '../../shared/tenant-option';

/** `backfill`: a long range as one execution per chunk, a few at a time, resumable. */
export const BACKFILL_COMMAND = defineCommand({
  name: 'backfill',
  usage: 'Usage: report-export backfill --from <d> --to <d> [options]',
  summary:
    'Exports a long range on the deployed state machine: one execution per chunk, bounded parallel, resumable.',
  description: `Splits --from..--to into chunks of --chunk-days local days and runs one execution
per chunk, at most --parallel at a time (each execution still splits its chunk into
jobs and continues in new executions when its history budget needs it). A state file
records every chunk's execution and outcome: running the same command again skips the
chunks that succeeded, re-attaches to the ones still running and retries the failed
ones, so an interrupted backfill finishes without starting anything twice.`,
  options: {
    from: EXECUTION_INPUT_OPTIONS.from,
    to: EXECUTION_INPUT_OPTIONS.to,
    report: EXECUTION_INPUT_OPTIONS.report,
    'filter-id': EXECUTION_INPUT_OPTIONS['filter-id'],
    'force-replace': EXECUTION_INPUT_OPTIONS['force-replace'],
    ...tenantOption(
      'the tenant it backfills: required by a multi-tenant deployment; its executions are named <id>-backfill-...',
    ),
    'chunk-days': {
      type: 'string',
      value: '<n>',
      help: 'days per execution',
      default: 31,
      parse: integerValue(1, 366),
    },
    parallel: {
      type: 'string',
      value: '<n>',
      help: 'executions at a time',
      default: 2,
      parse: integerValue(1, 10),
    },
    'state-file': {
      type: 'string',
      value: '<path>',
      help: 'progress record',
      defaultText: `./${CLI_DEFAULTS.stateDir}/backfill-<hash of the input>.json`,
      parse: nonEmptyValue,
    },
    'poll-ms': {
      type: 'string',
      value: '<ms>',
      help: 'pause between status polls',
      default: 5000,
      parse: integerValue(100, 600_000),
    },
    ...DRY_RUN_OPTIONS.execution,
    ...configOptions(['stateMachineArn']),
    ...CONFIG_FILE_OPTION,
    json: {
      type: 'boolean',
      help: 'print one JSON line {stateFile, chunks: [{from, to, status, executionArn}], ...}',
    },
    ...HELP_OPTION,
  },
  examples: [
    'report-export backfill --from 2025-01-01 --to 2026-10-31 --parallel 3',
    'report-export backfill --from 2026-01-01 --to 2026-06-30 --report "Lost calls" --chunk-days 14 --json',
    'report-export backfill --tenant acme --from 2026-01-01 --to 2026-06-30',
  ],
  notes: `Exit status: 0 every chunk SUCCEEDED, 1 some failed (run again to retry them), 2 usage or configuration error (AWS credentials, region or state machine missing included), before any chunk starts, ${HELD_EXIT_NOTE}.`,
});
