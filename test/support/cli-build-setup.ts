import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PROGRAM = path.join(ROOT, 'dist', 'cli', 'report-export.mjs');

/** Newest modification time of the files under `dir` (recursively). */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    latest = Math.max(latest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/**
 * Vitest global setup: the CLI tests run the built program (`dist/cli/report-export.mjs`, as
 * `npm ci` builds it). Rebuilt when a source is newer than the build, so a test never runs a
 * program older than the code it checks.
 */
export default function setup(): void {
  const built = fs.existsSync(PROGRAM) ? fs.statSync(PROGRAM).mtimeMs : 0;
  const sources = Math.max(
    newest(path.join(ROOT, 'lib')),
    newest(path.join(ROOT, 'bin')),
    fs.statSync(path.join(ROOT, 'scripts', 'build-cli.mjs')).mtimeMs,
  );
  if (built > sources) return;
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-cli.mjs')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}
