import { defineCommand, HELP_OPTION, integerValue, nonEmptyValue, UsageError } from '../../../command-line';
import { CLI_DEFAULTS, LAKE_DIR_DEFAULT } from '../../shared/defaults';
import { HELD_EXIT_NOTE } from '../../shared/exit-codes';

/** `workflow`: one execution of the synthesized state machine on this machine. */
export const WORKFLOW_COMMAND = defineCommand({
  name: 'workflow',
  usage:
    'Usage: report-export workflow --input <json> [options]        (from a clone: npm run workflow -- ...)',
  summary: 'Runs one execution of the deployed state machine locally (local service, local store).',
  description: `Starts the local service in-process, logs in (auto-approval), and executes the
state machine that \`cdk synth\` produces with aws-local-stepfunctions, each Task on
its function's bundle as it deploys, in processes with the function's environment,
memory and timeout. Prints each state on stderr and one JSON line on
stdout; exits 0 only when the execution SUCCEEDED. An input naming a \`tenant\` runs on
the multi-tenant deployment: every tenant of the local service in a local registry
(london, new-york, sydney), each signed in as its own user.`,
  options: {
    input: {
      type: 'string',
      value: '<json>',
      help: 'execution input, e.g. {"date":"2026-11-20"}',
      parse: json,
    },
    out: {
      type: 'string',
      value: '<dir>',
      help: 'data lake directory',
      ...LAKE_DIR_DEFAULT,
      parse: nonEmptyValue,
    },
    'rows-per-day': {
      type: 'string',
      value: '<n>',
      help: 'calls the local service generates per weekday',
      default: CLI_DEFAULTS.rowsPerDay,
      parse: integerValue(1, 1_000_000),
    },
    'wait-ms': {
      type: 'string',
      value: '<ms>',
      help: 'length of every Wait state locally',
      default: CLI_DEFAULTS.localWaitMs,
      parse: integerValue(0, 600_000),
    },
    ...HELP_OPTION,
  },
  examples: [
    `report-export workflow --input '{"date":"2026-11-20"}'`,
    `report-export workflow --input '{"scheduledTime":"2026-11-21T00:05:00Z"}' --out /tmp/lake`,
    `report-export workflow --input '{"from":"2026-11-01","to":"2026-11-14","reports":["Lost calls"]}'`,
    `report-export workflow --input '{"tenant":"sydney","date":"2026-11-20"}'`,
  ],
  notes: `Exit status: 0 the execution SUCCEEDED, 1 it failed, 2 usage error, ${HELD_EXIT_NOTE}.`,
});

function json(raw: string, flag: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new UsageError(`${flag} must be JSON, e.g. '{"date":"2026-11-20"}'; got ${raw}`);
  }
}
