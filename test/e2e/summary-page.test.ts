import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { inflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedBrowser, launchChromium } from '../support/browser';
import { runCli } from '../support/cli-process';

/** Share of pixels that are not (near) white in a PNG screenshot (8-bit RGB/RGBA, as Chromium writes). */
function inkShare(png: Buffer): number {
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 4;
  const idat: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      channels = data[9] === 2 ? 3 : 4;
    } else if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const prev = new Uint8Array(stride);
  const line = new Uint8Array(stride);
  let ink = 0;
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x] as number;
      const a = x >= channels ? (line[x - channels] as number) : 0;
      const b = prev[x] as number;
      const c = x >= channels ? (prev[x - channels] as number) : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter as number] ?? 0;
      line[x] = (v + predictor) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const o = x * channels;
      if ((line[o] as number) < 235 || (line[o + 1] as number) < 235 || (line[o + 2] as number) < 235) ink++;
    }
    prev.set(line);
  }
  return ink / (width * height);
}

describe('summary.html in headless Chromium', () => {
  let work: string;
  let server: Server;
  let pageUrl: string;
  let browser: LaunchedBrowser;
  let page: Page;
  const requests: string[] = [];
  const refused: string[] = [];

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'summary-page-'));
    const run = await runCli(
      [
        '--out',
        path.join(work, 'lake'),
        '--secrets-file',
        path.join(work, 'secrets.json'),
        '--from',
        '2026-03-23',
        '--to',
        '2026-03-29',
        '--rows-per-day',
        '80',
        // One tenant's section: the page's charts are per tenant (a section each).
        '--tenant',
        'london',
      ],
      { timeoutMs: 90_000 },
    );
    if (run.code !== 0) throw new Error(`npm start failed (${run.code}): ${run.stderr}`);
    const html = await readFile(path.join(work, 'lake', 'summary.html'));
    // Served over loopback so route interception sees every request the page makes.
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/summary.html`;
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    browser.context.on('request', (r) => requests.push(r.url()));
    await browser.context.route('**/*', async (route) => {
      if (route.request().url() === pageUrl) return route.continue();
      refused.push(route.request().url());
      return route.abort('blockedbyclient');
    });
    await page.setViewportSize({ width: 900, height: 1400 });
    await page.goto(pageUrl, { waitUntil: 'load' });
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await rm(work, { recursive: true, force: true });
  });

  it('draws one bar per day in the calls and answer-rate charts when the window has 7 days', async () => {
    // Act
    const calls = await page.locator('svg[data-chart="calls-per-day"] rect.bar').count();
    const rates = await page.locator('svg[data-chart="answer-rate-per-day"] rect.bar').count();
    const heights = await page
      .locator('svg[data-chart="calls-per-day"] rect.bar')
      .evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('height'))));

    // Assess
    expect(calls).toBe(7);
    expect(rates).toBe(7);
    // Every day has calls (weekends fewer): no empty bar.
    expect(heights.every((h) => h > 0)).toBe(true);
    expect(Math.max(...heights)).toBeGreaterThan(Math.min(...heights));
  });

  it('draws one heatmap cell per weekday and hour when rendered', async () => {
    // Act
    const cells = await page.locator('svg[data-chart="weekday-hour"] rect.cell').count();
    const titles = await page
      .locator('svg[data-chart="weekday-hour"] rect.cell title')
      .evaluateAll((ts) => ts.map((t) => t.textContent ?? ''));

    // Assess
    expect(cells).toBe(7 * 24);
    expect(titles[0]).toMatch(/^Mon 00:00: \d+ calls$/);
    expect(titles.at(-1)).toMatch(/^Sun 23:00: \d+ calls$/);
  });

  it('shows a screenshot that is not blank when opened', async () => {
    // Prepare: the same measure on an empty page, so the detector itself is checked.
    const empty = await browser.context.newPage();
    await empty.setViewportSize({ width: 900, height: 1400 });
    await empty.setContent('<!doctype html><title>empty</title>');
    const blank = await empty.screenshot({ fullPage: true });
    await empty.close();

    // Act
    const keep = process.env.SUMMARY_SCREENSHOT;
    const shot = await page.screenshot({ fullPage: true, ...(keep === undefined ? {} : { path: keep }) });

    // Assess: charts put ink on a good part of the page; an empty page has none.
    expect(inkShare(blank)).toBeLessThan(0.001);
    expect(inkShare(shot)).toBeGreaterThan(0.02);
  });

  it('makes no request other than the page itself when opened', () => {
    // Assess
    expect(refused).toEqual([]);
    expect(requests).toEqual([pageUrl]);
  });
});
