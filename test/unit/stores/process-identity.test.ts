import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  currentProcess,
  processAlive,
  processGone,
  processStartTime,
} from '../../../lib/stores/process-identity';

/** The state letter of a process (/proc/<pid>/stat field 3). */
const stateOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
};

describe.runIf(process.platform === 'linux')('processAlive and processGone', () => {
  const started: number[] = [];

  afterEach(() => {
    for (const pid of started.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  /**
   * A zombie: sh starts a short `sleep` in the background, prints its pid, then becomes a
   * `sleep` that never waits for children, so the finished child stays unreaped (as the
   * function processes of a `kill -9`ed run stay under a PID 1 that does not reap).
   */
  async function zombie(): Promise<number> {
    const parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    started.push(parent.pid as number);
    const [line] = (await once(parent.stdout, 'data')) as [Buffer];
    const pid = Number(line.toString().trim());
    const deadline = Date.now() + 10_000;
    while (stateOf(pid) !== 'Z') {
      if (Date.now() > deadline) throw new Error(`process ${pid} never became a zombie`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return pid;
  }

  it('takes a zombie (killed, not yet reaped) for gone, as the holder of a lease or a staging', async () => {
    // Prepare
    const pid = await zombie();
    const start = processStartTime(pid);

    // Act
    const alive = processAlive(pid);
    const gone = processGone({ host: currentProcess().host, pid, ...(start ? { start } : {}) });

    // Assess: signal 0 still finds it; it holds nothing.
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect([alive, gone]).toEqual([false, true]);
  });

  it('takes a running process for alive and this one for not gone', async () => {
    // Prepare
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    started.push(child.pid as number);
    await once(child, 'spawn');

    // Act + Assess
    expect(processAlive(child.pid as number)).toBe(true);
    expect(processGone(currentProcess())).toBe(false);
  });
});
