import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportReportResult } from '../../lib/export';
import { LocalDirectoryStore } from '../../lib/stores';
import { BUILT_PROGRAM, runCli } from '../support/cli-process';
import { callsOn, resultStreamOf } from '../support/result-stream';

/**
 * What the built program loads for `argv`: every module it resolves (a resolve hook,
 * registered with --import, logs them), as the packages (node_modules) and the repository
 * sources bundled into the chunks it read (from each chunk's source map).
 */
async function loadedBy(
  argv: readonly string[],
  work: string,
  exitCode = 0,
): Promise<{ packages: string[]; sources: string[] }> {
  const log = path.join(work, `loaded-${argv.join('-')}.txt`);
  const hooks = path.join(work, 'log-hooks.mjs');
  const register = path.join(work, 'log-register.mjs');
  await writeFile(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.LOADED_LOG, resolved.url + '\\n');
  return resolved;
}
`,
  );
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const run = await runCli(argv, {
    env: { NODE_OPTIONS: `--import=${pathToFileURL(register).href}`, LOADED_LOG: log },
  });
  if (exitCode === 0) expect(run).toMatchObject({ code: 0, stderr: '' });
  else expect(run.code, run.stderr).toBe(exitCode);
  const urls = [...new Set((await readFile(log, 'utf8')).trim().split('\n'))];
  const files = urls.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
  const sources: string[] = [];
  for (const file of files.filter((f) => f.startsWith(path.resolve('dist', 'cli')))) {
    const map = JSON.parse(await readFile(`${file}.map`, 'utf8')) as { sources: string[] };
    sources.push(...map.sources.map((s) => path.relative('.', path.resolve(path.dirname(file), s))));
  }
  return { packages: files.filter((f) => f.includes(`${path.sep}node_modules${path.sep}`)), sources };
}

/** The sources of lib/cli/commands that are a command's code: all but its spec (spec.ts). */
function commandCodeOf(sources: readonly string[]): string[] {
  const commands = path.join('lib', 'cli', 'commands');
  return sources.filter((s) => s.startsWith(commands) && path.basename(s) !== 'spec.ts');
}

/** The built program (package.json `bin`), run with node alone: no tsx, no TypeScript. */
describe('the built program (dist/cli/report-export.mjs)', () => {
  let work: string;
  let lake: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'binary-'));
    lake = path.join(work, 'lake');
    await exportReportResult({
      source: resultStreamOf(callsOn(['2026-06-01', '2026-06-02'], 3, 'b')),
      store: new LocalDirectoryStore(lake),
      reportId: 'rep-1',
    });
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('is what package.json names as its bin', async () => {
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ 'report-export': BUILT_PROGRAM });
  });

  it('prints the package version when given --version', async () => {
    // Act
    const run = await runCli(['--version']);

    // Assess
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    expect(run).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it.each(['--version', 'completion bash', '--help', 'help run'])(
    "loads no command's code and no package for %s",
    async (line) => {
      // Act
      const { packages, sources } = await loadedBy(line.split(' '), work);

      // Assess: of lib/cli/commands only the specs (spec.ts); no package: not the AWS SDK,
      // DuckDB, zod, libphonenumber... (a command's code imports its own when it runs).
      expect({ commandCode: commandCodeOf(sources), packages }).toEqual({ commandCode: [], packages: [] });
      // The log and the source maps were read: the program's entry and a chunk it imports.
      expect(sources).toContain(path.join('lib', 'cli', 'main.ts'));
      expect(sources).toContain(path.join('lib', 'command-line', 'options.ts'));
    },
  );

  it.each(['query --help', 'run --help', 'directory sync --help', 'workspaces list -h'])(
    "loads no command's code and no package for %s (the help comes from the spec)",
    async (line) => {
      // Act
      const { packages, sources } = await loadedBy(line.split(' '), work);

      // Assess
      expect({ commandCode: commandCodeOf(sources), packages }).toEqual({ commandCode: [], packages: [] });
    },
  );

  it("loads that command's code alone, without its heavy packages, for a query that is refused", async () => {
    // Act: no SQL: the command runs (and refuses) before it needs DuckDB.
    const { packages, sources } = await loadedBy(['query', '--dir', 'no-such-lake'], work, 2);

    // Assess: query's code, without DuckDB (loaded once there is SQL to run).
    expect({ commandCode: commandCodeOf(sources), packages }).toEqual({
      commandCode: [path.join('lib', 'cli', 'commands', 'query', 'command.ts')],
      packages: [],
    });
  });

  it("prints a command's help for help <command>, the same as <command> --help", async () => {
    // Act
    const [viaHelp, viaFlag] = await Promise.all([runCli(['help', 'query']), runCli(['query', '--help'])]);

    // Assess
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toMatch(/^Usage: report-export query/);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });
  it("prints a subcommand's help for help <command> <subcommand>, the same as <command> <subcommand> --help", async () => {
    // Act
    const [viaHelp, viaFlag, ownHelp] = await Promise.all([
      runCli(['help', 'directory', 'sync']),
      runCli(['directory', 'sync', '--help']),
      runCli(['help', 'completion']),
    ]);
    const [helpOfHelp, completionHelp] = await Promise.all([
      runCli(['help', '--help']),
      runCli(['completion', '-h']),
    ]);

    // Assess
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toMatch(/^Usage: report-export directory sync/);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(ownHelp.stdout).toMatch(/^Usage: report-export completion bash\|zsh\|fish/);
    expect([helpOfHelp.code, completionHelp.code]).toEqual([0, 0]);
    expect(helpOfHelp.stdout).toMatch(/^Usage: report-export help <command> \[<subcommand>\]/);
    expect(completionHelp.stdout).toBe(ownHelp.stdout);
  });

  it("lists every command and says how to get a command's help when given --help", async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const name of ['local', 'query', 'runs', 'run', 'start', 'backfill', 'login', 'help', 'completion'])
      expect(run.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(run.stdout).toContain("Run 'report-export <command> --help'");
  });

  it.each([
    [['help', 'nope'], /help: unknown command 'nope'/],
    [['help', 'directory', 'nope'], /help: unknown subcommand 'nope' of directory; subcommands: search, get/],
    [['help', 'query', 'show'], /help: query has no subcommands, got 'show'/],
    [['completion', 'tcsh'], /completion takes one shell: bash, zsh, fish/],
    [['completion'], /completion takes one shell/],
  ])('exits 2 naming the problem for %j', async (argv, message) => {
    const run = await runCli(argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it("completes command names and a command's flags in bash", async () => {
    // Prepare
    const script = (await runCli(['completion', 'bash'])).stdout;
    const complete = (words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _report_export; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      )
        .trim()
        .split('\n');

    // Act / Assess
    expect(complete(['report-export', 'qu'])).toEqual(['query']);
    expect(complete(['report-export', 'query', '--fo'])).toEqual(['--format']);
    expect(complete(['report-export', 'run', '--force'])).toEqual(['--force-replace']);
    expect(complete(['report-export', 'completion', 'f'])).toEqual(['fish']);
    expect(complete(['report-export', 'directory', 's'])).toEqual(['search', 'sync']);
    expect(complete(['report-export', 'directory', 'sync', '--dry'])).toEqual(['--dry-run']);
    expect(complete(['report-export', 'workspaces', 'l'])).toEqual(['list']);
    expect(complete(['report-export', 'config', 'show', '--sec'])).toEqual(['--secret-file', '--secret-id']);
    expect(complete(['report-export', '--fr'])).toEqual(['--from']);
    // After a flag that takes a value: no word, so bash completes a path (complete -o default).
    expect(complete(['report-export', 'query', '--dir', ''])).toEqual(['']);
    expect(complete(['report-export', 'directory', 'sync', '--csv', ''])).toEqual(['']);
  });

  it.each(['zsh', 'fish'] as const)('prints a %s completion script naming every command', async (shell) => {
    const run = await runCli(['completion', shell]);
    expect(run.code).toBe(0);
    if (shell === 'zsh') expect(run.stdout).toMatch(/^autoload -U \+X bashcompinit && bashcompinit\n/);
    else
      expect(run.stdout).toMatch(
        /complete -c report-export -n '__fish_seen_subcommand_from query' -l format -r/,
      );
    for (const name of ['local', 'query', 'backfill']) expect(run.stdout).toContain(name);
  });

  it('reads the SQL from stdin (-) and from a file (-f) as from the argument', async () => {
    // Prepare
    const sql = 'SELECT dt::VARCHAR AS dt, count(*)::INTEGER AS n FROM calls GROUP BY dt ORDER BY dt';
    const file = path.join(work, 'q.sql');
    await writeFile(file, `-- per day\n${sql}\n`);

    // Act
    const [fromArg, fromStdin, fromFile] = await Promise.all([
      runCli(['query', '--dir', lake, '--json', sql]),
      runCli(['query', '--dir', lake, '--json', '-'], { stdin: sql }),
      runCli(['query', '--dir', lake, '--json', '-f', file]),
    ]);

    // Assess
    expect(JSON.parse(fromArg.stdout)).toEqual([
      { dt: '2026-06-01', n: 3 },
      { dt: '2026-06-02', n: 3 },
    ]);
    expect(fromStdin).toMatchObject({ code: 0, stdout: fromArg.stdout });
    expect(fromFile).toMatchObject({ code: 0, stdout: fromArg.stdout });
  });

  it('exits 2 when the SQL is given twice, or the file holds none', async () => {
    const empty = path.join(work, 'empty.sql');
    await writeFile(empty, '  \n');
    const both = await runCli(['query', '--dir', lake, '-f', empty, 'SELECT 1']);
    const none = await runCli(['query', '--dir', lake, '-f', empty]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/as an argument or with --file, not both/);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/holds no SQL/);
  });
});
