import * as path from 'node:path';
import { LocalDirectoryStore } from '../../../lib/stores';
import { LocalLeaseStore } from '../../../lib/stores/local-lease-store';
import type { ExportTaskDeps } from '../../../lib/workflow/export-task';

/** ExportResults' dependencies on local stores under `dir` (lake/, leases/), in Europe/London. */
export function localExportDeps(
  dir: string,
  reporting: ExportTaskDeps['reporting'],
  extra: Partial<ExportTaskDeps> = {},
): ExportTaskDeps {
  return {
    reporting,
    store: new LocalDirectoryStore(path.join(dir, 'lake')),
    prefix: '',
    leases: new LocalLeaseStore(path.join(dir, 'leases')),
    timeZone: 'Europe/London',
    minSplitMinutes: 60,
    csvGzip: false,
    parquetCodec: 'SNAPPY',
    owner: 'exporter-1',
    ...extra,
  };
}
