import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UsageError } from '../../command-line';

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
export async function checkedOutUri(flag: string, out: string, cwd: string): Promise<string> {
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
  return pathToFileURL(await checkedLocalDir(flag, dir, cwd)).href;
}

/** What is at `p` without following a last symlink: its kind, and a symlink's target. */
async function describePath(p: string): Promise<string> {
  const link = await fs.lstat(p).catch(() => undefined);
  if (link === undefined) return 'missing';
  if (link.isSymbolicLink()) return `a symbolic link to ${await fs.readlink(p).catch(() => '?')}`;
  if (link.isFile()) return 'a regular file';
  if (link.isDirectory()) return 'a directory';
  return 'neither a file nor a directory';
}

/**
 * A local directory for `flag` (created when missing, with its parents), writable and
 * searchable; its absolute path. Every miss is a UsageError naming the flag and the path
 * and saying what is there instead: a regular file, a symbolic link to nothing, a parent
 * that is a file, a directory without write permission.
 */
export async function checkedLocalDir(flag: string, out: string, cwd: string): Promise<string> {
  const dir = path.resolve(cwd, out);
  const link = await fs.lstat(dir).catch(() => undefined);
  const stat = await fs.stat(dir).catch(() => undefined);
  if (link?.isSymbolicLink() && stat === undefined) {
    const target = await fs.readlink(dir).catch(() => '?');
    throw new UsageError(
      `${flag} ${dir} is a symbolic link to ${target}, which does not exist: create that directory, or give ${flag} another directory`,
    );
  }
  if (stat !== undefined && !stat.isDirectory()) {
    throw new UsageError(
      `${flag} ${dir} is not a directory (it is ${await describePath(dir)}): give ${flag} a directory (created when missing)`,
    );
  }
  try {
    if (stat === undefined) await fs.mkdir(dir, { recursive: true });
    // Writable and searchable: the export creates partitions and staging below it.
    await fs.access(dir, constants.W_OK | constants.X_OK);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'ENOENT') {
      // A parent is a file, or a dangling link: name the first part of the path that is in the way.
      for (let parent = path.dirname(dir); parent !== path.dirname(parent); parent = path.dirname(parent)) {
        const kind = await describePath(parent);
        if (kind !== 'a directory' && kind !== 'missing' && !(await isDirectory(parent))) {
          throw new UsageError(`${flag} ${dir} cannot be created: ${parent} is ${kind}, not a directory`, {
            cause,
          });
        }
      }
    }
    const reason = code ?? (cause as Error).message;
    throw new UsageError(`${flag} ${dir} is not a writable directory (${reason})`, { cause });
  }
  return dir;
}

async function isDirectory(p: string): Promise<boolean> {
  return (await fs.stat(p).catch(() => undefined))?.isDirectory() === true;
}
