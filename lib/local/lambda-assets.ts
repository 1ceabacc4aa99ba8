import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROJECT_ROOT } from '../infra';
import { processAlive } from '../stores';
import { type CfnTemplate, PLACEHOLDER_CONFIG, readTemplate, synthesizeTemplate } from './definition';

/** What the bundles are built from: a change to any of these builds them again. */
const SOURCES = ['lib', 'lambdas', 'package-lock.json', 'tsconfig.json'];
/** Bundles built by `cdk synth`'s own bundling, kept between runs (keyed by the sources' hash). */
const ASSET_CACHE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'report-export', 'lambda-assets');
const BUILD_LOCK_STALE_MS = 10 * 60_000;
const BUILD_WAIT_MS = 10 * 60_000;

/** The bundle directory (index.mjs, and encode-worker.mjs for ExportResults) of each function, by logical id. */
type LambdaAssets = Record<string, string>;

/**
 * The functions' bundles exactly as `cdk synth` builds them (NodejsFunction's local esbuild,
 * the AWS SDK inside): the stack is synthesized with bundling once per state of the sources
 * and kept under node_modules/.cache. Concurrent callers (test workers, two CLI runs) wait
 * for one build.
 */
export async function lambdaAssets(onBuild?: () => void): Promise<LambdaAssets> {
  const deadline = Date.now() + BUILD_WAIT_MS;
  for (let builds = 0; ; ) {
    const hash = sourceHash();
    const dir = path.join(ASSET_CACHE, hash);
    const manifest = path.join(dir, 'assets.json');
    if (fs.existsSync(manifest)) return readAssets(dir, manifest);
    fs.mkdirSync(ASSET_CACHE, { recursive: true });
    const lock = `${dir}.building`;
    if (!takeLock(lock)) {
      if (Date.now() > deadline) {
        throw new Error(`Timed out waiting for another process to build the Lambda bundles (${lock})`);
      }
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      if (++builds > 3) throw new Error('The sources kept changing while the Lambda bundles were built');
      onBuild?.();
      build(dir, hash);
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Takes the build lock: a directory naming its owner; one whose owner died is taken over. */
function takeLock(lock: string): boolean {
  try {
    fs.mkdirSync(lock);
    fs.writeFileSync(path.join(lock, 'owner'), String(process.pid));
    return true;
  } catch {
    const owner = Number(fs.readFileSync(path.join(lock, 'owner'), { encoding: 'utf8', flag: 'a+' }));
    const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if ((owner > 0 && !processAlive(owner)) || age > BUILD_LOCK_STALE_MS) {
      fs.rmSync(lock, { recursive: true, force: true });
    }
    return false;
  }
}

function build(dir: string, hash: string): void {
  const outdir = `${dir}.out-${process.pid}`;
  fs.rmSync(outdir, { recursive: true, force: true });
  const { template } = synthesizeTemplate(PLACEHOLDER_CONFIG, { bundling: true, outdir });
  const assets: LambdaAssets = {};
  for (const fn of Object.values(readTemplate(template as CfnTemplate).functions)) {
    if (fn.assetKey === undefined) throw new Error(`Function ${fn.logicalId} has no asset in the template`);
    const asset = `asset.${fn.assetKey.replace(/\.zip$/, '')}`;
    if (!fs.existsSync(path.join(outdir, asset, 'index.mjs')))
      throw new Error(`No bundle for ${fn.logicalId} in ${asset}`);
    assets[fn.logicalId] = asset;
  }
  // Sources edited during the build: these bundles are of neither state; build again.
  if (sourceHash() !== hash) {
    fs.rmSync(outdir, { recursive: true, force: true });
    return;
  }
  fs.writeFileSync(path.join(outdir, 'assets.json'), JSON.stringify(assets));
  fs.renameSync(outdir, dir);
  pruneOldBuilds(hash);
}

/** Bundles of other states of the sources, a day old or more (a running process may still use a recent one). */
function pruneOldBuilds(keep: string): void {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of fs.readdirSync(ASSET_CACHE)) {
    if (name === keep || name.includes('.')) continue;
    const entry = path.join(ASSET_CACHE, name);
    if ((fs.statSync(entry, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) < dayAgo) {
      fs.rmSync(entry, { recursive: true, force: true });
    }
  }
}

function readAssets(dir: string, manifest: string): LambdaAssets {
  const assets = JSON.parse(fs.readFileSync(manifest, 'utf8')) as LambdaAssets;
  return Object.fromEntries(Object.entries(assets).map(([id, asset]) => [id, path.join(dir, asset)]));
}

/** A hash of every source file the bundles are built from. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const visit = (rel: string) => {
    const abs = path.join(PROJECT_ROOT, rel);
    const stat = fs.statSync(abs, { throwIfNoEntry: false });
    if (stat === undefined) return;
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(abs).sort()) visit(path.join(rel, name));
      return;
    }
    if (!/\.(ts|mts|mjs|js|json)$/.test(rel) || rel.endsWith('.md')) return;
    hash.update(rel).update('\0').update(fs.readFileSync(abs)).update('\0');
  };
  for (const s of SOURCES) visit(s);
  return hash.digest('hex').slice(0, 24);
}
