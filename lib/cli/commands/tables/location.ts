import { UsageError } from '../../../command-line';
import type { LakeTablesLocation } from '../../../export';
import { parseCatalogSetting, StoreUriError } from '../../../stores';
import { checkedLakeS3, lakeLocation, lakeUri } from '../../aws/lake-location';
import type { IOStreams } from '../../shared/io-streams';

/**
 * The lake's tables `--dir` and `--catalog` name: the file catalog over a local directory or
 * an s3:// lake, or a Glue database's tables over the s3:// lake (a deployment). An s3://
 * lake is checked first as every AWS command checks it (exit 2 naming what is missing).
 */
export async function tablesLocation(
  command: string,
  v: { dir: string; catalog: string },
  io: IOStreams,
): Promise<LakeTablesLocation & { where: string }> {
  let setting: ReturnType<typeof parseCatalogSetting>;
  try {
    setting = parseCatalogSetting('--catalog', v.catalog);
  } catch (cause) {
    if (cause instanceof StoreUriError) throw new UsageError(cause.message, { cause });
    throw cause;
  }
  if (setting.kind === 'hive') {
    throw new UsageError(
      '--catalog hive: the Hive layout has no tables (no snapshots to list or roll back); give file or glue:<database>',
    );
  }
  const uri = await lakeUri('--dir', v.dir, io.cwd);
  if (setting.kind === 'glue' && !uri.startsWith('s3://')) {
    throw new UsageError(
      `--catalog ${v.catalog} needs --dir s3://bucket/prefix (the deployment's DataLakeUri): its tables' files are in S3`,
    );
  }
  const s3 = await checkedLakeS3(command, '--dir', uri, io);
  const { store, prefix } = await lakeLocation('--dir', uri, s3);
  // Loaded on use: the Glue adapter is the AWS SDK's.
  const { catalogFromUri } = await import('../../../stores/aws');
  const catalog = catalogFromUri('--catalog', v.catalog, { store, prefix }, s3 === undefined ? {} : { s3 });
  if (catalog === undefined) throw new UsageError(`--catalog ${v.catalog} names no table catalog`);
  const namespace = setting.kind === 'glue' ? setting.database : '';
  return { store, prefix, catalog, namespace, where: v.dir };
}
