import { ExportConfigError } from './errors';
import { checkTenantId } from './tenant';

/** Output formats, as they appear in the `format=` key segment. */
export const OUTPUT_FORMATS = { parquet: 'parquet', csv: 'csv' } as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[keyof typeof OUTPUT_FORMATS];

/** Name of the per-partition commit marker. */
export const MANIFEST_NAME = '_manifest.json';

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Where a run's objects go. */
export interface OutputLayout {
  /** Key prefix without trailing slash; may be empty. */
  prefix: string;
  dataset: string;
  reportId: string;
  csvExtension: '.csv' | '.csv.gz';
  /**
   * The tenant whose run it is (multi-tenant deployments): every partition and the run's
   * staging lie under a `tenant=<t>/` segment of their own. Absent: the single-tenant layout.
   */
  tenant?: string | undefined;
}

/** Validates the parts of the layout; names the offending setting. */
export function checkLayout(layout: OutputLayout): void {
  if (layout.prefix !== '' && !layout.prefix.split('/').every((s) => SEGMENT.test(s))) {
    throw new ExportConfigError(
      `prefix must be '/'-separated segments of [A-Za-z0-9._-], got ${layout.prefix}`,
    );
  }
  if (!SEGMENT.test(layout.dataset)) throw new ExportConfigError(`dataset is not a valid key segment`);
  if (!SEGMENT.test(layout.reportId)) throw new ExportConfigError(`reportId is not a valid key segment`);
  if (layout.tenant !== undefined) checkTenantId(layout.tenant);
}

/** How a tenant's key segment starts: `tenant=<t>`. */
export const TENANT_SEGMENT = 'tenant=';

/** The key segment of a tenant (`tenant=<t>`); '' without one, so `join` leaves it out. */
export function tenantSegment(tenant: string | undefined): string {
  return tenant === undefined ? '' : `${TENANT_SEGMENT}${tenant}`;
}

function join(...parts: string[]): string {
  return parts.filter((p) => p !== '').join('/');
}

/**
 * `<prefix>/<dataset>/format=<f>/report_id=<id>/dt=<dt>`, with a tenant
 * `<prefix>/<dataset>/format=<f>/tenant=<t>/report_id=<id>/dt=<dt>` (no trailing slash).
 */
export function partitionPrefix(layout: OutputLayout, format: OutputFormat, dt: string): string {
  return join(tenantPrefix(layout, format), `report_id=${layout.reportId}`, `dt=${dt}`);
}

/**
 * Where a format's partitions of a dataset lie for one tenant (`<prefix>/<dataset>/format=<f>/tenant=<t>`),
 * or of a single-tenant lake (`<prefix>/<dataset>/format=<f>`); no trailing slash. A tenant's
 * reader lists, and its IAM policy allows, under this prefix only.
 */
export function tenantPrefix(
  layout: Pick<OutputLayout, 'prefix' | 'dataset' | 'tenant'>,
  format: OutputFormat,
): string {
  return join(layout.prefix, layout.dataset, `format=${format}`, tenantSegment(layout.tenant));
}

/** File name of the n-th part: deterministic, zero-padded so names sort in order. */
function partName(layout: OutputLayout, format: OutputFormat, part: number): string {
  const ext = format === 'parquet' ? '.parquet' : layout.csvExtension;
  return `part-${String(part).padStart(5, '0')}${ext}`;
}

/** Key of a part in the published layout. */
export function partKey(layout: OutputLayout, format: OutputFormat, dt: string, part: number): string {
  return `${partitionPrefix(layout, format, dt)}/${partName(layout, format, part)}`;
}

/** Key of a partition's manifest. */
export function manifestKey(layout: OutputLayout, format: OutputFormat, dt: string): string {
  return `${partitionPrefix(layout, format, dt)}/${MANIFEST_NAME}`;
}

/**
 * Where every run's staging area lies: `<prefix>/_staging` (outside every dataset prefix);
 * a tenant's runs stage under `<prefix>/_staging/tenant=<t>`.
 */
export function stagingArea(prefix: string, tenant?: string): string {
  return join(prefix, '_staging', tenantSegment(tenant));
}

/** The layout members a run's staging keys derive from. */
export type StagingLayout = Pick<OutputLayout, 'prefix' | 'tenant'>;

/**
 * Root of a run's staging area (`<prefix>/_staging/[tenant=<t>/]<runId>`); it lies outside
 * every dataset prefix, so no table reads it.
 */
export function stagingRoot(layout: StagingLayout, runId: string): string {
  return join(stagingArea(layout.prefix, layout.tenant), runId);
}

/**
 * Key of the record naming the process that owns a run's staging (host, pid, start time),
 * written before anything else is staged and deleted last (machine-local stores only).
 */
export function stagingOwnerKey(layout: StagingLayout, runId: string): string {
  return `${stagingRoot(layout, runId)}/_owner.json`;
}

/** Prefix of a run's promotion journal: one record per batch of partitions it promotes. */
export function journalPrefix(layout: StagingLayout, runId: string): string {
  return `${stagingRoot(layout, runId)}/_journal/`;
}

/** Key of the backup a run keeps of a published object while it replaces the partition. */
export function backupKey(layout: OutputLayout, runId: string, key: string): string {
  return `${stagingRoot(layout, runId)}/_backup/${key}`;
}

/** Key of a staged copy of `key` for a run. */
export function stagedKey(layout: OutputLayout, runId: string, key: string): string {
  const relative = layout.prefix === '' ? key : key.slice(layout.prefix.length + 1);
  return `${stagingRoot(layout, runId)}/${relative}`;
}
