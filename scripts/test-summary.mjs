// Prints "N passed, N failed[, N skipped]" from vitest's JSON report.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'reports/vitest.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  console.log('0 passed, 1 failed');
  console.error(
    `test-summary: no vitest report at ${file} (lint, typecheck or setup failed before tests ran)`,
  );
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failed = (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
