import { parentPort, workerData } from 'node:worker_threads';
import type { FromWorker, ToWorker } from './partition-sink';
import { InlineSink, takeOver } from './partition-sink';
import type { PartitionWriterOptions } from './partition-writer';
import { ColumnBuffer } from './row-mapper';

/**
 * Worker-thread side of WorkerSink: receives row groups and encodes them, in order, into
 * part files with the same InlineSink the main thread would use (the formats come in
 * workerData: Parquet). Deployments bundle this file as `encode-worker.mjs` next to the
 * bundle that calls exportReportResult.
 */
const port = parentPort;
if (port === null) throw new Error('encode-worker must run as a worker thread');
const sink = new InlineSink(workerData as PartitionWriterOptions);
let queue: Promise<void> = Promise.resolve();
let failed = false;

port.on('message', (m: ToWorker) => {
  queue = queue.then(async () => {
    if (failed) return;
    try {
      if (m.type === 'write') {
        const buffer = new ColumnBuffer();
        buffer.columns = m.columns.map(takeOver);
        buffer.rows = m.rows;
        await sink.write(m.dt, buffer);
        port.postMessage({ type: 'written' } satisfies FromWorker);
      } else {
        port.postMessage({ type: 'finished', outputs: await sink.finish() } satisfies FromWorker);
      }
    } catch (error) {
      failed = true;
      port.postMessage({ type: 'error', message: (error as Error).message } satisfies FromWorker);
    }
  });
});
port.postMessage({ type: 'ready' } satisfies FromWorker);
