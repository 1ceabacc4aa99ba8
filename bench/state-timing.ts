import type { EngineEvent } from '../lib/local/history';
import type { LocalDeployment } from '../lib/local/local-deployment';

/**
 * Time spent in each state of an execution, summed over its visits, from the engine's
 * events; `log` hears each state entered.
 */
export function stateTimer(log: (state: string) => void): {
  onEvent: (e: EngineEvent) => void;
  stateMs: Record<string, number>;
} {
  const entered = new Map<string, number>();
  const stateMs: Record<string, number> = {};
  const onEvent = (e: EngineEvent) => {
    const name = e.state?.name;
    if (name === undefined) return;
    if (e.type === 'StateEntered') {
      entered.set(name, performance.now());
      log(name);
    } else if (e.type === 'StateExited') {
      const since = entered.get(name);
      if (since !== undefined) stateMs[name] = (stateMs[name] ?? 0) + performance.now() - since;
    }
  };
  return { onEvent, stateMs };
}

/** Throws, with the last errors the functions logged, unless the execution succeeded. */
export function requireSucceeded(
  result: { status: string; error: string | null },
  deployment: Pick<LocalDeployment, 'logLines'>,
): void {
  if (result.status === 'SUCCEEDED') return;
  const errors = deployment.logLines.filter((l) => l.includes('"ERROR"')).slice(-3);
  throw new Error(`the execution ${result.status}: ${result.error} ${errors.join(' ')}`);
}
