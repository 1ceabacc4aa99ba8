/**
 * The Lambda bundles of the workflow, built as lib/infra/workflow-function.ts has the CDK
 * build them (local esbuild: ESM, platform node, target node22, minify, keepNames, source
 * map, main fields module/main, the createRequire banner, `bundleAwsSDK: true`: the SDK
 * inside, with its version defined), and the cold import time of each: a fresh `node`
 * process imports the bundle once and prints how long the import took. For comparison a
 * bundle can also be built with `@aws-sdk/*` external (NodejsFunction's default on Node 22,
 * which shipped before).
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BuildOptions, build } from 'esbuild';
import { AWS_SDK_VERSION_DEFINE, bundledAwsSdkVersion } from '../lib/infra/workflow-function';

export const HANDLER_MODULES = [
  'plan',
  'request-report',
  'check-status',
  'export-results',
  'finalize',
] as const;
export type HandlerModule = (typeof HANDLER_MODULES)[number];

const PROJECT_ROOT = resolve(import.meta.dirname, '..');
/** What the construct and its afterBundling command pass to esbuild for every bundle. */
const LAMBDA_BUILD = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  keepNames: true,
  // ESM bundles of CommonJS dependencies need require().
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'warning',
} as const satisfies BuildOptions;
const IMPORT_TIMEOUT_MS = 30_000;

export interface HandlerBundle {
  module: HandlerModule;
  file: string;
  bytes: number;
  mapBytes: number;
}

/**
 * Bundles one handler into `<outDir>/<module>/index.mjs` (+ .map), as the CDK asset
 * (`<module>-sdk-external/` without `bundleSdk`).
 * `bundleSdk` is the construct's `bundleAwsSDK: true` (the SDK in the bundle: what ships);
 * without it `@aws-sdk/*` stays external, loaded from node_modules as from the runtime's copy.
 */
export async function bundleHandler(
  module: HandlerModule,
  outDir: string,
  options: { bundleSdk?: boolean } = {},
): Promise<HandlerBundle> {
  // What ships takes the module's own folder, beside encode-worker.mjs for export-results.
  const dir = join(outDir, options.bundleSdk === true ? module : `${module}-sdk-external`);
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'index.mjs');
  await build({
    ...LAMBDA_BUILD,
    entryPoints: [join(PROJECT_ROOT, 'lambdas', `${module}.ts`)],
    sourcemap: true,
    mainFields: ['module', 'main'],
    // NodejsFunction's default on Node >= 18 runtimes: the SDK v3 comes with the runtime.
    external: options.bundleSdk === true ? [] : ['@aws-sdk/*'],
    ...(options.bundleSdk === true
      ? { define: { [AWS_SDK_VERSION_DEFINE]: JSON.stringify(bundledAwsSdkVersion()) } }
      : {}),
    outfile: file,
  });
  return { module, file, bytes: (await stat(file)).size, mapBytes: (await stat(`${file}.map`)).size };
}

/** The export's encode worker, shipped next to the ExportResults bundle. */
export async function bundleEncodeWorker(outDir: string): Promise<number> {
  const file = join(outDir, 'export-results', 'encode-worker.mjs');
  await build({
    ...LAMBDA_BUILD,
    entryPoints: [join(PROJECT_ROOT, 'lib/export/spill/encode-worker.ts')],
    outfile: file,
  });
  return (await stat(file)).size;
}

/**
 * The environment of an import: no AWS_* variable (lambdas/lambda-runtime.ts builds the
 * runtime at import only when AWS_LAMBDA_FUNCTION_NAME is set, so module scope is measured
 * without the settings), no loader from the parent (tsx), and NODE_OPTIONS as given.
 */
function importEnvironment(nodeOptions: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('AWS_') || k === 'NODE_OPTIONS' || k.startsWith('TSX')) continue;
    env[k] = v;
  }
  if (nodeOptions !== undefined) env.NODE_OPTIONS = nodeOptions;
  return env;
}

/** One cold import in a fresh process: milliseconds from before the import to after it. */
export function coldImportMs(node: string, file: string, nodeOptions?: string): Promise<number> {
  const url = pathToFileURL(file).href;
  const code = `const t = performance.now(); await import(${JSON.stringify(url)}); console.log(performance.now() - t);`;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node, ['--input-type=module', '-e', code], {
      cwd: PROJECT_ROOT,
      env: importEnvironment(nodeOptions),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: IMPORT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const ms = Number(out.trim().split('\n').at(-1));
      if (code === 0 && Number.isFinite(ms)) resolvePromise(ms);
      else reject(new Error(`importing ${file} failed (${signal ?? code}): ${err.slice(0, 500)}`));
    });
  });
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median cold import of a bundle over `runs` fresh processes (sequential, bounded). */
export async function medianImportMs(
  node: string,
  file: string,
  runs: number,
  nodeOptions?: string,
): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await coldImportMs(node, file, nodeOptions));
  return Number(median(times).toFixed(1));
}

/**
 * The Node the Lambda runs (nodejs22.x) when scripts/ensure-node22.sh has already
 * unpacked it into .cache, else this process's Node. Nothing is downloaded here.
 */
export function lambdaLikeNode(): string {
  const cache = join(PROJECT_ROOT, '.cache');
  try {
    const dir = readdirSync(cache)
      .filter((d) => d.startsWith('node22-'))
      .sort()
      .at(-1);
    if (dir !== undefined) return join(cache, dir, 'bin', 'node');
  } catch {
    // no .cache: use this Node
  }
  return process.execPath;
}
