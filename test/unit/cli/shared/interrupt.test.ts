import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INTERRUPTED_EXIT_CODE, processInterrupt } from '../../../../lib/cli/shared/interrupt';

describe('processInterrupt', () => {
  const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  afterEach(() => {
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      for (const l of process.listeners(name)) if (!before[name].includes(l)) process.removeListener(name, l);
    }
  });

  it('installs one handler only when a command asks, aborts on the first signal and exits 130 on the second', async () => {
    // Prepare
    const exits: number[] = [];
    const interrupt = processInterrupt((code) => exits.push(code));
    const listening = process.listenerCount('SIGINT');

    // Act
    const signal = interrupt();
    const same = interrupt();
    process.kill(process.pid, 'SIGINT');
    await once(signal, 'abort');
    process.kill(process.pid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 50));

    // Assess
    expect(process.listenerCount('SIGINT')).toBe(listening + 1);
    expect(same).toBe(signal);
    expect(signal.reason).toMatchObject({ name: 'InterruptedError', code: 'CLI_INTERRUPTED' });
    expect(exits).toEqual([INTERRUPTED_EXIT_CODE]);
  });

  it('leaves the signals to Node while no command asked for them', () => {
    const listening = process.listenerCount('SIGINT');
    processInterrupt(() => {});
    expect(process.listenerCount('SIGINT')).toBe(listening);
  });

  it('is the only handler of the signals in the program: no command installs its own', async () => {
    // Prepare
    const root = path.resolve(import.meta.dirname, '../../../../lib/cli');
    const files = (await readdir(root, { recursive: true })).map(String).filter((f) => f.endsWith('.ts'));

    // Act
    const handlers: string[] = [];
    for (const file of files) {
      const text = await readFile(path.join(root, file), 'utf8');
      if (/process\.(on|once|addListener)\(\s*'SIG/.test(text)) handlers.push(file);
    }

    // Assess
    expect(handlers).toEqual([path.join('shared', 'interrupt.ts')]);
  });
});
