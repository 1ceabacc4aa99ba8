import { defineCommand, HELP_OPTION, withVerb } from '../../../command-line';
import { CONFIG_FILE_OPTION, configOptions, FLAG_KEYS } from '../../shared/config';

const ALL_FLAGS = configOptions(FLAG_KEYS);

/** `config show`: the effective configuration and where each value came from. */
export const CONFIG_COMMAND = withVerb(
  defineCommand({
    name: 'config',
    usage: 'Usage: report-export config show [options]',
    summary: 'Shows the effective configuration and where each value comes from (secrets masked).',
    description: `Each setting comes from a flag, else a REPORT_EXPORT_* variable, else the config
file (--config <path>, REPORT_EXPORT_CONFIG, or ./report-export.config.json when
present), else its default. The client secret is read from REPORT_EXPORT_CLIENT_SECRET
or the config file only, and is never shown. When the secret is a local file that
exists, what it holds is summarised too (tokens masked).`,
    options: {
      ...ALL_FLAGS,
      ...CONFIG_FILE_OPTION,
      json: { type: 'boolean', help: 'print JSON: {settings: {<key>: {value, source, where}}, secret}' },
      ...HELP_OPTION,
    },
    examples: [
      'report-export config show',
      'REPORT_EXPORT_REGION=uk report-export config show --secret-file ./prod.json --json',
    ],
  }),
  'show',
);
