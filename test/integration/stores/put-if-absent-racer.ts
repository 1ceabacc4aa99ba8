// One side of the putIfAbsent race (put-if-absent-race.test.ts): says `ready`, waits for the
// `go` file, then creates keys race/0..race/<count-1> with content of its own and prints
// the keys it created as one JSON line.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalDirectoryStore } from '../../../lib/stores/local-directory-store';

const [root = '', who = '', count = '0', bytes = '0'] = process.argv.slice(2);
const store = new LocalDirectoryStore(root);
process.stdout.write('ready\n');
// Bounded: the test writes `go` once both sides are ready, and kills the group after.
for (let i = 0; i < 3_000 && !existsSync(join(root, 'go')); i++) await sleep(2);
const created: string[] = [];
for (let i = 0; i < Number(count); i++) {
  const key = `race/${i}`;
  const body = `${who} ${i} `.padEnd(Number(bytes), who);
  if ((await store.putIfAbsent(key, body)) !== undefined) created.push(key);
}
process.stdout.write(`${JSON.stringify({ who, created })}\n`);
