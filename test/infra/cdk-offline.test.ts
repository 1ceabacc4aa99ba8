import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

/**
 * What the pinned CDK CLI reads to decide whether it reaches the network during `cdk synth`
 * (node_modules/aws-cdk/lib/index.js): the `notices` setting (else it fetches notices.json),
 * the `cli-telemetry` context value (else it posts telemetry), and, on a terminal, the
 * CDK_DISABLE_VERSION_CHECK variable (else it asks registry.npmjs.org for a newer CDK once a
 * day; no cdk.json key turns that off). Each source excerpt proves the CLI still reads it.
 */
const CLI_SWITCHES = [
  { what: 'notices', source: 'configuration.settings.get(["notices"])' },
  { what: 'telemetry', source: 'context.get("cli-telemetry")' },
  { what: 'version check', source: 'process.env.CDK_DISABLE_VERSION_CHECK' },
] as const;

describe('npm run synth', () => {
  it('turns off the CDK CLI notices and telemetry in cdk.json', () => {
    // Prepare
    const cdk = readJson('cdk.json');

    // Assess: `false` itself, as the CLI compares (a string "false" also works for notices only).
    expect(cdk.notices).toBe(false);
    expect(cdk.context['cli-telemetry']).toBe(false);
  });

  it('turns off the version check that a terminal run makes', () => {
    // Prepare
    const scripts = readJson('package.json').scripts as Record<string, string>;

    // Assess
    expect(scripts.synth).toMatch(/^CDK_DISABLE_VERSION_CHECK=1 cdk synth\b/);
  });

  it('uses the switches the pinned CLI reads', () => {
    // Prepare: a CDK upgrade that renames a switch must fail here, not go online quietly.
    const cli = fs.readFileSync(path.join(ROOT, 'node_modules/aws-cdk/lib/index.js'), 'utf8');

    // Act
    const missing = CLI_SWITCHES.filter(({ source }) => !cli.includes(source)).map(({ what }) => what);

    // Assess
    expect(missing).toEqual([]);
  });
});
