import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type OptionValues, parseOrHelp } from '../../../command-line';
import { forEachLimited } from '../../../export';
import type { ObjectStore } from '../../../stores';
import {
  type FreshnessVerdict,
  type TenantEntry,
  type TenantRegistry,
  tenantFreshness,
  tenantRegistryFromUri,
  worstVerdict,
} from '../../../workflow';
import { checkedLakeS3, lakeLocation, lakeUri } from '../../aws/lake-location';
import type { TenantsDependencies } from '../../aws/tenants-deployment';
import type { IOStreams } from '../../shared/io-streams';
import { registeredEntry } from '../../shared/known-tenants';
import { checkedTenant } from '../../shared/tenant-check';
import { type JudgedTenant, statusDocument, statusLines } from './output';
import { FRESHNESS_EXIT_CODES, STATUS_COMMAND } from './spec';

/** Tenants judged at once: a deployment's thousands are not read one after another. */
const STATUS_CONCURRENCY = 8;

/** What `status` judges: the registry's tenants, their run records in the lake, and where that is. */
interface JudgedDeployment {
  registry: TenantRegistry;
  lake: { store: ObjectStore; prefix: string };
  /** For messages: `local deployment <dir>` or `stack <name>`. */
  describe: string;
  /** The lake's URI, for the document. */
  lakeUri: string;
}

type StatusValues = OptionValues<typeof STATUS_COMMAND.options>;

/** The deployment the flags name: a stack's outputs (DescribeStacks), or the local lake and registry. */
async function judgedDeployment(
  v: StatusValues,
  io: IOStreams,
  deps: TenantsDependencies,
): Promise<JudgedDeployment> {
  if (v.stack !== undefined) {
    // Loaded on use: a stack's deployment brings the AWS SDK's clients.
    const { openDeployment } = await import('../../aws/tenants-deployment');
    const d = await openDeployment({ dir: v['state-dir'], lake: v.dir, stack: v.stack }, io, deps);
    return { registry: d.registry, lake: d.lake, describe: d.describe, lakeUri: d.lake.uri };
  }
  const uri = await lakeUri('--dir', v.dir, io.cwd);
  const lake = await lakeLocation('--dir', uri, await checkedLakeS3('status', '--dir', uri, io));
  const stateDir = path.resolve(io.cwd, v['state-dir']);
  return {
    registry: tenantRegistryFromUri('--state-dir', pathToFileURL(path.join(stateDir, 'tenants')).href),
    lake,
    describe: `local deployment ${stateDir}`,
    lakeUri: uri,
  };
}

/** The verdict the exit status reports: the worst over the enabled tenants (nothing runs a disabled one). */
function overallVerdict(tenants: readonly JudgedTenant[]): FreshnessVerdict {
  return worstVerdict(tenants.filter((t) => t.entry.enabled).map((t) => t.freshness.verdict));
}

/** `status`: every tenant of the registry (or `--tenant`'s) judged at one instant; the exit status by the verdict. */
export async function statusCommand(
  argv: readonly string[],
  io: IOStreams,
  deps: TenantsDependencies = {},
): Promise<number> {
  const v = parseOrHelp(STATUS_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const tenant = checkedTenant(v.tenant);
  const d = await judgedDeployment(v, io, deps);
  const entries =
    tenant === undefined
      ? await d.registry.list({
          onInvalid: (bad, error) => io.stderr.write(`warning: skipped tenant ${bad}: ${error.message}\n`),
        })
      : [await registeredEntry(d.registry, tenant, d.describe)];
  const now = new Date();
  const judged: JudgedTenant[] = new Array(entries.length);
  const unreadable = (key: string, reason: string) =>
    io.stderr.write(`warning: skipped the unreadable run record ${key}: ${reason}\n`);
  await forEachLimited([...entries.keys()], STATUS_CONCURRENCY, async (i) => {
    const entry = entries[i] as TenantEntry;
    judged[i] = { entry, freshness: await tenantFreshness(d.lake, entry.id, entry, now, unreadable) };
  });
  // Nothing judged (no enabled tenant: an empty or mistyped registry, a single-tenant lake) is
  // no evidence of fresh data: an error, never exit 0.
  // (A tenant asked for by name is judged even when disabled, as it is shown.)
  const none = judged.length === 0 || (tenant === undefined && !judged.some((t) => t.entry.enabled));
  const verdict = none ? 'error' : overallVerdict(judged);
  if (none) {
    io.stderr.write(
      `nothing to judge: no enabled tenant in the ${d.describe} (status judges a registry's tenants; a single-tenant deployment is not judged yet)\n`,
    );
  }
  if (v.json) {
    io.stdout.write(`${JSON.stringify(statusDocument(judged, { at: now, lake: d.lakeUri, verdict }))}\n`);
  } else if (judged.length > 0) {
    io.stdout.write(statusLines(judged, verdict, io));
  }
  return FRESHNESS_EXIT_CODES[verdict];
}
