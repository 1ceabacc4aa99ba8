#!/usr/bin/env node
import { LOCAL_EXPORT_USAGE, localExportCommand, UsageError } from '../lib/cli/local-export-command';

const [command = 'local', ...rest] = process.argv.slice(2);
const commands: Record<string, (argv: string[]) => Promise<number>> = { local: localExportCommand };

async function main(): Promise<number> {
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(
      `Commands:\n  local   the whole export on this machine (default)\n\n${LOCAL_EXPORT_USAGE}`,
    );
    return 0;
  }
  const run = command.startsWith('-') ? localExportCommand : commands[command];
  if (run === undefined) throw new UsageError(`unknown command '${command}' (try --help)`);
  return run(command.startsWith('-') ? [command, ...rest] : rest);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const e = error as Error & { code?: string };
    process.stderr.write(`report-export: ${e.message}${e.code ? ` [${e.code}]` : ''}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
