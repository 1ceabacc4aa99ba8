// A contender for the out-dir lock, driven over IPC by out-dir-lock-race.test.ts: on each
// {trial, outDir, marker, atMs, holdMs} it waits until atMs (so the contenders start
// together), tries the lock, and while it holds it creates `marker` exclusively (failing if
// another holder has it) and keeps it holdMs; it answers with what happened and when.
import { rm, writeFile } from 'node:fs/promises';
import { acquireOutDirLock } from '../../../lib/cli/shared/out-dir-lock';

interface Go {
  trial: number;
  outDir: string;
  marker: string;
  atMs: number;
  holdMs: number;
}

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function attempt(go: Go): Promise<Record<string, unknown>> {
  if (go.atMs - now() > 3) await sleep(go.atMs - now() - 2);
  while (now() < go.atMs) {
    // spin the last milliseconds: the three contenders start within a fraction of one
  }
  let lock: Awaited<ReturnType<typeof acquireOutDirLock>>;
  try {
    lock = await acquireOutDirLock(go.outDir);
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { held: false, outcome: code === 'CLI_OUT_DIR_LOCKED' ? 'locked' : `error: ${String(error)}` };
  }
  const from = process.hrtime.bigint();
  let shared = false;
  try {
    await writeFile(go.marker, String(process.pid), { flag: 'wx' });
  } catch {
    shared = true;
  }
  await sleep(go.holdMs);
  if (!shared) await rm(go.marker, { force: true });
  const to = process.hrtime.bigint();
  await lock.release();
  return { held: true, shared, from: String(from), to: String(to) };
}

process.on('message', (go: Go) => {
  attempt(go).then(
    (result) => process.send?.({ trial: go.trial, pid: process.pid, ...result }),
    (error: unknown) =>
      process.send?.({ trial: go.trial, pid: process.pid, held: false, outcome: `error: ${String(error)}` }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: true, pid: process.pid });
