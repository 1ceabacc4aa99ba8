import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../../command-line';
import type { ObjectLocation } from '../../stores/aws';
import type { IOStreams } from '../shared/io-streams';
import type { S3ClientFactory } from './s3-client';

/**
 * The lake a reading command names with `flag` (`--dir`), as a store URI: s3:// as given, a
 * path (relative to `cwd`) as file://, which must be a directory.
 */
export async function lakeUri(flag: string, dir: string, cwd: string): Promise<string> {
  if (dir.startsWith('s3://')) return dir;
  const resolved = path.resolve(cwd, dir);
  const stat = await fs.stat(resolved).catch(() => undefined);
  if (!stat?.isDirectory())
    throw new UsageError(
      `${flag} ${resolved} is not a directory (export into it first: report-export, or pass ${flag})`,
    );
  return pathToFileURL(resolved).href;
}

/** The store of `uri` (`flag`'s value), a usage error when it is not one. */
export async function lakeLocation(flag: string, uri: string, s3?: S3ClientFactory): Promise<ObjectLocation> {
  // Loaded on use: the store adapters bring the AWS SDK clients. For an s3:// URI the SDK
  // takes credentials and region from the process's own environment, not the command's `io.env`.
  const { objectStoreFromUri, StoreUriError } = await import('../../stores/from-uri');
  try {
    return objectStoreFromUri(flag, uri, s3 === undefined ? {} : { s3 });
  } catch (cause) {
    if (cause instanceof StoreUriError) throw new UsageError(cause.message, { cause });
    throw cause;
  }
}

/**
 * The S3 client of an s3:// lake, checked as every AWS command checks what it uses
 * (credentials, region, the bucket: exit 2 naming what is missing) before any listing;
 * undefined for a directory. `command` names the command in the checks' messages.
 */
export async function checkedLakeS3(
  command: string,
  flag: string,
  uri: string,
  io: IOStreams,
): Promise<S3ClientFactory | undefined> {
  if (!uri.startsWith('s3://')) return undefined;
  // Loaded on use, as the store adapters are: a lake on disk needs no AWS SDK.
  const { checkAws } = await import('./preflight');
  const { bucketTargets, s3ClientFactory } = await import('./s3-client');
  const s3 = s3ClientFactory({}, io.env);
  await lakeLocation(flag, uri, s3); // a malformed URI is a usage error before AWS is asked anything
  await checkAws(command, bucketTargets([{ uri, where: flag }], s3, { injected: false }), { env: io.env });
  return s3;
}
