import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  type DirectoryClient,
  NotFoundError,
  ServerError,
  TimeoutError,
} from '../../../../lib/api';
import {
  DirectoryListingIncompleteError,
  DirectoryReadError,
  readWholeDirectory,
} from '../../../../lib/export/contacts';
import type { DirectoryItem } from '../../../../lib/spec';
import { connect, type RunningSimulator, startTestSimulator } from '../../api/sim-fixture';
import { CAP, type CappingProxy, type ProxyPlan, startCappingProxy } from './capping-proxy';

const FIRST = ['Ada', 'Bea', 'Cyd', 'Dov', 'Eli', 'Fay', 'Gus', 'Hal', 'Ivo', 'Jan', 'Kit', 'Lou'];
const LAST = ['Quinn', 'Roth', 'Sato', 'Tull', 'Umar', 'Vega', 'Wolf', 'Xu', 'Yates', 'Zorn', 'Moss', 'Pike'];

describe('readWholeDirectory against the local service', () => {
  let sim: RunningSimulator;
  let direct: DirectoryClient;
  let proxied: DirectoryClient;
  let proxy: CappingProxy;
  const plan = { current: { cap: false } as ProxyPlan };
  let small: string;
  let large: string;

  beforeAll(async () => {
    sim = await startTestSimulator();
    proxy = await startCappingProxy(sim, plan);
    const client = { retryBaseDelayMs: 5, retryMaxDelayMs: 20, maxRetries: 2 };
    direct = (await connect(sim, { client })).api.directories;
    proxied = (await connect(sim, { client: { ...client, baseUrl: `${proxy.server.url}/api` } })).api
      .directories;
    [small, large] = sim.directoryIds as [string, string];
    // 150 suppliers with varied names and mobile numbers: more than the proxy's cap, and no
    // value all of them share (a split then needs some 850 searches).
    let seed = 7;
    const digit = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return String(Math.floor(seed / 65536) % 10);
    };
    for (let i = 0; i < 150; i++) {
      const number = `+447${Array.from({ length: 9 }, digit).join('')}`;
      await direct.createItem(large, {
        fullName: `${FIRST[i % 12]} ${LAST[Math.floor(i / 12) % 12]}`,
        phone1: number,
      });
    }
  });
  afterEach(() => {
    sim.faults.clear();
    plan.current = { cap: false };
  });
  afterAll(async () => {
    await proxy.server.close();
    await sim.close();
  });

  /** What the service holds, from its own uncapped answer. */
  async function truth(directoryId: string): Promise<DirectoryItem[]> {
    const all = await direct.searchItems(directoryId, '');
    return all.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  it('reads a directory below any cap in one search, every item with every field', async () => {
    // Act
    const read = await readWholeDirectory(direct, small);
    // Assess
    expect(read.split).toBe(false);
    expect(read.requests).toBe(3);
    expect(read.directory.id).toBe(small);
    expect(read.items).toEqual(await truth(small));
    expect(read.items.length).toBeGreaterThan(0);
  });

  it('splits the search when the answers are capped, and lists every item once', async () => {
    // Prepare
    plan.current = { cap: true };
    const expected = await truth(large);
    // Act
    const read = await readWholeDirectory(proxied, large);
    // Assess
    expect(expected.length).toBeGreaterThan(CAP);
    expect(read.split).toBe(true);
    expect(read.items).toEqual(expected);
  });

  it('refuses a capped directory whose split needs more requests than allowed', async () => {
    // Prepare
    plan.current = { cap: true };
    // Act
    const attempt = readWholeDirectory(proxied, large, { maxRequests: 20 });
    // Assess
    await expect(attempt).rejects.toBeInstanceOf(DirectoryListingIncompleteError);
    await expect(attempt).rejects.toMatchObject({ code: 'EXPORT_SOURCE_FAILED', directoryId: large });
  });

  it('refuses a capped directory whose split stays capped at the longest filter', async () => {
    // Prepare
    plan.current = { cap: true };
    // Act
    const attempt = readWholeDirectory(proxied, large, { maxFilterLength: 1 });
    // Assess
    await expect(attempt).rejects.toThrow(/looks capped, at 1 characters/);
  });

  it('throws, listing nothing, when the service fails half way through a split read', async () => {
    // Prepare
    const before = proxy.searches();
    plan.current = { cap: true, failAt: before + 5 };
    // Act
    const error = await readWholeDirectory(proxied, large).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(DirectoryReadError);
    expect((error as DirectoryReadError).cause).toBeInstanceOf(ServerError);
    expect(proxy.searches()).toBeGreaterThanOrEqual(before + 5);
  });

  it('throws when an answer is cut short (the connection reset mid-body)', async () => {
    // Prepare
    plan.current = { cap: false, truncateAt: proxy.searches() + 1 };
    // Act
    const error = await readWholeDirectory(proxied, small, { call: { maxRetries: 0 } }).catch(
      (e: unknown) => e,
    );
    // Assess
    expect(error).toBeInstanceOf(DirectoryReadError);
    expect((error as DirectoryReadError).cause).toBeInstanceOf(ConnectionError);
  });

  it('throws when the search times out', async () => {
    // Prepare
    sim.faults.inject({ route: 'items', kind: 'latency', ms: 2_000, times: 5 });
    // Act
    const error = await readWholeDirectory(direct, small, { call: { timeoutMs: 100, maxRetries: 0 } }).catch(
      (e: unknown) => e,
    );
    // Assess
    expect(error).toBeInstanceOf(DirectoryReadError);
    expect((error as DirectoryReadError).cause).toBeInstanceOf(TimeoutError);
  });

  it('throws for a directory the service does not have, rather than listing it empty', async () => {
    // Act
    const error = await readWholeDirectory(direct, '00000000-0000-4000-8000-00000000dead').catch(
      (e: unknown) => e,
    );
    // Assess
    expect(error).toBeInstanceOf(DirectoryReadError);
    expect((error as DirectoryReadError).cause).toBeInstanceOf(NotFoundError);
  });
});
