import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeLeaseHolder } from '../../../lib/stores/lease-holder';
import { LocalLeaseStore, type RecoveredLease } from '../../../lib/stores/local-lease-store';
import { processStartTime } from '../../../lib/stores/process-identity';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const STORE_MODULE = pathToFileURL(path.join(ROOT, 'lib', 'stores', 'local-lease-store.ts')).href;

describe('LocalLeaseStore: leases name their holder process', () => {
  let work: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'local-lease-owner-'));
  });

  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
  });

  afterAll(async () => {
    await fs.rm(work, { recursive: true, force: true });
  });

  /** A process that takes `key` in `root` through the store itself, says so, and idles. */
  async function holderProcess(root: string, key: string): Promise<ChildProcess> {
    const code = `
      const { LocalLeaseStore } = await import(${JSON.stringify(STORE_MODULE)});
      const lease = await new LocalLeaseStore(${JSON.stringify(root)}).acquire(${JSON.stringify(key)}, { ttlMs: 900000, owner: 'child-export' });
      process.stdout.write(lease ? 'held\\n' : 'busy\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let out = '';
    child.stdout?.setEncoding('utf8');
    for await (const chunk of child.stdout as AsyncIterable<string>) {
      out += chunk;
      if (out.includes('\n')) break;
    }
    expect(out.trim()).toBe('held');
    return child;
  }

  /** A plain idle node process (`node -e 'setInterval(...)'`). */
  function idleProcess(): ChildProcess {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(child);
    return child;
  }

  it('records owner, expiry, host, pid and start time in the lease file', async () => {
    // Prepare
    const root = path.join(work, 'format');
    const store = new LocalLeaseStore(root);

    // Act
    const lease = await store.acquire('publish/r/2026-11-18', { ttlMs: 60_000, owner: 'exec-1' });
    const record = JSON.parse(await fs.readFile(path.join(root, 'publish/r/2026-11-18.lease'), 'utf8'));
    await lease?.release();

    // Assess
    expect(lease?.owner).toBe('exec-1');
    expect(record).toMatchObject({ owner: 'exec-1', host: hostname(), pid: process.pid });
    expect(record.expiresAt).toEqual(expect.any(Number));
    if (process.platform === 'linux') expect(record.start).toBe(processStartTime(process.pid));
  });

  it('waits while the holder lives, then takes the lease over at once after kill -9, saying so', async () => {
    // Prepare: a real process holds the lease for 15 minutes.
    const root = path.join(work, 'killed');
    const child = await holderProcess(root, 'publish/r/2026-11-18');
    const recovered: RecoveredLease[] = [];
    const store = new LocalLeaseStore(root, { onRecovered: (l) => recovered.push(l) });
    const whileAlive = await store.acquire('publish/r/2026-11-18', { ttlMs: 60_000, owner: 'rerun' });

    // Act
    child.kill('SIGKILL');
    await once(child, 'exit');
    const afterKill = await store.acquire('publish/r/2026-11-18', { ttlMs: 60_000, owner: 'rerun' });

    // Assess
    expect(whileAlive).toBeUndefined();
    expect(afterKill?.owner).toBe('rerun');
    expect(recovered).toHaveLength(1);
    expect(recovered[0]).toMatchObject({
      key: 'publish/r/2026-11-18',
      owner: 'child-export',
      by: 'rerun',
      process: { pid: child.pid, host: hostname() },
    });
    expect(recovered[0]?.expiresAt).toBeGreaterThan(Date.now() + 800_000);
    await afterKill?.release();
  }, 30_000);

  it('emits a process warning naming the lease and the ended holder by default', async () => {
    // Prepare: the lease file of a process that has ended.
    const root = path.join(work, 'warning');
    const child = idleProcess();
    await once(child, 'spawn');
    const pid = child.pid as number;
    const start = processStartTime(pid);
    await fs.mkdir(root, { recursive: true });
    await fs.writeFile(
      path.join(root, 'token-refresh.lease'),
      JSON.stringify({
        owner: 'o',
        expiresAt: Date.now() + 60_000,
        host: hostname(),
        pid,
        ...(start ? { start } : {}),
      }),
    );
    child.kill('SIGKILL');
    await once(child, 'exit');
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);

    try {
      // Act
      const lease = await new LocalLeaseStore(root).acquire('token-refresh', { ttlMs: 1000, owner: 'me' });
      await new Promise((resolve) => setImmediate(resolve));
      await lease?.release();

      // Assess
      expect(lease).toBeDefined();
      const warning = warnings.find(
        (w) => (w as Error & { code?: string }).code === 'REPORT_EXPORT_LEASE_RECOVERED',
      );
      expect(warning?.message).toContain(`lease token-refresh`);
      expect(warning?.message).toContain(`pid ${pid} on ${hostname()}`);
      expect(warning?.message).toContain('taken over');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('takes over a lease whose pid is alive but now names another process (a reused pid)', async () => {
    // Prepare: this process's pid with a start time it does not have.
    if (processStartTime(process.pid) === undefined) return; // Linux only: no start time elsewhere
    const root = path.join(work, 'reused');
    await fs.mkdir(root, { recursive: true });
    await fs.writeFile(
      path.join(root, 'k.lease'),
      JSON.stringify({
        owner: 'old',
        expiresAt: Date.now() + 60_000,
        host: hostname(),
        pid: process.pid,
        start: '1',
      }),
    );
    const recovered: RecoveredLease[] = [];

    // Act
    const lease = await new LocalLeaseStore(root, { onRecovered: (l) => recovered.push(l) }).acquire('k', {
      ttlMs: 1000,
      owner: 'new',
    });

    // Assess
    expect(lease?.owner).toBe('new');
    expect(recovered.map((r) => r.owner)).toEqual(['old']);
  });

  it.each([
    { what: 'a live process on this host', host: () => hostname(), live: true },
    { what: 'a process on another host', host: () => 'build-agent-7', live: false },
  ])(
    'leaves a lease held by $what until it expires, and says who holds it until when',
    async ({ host, live }) => {
      // Prepare
      const root = path.join(work, `held-${live}`);
      const child = live ? idleProcess() : undefined;
      if (child) await once(child, 'spawn');
      const pid = child?.pid ?? 4_000_000;
      const expiresAt = Date.now() + 900_000;
      await fs.mkdir(path.join(root, 'publish', 'r'), { recursive: true });
      const file = path.join(root, 'publish', 'r', '2026-11-18.lease');
      await fs.writeFile(file, JSON.stringify({ owner: 'exec-9', expiresAt, host: host(), pid }));
      const store = new LocalLeaseStore(root);

      // Act
      const lease = await store.acquire('publish/r/2026-11-18', { ttlMs: 1000, owner: 'rerun' });
      const said = await describeLeaseHolder(store, 'publish/r/2026-11-18');

      // Assess
      expect(lease).toBeUndefined();
      expect(said).toBe(
        `held by pid ${pid} on ${host()} (owner exec-9) until ${new Date(expiresAt).toISOString()} (file ${file}; if that process is gone, delete the file)`,
      );
    },
  );

  it('still honours an unexpired record of an older version, which names no process', async () => {
    // Prepare
    const root = path.join(work, 'old-format');
    await fs.mkdir(root, { recursive: true });
    await fs.writeFile(
      path.join(root, 'k.lease'),
      JSON.stringify({ owner: 'x', expiresAt: Date.now() + 60_000 }),
    );

    // Act
    const lease = await new LocalLeaseStore(root).acquire('k', { ttlMs: 1000, owner: 'y' });

    // Assess
    expect(lease).toBeUndefined();
  });

  it('lets exactly one of many contenders take over the lease of an ended holder', async () => {
    // Prepare
    const child = idleProcess();
    await once(child, 'spawn');
    const pid = child.pid as number;
    child.kill('SIGKILL');
    await once(child, 'exit');
    let doubles = 0;
    let none = 0;

    for (let round = 0; round < 50; round++) {
      const root = path.join(work, `race-${round}`);
      await fs.mkdir(root, { recursive: true });
      await fs.writeFile(
        path.join(root, 'k.lease'),
        JSON.stringify({ owner: 'dead', expiresAt: Date.now() + 60_000, host: hostname(), pid }),
      );

      // Act
      const got = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          new LocalLeaseStore(root, { onRecovered: () => {} }).acquire('k', {
            ttlMs: 60_000,
            owner: `o${i}`,
          }),
        ),
      );
      const taken = got.filter((l) => l !== undefined).length;
      if (taken > 1) doubles++;
      if (taken === 0) none++;
    }

    // Assess
    expect(doubles).toBe(0);
    expect(none).toBeLessThan(50);
  });

  it('says nothing about a lease nobody holds', async () => {
    // Act
    const said = await describeLeaseHolder(new LocalLeaseStore(path.join(work, 'empty')), 'k');

    // Assess
    expect(said).toBeUndefined();
  });
});
