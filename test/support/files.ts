import { readdir } from 'node:fs/promises';

/** Every file under `dir` (relative paths), none when it does not exist. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.map(String);
}
