import { parentPort, workerData } from 'node:worker_threads';
import { ArrayCollector } from '../rows/array-pool';
import { ColumnBuffer, RunDictionaries } from '../rows/column-buffer';
import type { FromWorker, SpillOptions, ToWorker } from './partition-sink';
import { InlineSink } from './partition-sink';
import { SpillShortageError } from './spill-budget';

/**
 * Worker-thread side of WorkerSink: receives row groups and encodes them, in order, into
 * part files with the same InlineSink the main thread would use. Deployments bundle this file as `encode-worker.mjs` next to the
 * bundle that calls exportReportResult.
 */
const port = parentPort;
if (port === null) throw new Error('encode-worker must run as a worker thread');
/** Every part file of the run is written here, so this sink's budget counts them all. */
const sink = new InlineSink(workerData as SpillOptions);
/** Mirror of the main thread's run dictionaries (new entries arrive with the next row group sent, before any row group can use them). */
const dictionaries = new RunDictionaries((workerData as SpillOptions).schema);
/** Arrays of written row groups, sent back to the main thread's pool. */
const returned = new ArrayCollector();
let queue: Promise<void> = Promise.resolve();
let failed = false;

port.on('message', (m: ToWorker) => {
  if (m.type === 'close') {
    // After what is queued: nothing keeps the thread alive once the port is closed.
    queue = queue.then(() => port.close());
    return;
  }
  queue = queue.then(async () => {
    if (failed) return;
    try {
      if (m.type === 'write') {
        for (const a of m.added) dictionaries.columns[a.column]?.extend(a.values);
        await sink.write(m.dt, ColumnBuffer.received(dictionaries, m.columns, m.rows, returned));
        const buffers = returned.take();
        port.postMessage({ type: 'written', buffers } satisfies FromWorker, buffers);
      } else {
        port.postMessage({ type: 'finished', outputs: await sink.finish() } satisfies FromWorker);
      }
    } catch (error) {
      failed = true;
      // A shortage crosses as data (an Error's class does not survive postMessage).
      const message = (error as Error).message;
      port.postMessage(
        (error instanceof SpillShortageError
          ? { type: 'error', message, shortage: error.shortage }
          : { type: 'error', message }) satisfies FromWorker,
      );
    }
  });
});
port.postMessage({ type: 'ready' } satisfies FromWorker);
