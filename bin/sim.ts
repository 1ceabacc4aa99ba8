#!/usr/bin/env node
import { CliUsageError, parseSimArgs, SIM_USAGE } from '../lib/simulator/cli-options';
import { startSimulator } from '../lib/simulator/index';

async function main(): Promise<void> {
  let cli: ReturnType<typeof parseSimArgs>;
  try {
    cli = parseSimArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof CliUsageError) {
      process.stderr.write(`sim: ${error.message}\n\n${SIM_USAGE}`);
      process.exit(2);
    }
    throw error;
  }
  if (cli.help) {
    process.stdout.write(SIM_USAGE);
    return;
  }
  const sim = await startSimulator(cli.options);
  const details = {
    baseUrl: sim.baseUrl,
    authUrl: sim.authUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    redirectUri: sim.redirectUri,
    username: sim.username,
    password: sim.password,
    tenantId: sim.tenantId,
    workspaceId: sim.workspaceId,
    reportIds: sim.reportIds,
    directoryIds: sim.directoryIds,
  };
  if (cli.json) {
    process.stdout.write(`${JSON.stringify(details)}\n`);
  } else {
    // These are local, seeded test credentials: printing them is the point of this command.
    process.stdout.write(
      [
        'Local service listening on 127.0.0.1',
        `  base_url (API)     ${details.baseUrl}`,
        `  auth_url (OAuth)   ${details.authUrl}/connect/authorize, ${details.authUrl}/connect/token`,
        `  client_id          ${details.clientId}`,
        `  client_secret      ${details.clientSecret}`,
        `  redirect_uri       ${details.redirectUri} (also https://127.0.0.1:8000/)`,
        `  login              ${details.username} / ${details.password}`,
        `  workspace          ${details.workspaceId}`,
        `  reports            ${details.reportIds.join(', ')}`,
        `  directories        ${details.directoryIds.join(', ')}`,
        `  faults             POST ${details.authUrl}/__admin/faults (see lib/simulator/README.md)`,
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    );
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`sim: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
