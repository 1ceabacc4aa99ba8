// One Lambda execution environment, locally: imports a function's bundle (its init), then
// runs one invocation at a time for the parent (lib/local/function-processes.ts) over IPC,
// with a Lambda-like context. Plain JavaScript: it runs the deployed bundle as Lambda does,
// without tsx or the sources.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [bundle, handlerName = 'handler'] = process.argv.slice(2);
const inFlight = new Map();

function failure(error) {
  return {
    errorType: typeof error?.name === 'string' && error.name !== '' ? error.name : 'Error',
    errorMessage: typeof error?.message === 'string' ? error.message : String(error),
  };
}

let handler;
try {
  const module = await import(pathToFileURL(bundle).href);
  handler = module[handlerName];
  if (typeof handler !== 'function') throw new Error(`${bundle} exports no function ${handlerName}`);
} catch (error) {
  // Exit once the message is out: an init failure keeps its name (a terminal error stays terminal).
  process.send?.({ type: 'init-error', ...failure(error) }, () => process.exit(1));
  await new Promise(() => {});
}

process.on('message', async (message) => {
  if (message.type === 'abort') {
    inFlight.get(message.id)?.abort(new Error('The local run was interrupted'));
    return;
  }
  if (message.type !== 'invoke') return;
  const controller = new AbortController();
  inFlight.set(message.id, controller);
  const context = {
    awsRequestId: randomUUID(),
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    getRemainingTimeInMillis: () => Math.max(0, message.deadlineAt - Date.now()),
    // Not in Lambda's context: a local run interrupted by its user (Ctrl+C) aborts the task.
    signal: controller.signal,
  };
  try {
    const value = await handler(message.event, context);
    process.send?.({ type: 'result', id: message.id, ok: true, value: value ?? null });
  } catch (error) {
    process.send?.({ type: 'result', id: message.id, ok: false, ...failure(error) });
  } finally {
    inFlight.delete(message.id);
  }
});
// As Lambda's Node.js runtime: an unhandled rejection fails the invocation in flight as
// Runtime.UnhandledPromiseRejection (the reason as text) and ends the environment.
process.on('unhandledRejection', (reason) => {
  const errorMessage = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
  const [id] = inFlight.keys();
  if (id === undefined) process.exit(1);
  const failed = {
    type: 'result',
    id,
    ok: false,
    fatal: true,
    errorType: 'Runtime.UnhandledPromiseRejection',
  };
  process.send?.({ ...failed, errorMessage }, () => process.exit(1));
});
process.send?.({ type: 'ready' });
// An execution environment lives no longer than the runner that started it.
process.on('disconnect', () => process.exit(0));
// Ctrl+C reaches the whole process group: the runner passes it on as an abort of the
// invocation (so the task releases its leases and removes its staging), never a kill.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
