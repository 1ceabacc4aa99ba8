import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UsageError } from './options';

/** The same rule the S3 adapter applies (lib/stores/from-uri), checked before any work. */
const S3_URI = /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](?:\/.*)?$/;
/** A URI scheme; one letter is left out so a Windows drive (C:\) stays a path. */
const SCHEME = /^([a-z][a-z0-9+.-]+):/i;

/**
 * The data lake URI of `flag`'s value, checked before any request is sent: an export that
 * fails at its first write has already spent the service's report runs. A local directory
 * is created when missing and must be writable; s3:// must be s3://bucket[/prefix]; any
 * other scheme is refused. The message names the flag and the reason.
 */
export async function checkedOutUri(flag: string, out: string, cwd = process.cwd()): Promise<string> {
  const scheme = SCHEME.exec(out)?.[1]?.toLowerCase();
  if (scheme === 's3') {
    if (!S3_URI.test(out)) {
      throw new UsageError(`${flag} ${out} is not an s3://bucket[/prefix] URI (bucket: 3-63 of a-z 0-9 . -)`);
    }
    return out;
  }
  if (scheme !== undefined && scheme !== 'file') {
    throw new UsageError(
      `${flag} ${out}: unknown scheme '${scheme}:' (a directory, file:///dir or s3://bucket/prefix)`,
    );
  }
  let dir: string;
  try {
    dir = scheme === 'file' ? fileURLToPath(out) : path.resolve(cwd, out);
  } catch (cause) {
    throw new UsageError(`${flag} ${out} is not a file:/// URI of a directory`, { cause });
  }
  const stat = await fs.stat(dir).catch(() => undefined);
  if (stat !== undefined && !stat.isDirectory()) throw new UsageError(`${flag} ${dir} is not a directory`);
  try {
    if (stat === undefined) await fs.mkdir(dir, { recursive: true });
    // Writable and searchable: the export creates partitions and staging below it.
    await fs.access(dir, constants.W_OK | constants.X_OK);
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    throw new UsageError(`${flag} ${dir} is not a writable directory (${reason})`, { cause });
  }
  return pathToFileURL(dir).href;
}
