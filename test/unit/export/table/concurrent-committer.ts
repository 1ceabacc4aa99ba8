// One side of the concurrent-commit test (concurrent-commit.test.ts): loads the calls table of
// the lake in <root> (the file catalog), writes a data file for each of <commits> runs of
// report r1 on <day>, says `ready`, waits for the `go` file, then commits the runs one after
// the other and prints their results as one JSON line.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { commitOverwrite, ensureTable } from '../../../../lib/export';
import { tableSchema } from '../../../../lib/export/schema';
import { fileTable, testRows, writeDataFile } from './table-fixture';

const [root = '', day = '', commits = '1'] = process.argv.slice(2);
const table = fileTable(root);
const loaded = await ensureTable(table, tableSchema({ dataset: 'calls' }));
const files = [];
for (let run = 0; run < Number(commits); run++) {
  files.push(await writeDataFile(table, loaded, 'r1', day, testRows(`${day}/${run}`, run + 1)));
}
process.stdout.write('ready\n');
// Bounded: the test writes `go` once both sides are ready, and kills the group after.
for (let i = 0; i < 3_000 && !existsSync(join(root, 'go')); i++) await sleep(2);
const results = [];
for (const file of files) {
  results.push(await commitOverwrite(table, { reportId: 'r1', dts: [day], files: [file], summary: {} }));
}
process.stdout.write(`${JSON.stringify({ day, results })}\n`);
