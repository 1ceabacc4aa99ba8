import type { ExportLogger } from './types';

/** Logs one progress line per phase of a run with its duration and the process RSS. */
export function phaseLog(
  logger: ExportLogger | undefined,
): (name: string, data?: Record<string, unknown>) => void {
  let mark = performance.now();
  return (name, data = {}) => {
    const now = performance.now();
    logger?.info?.(`export phase ${name} done`, {
      ...data,
      ms: Math.round(now - mark),
      rssMb: Math.round(process.memoryUsage.rss() / 1048576),
    });
    mark = now;
  };
}
