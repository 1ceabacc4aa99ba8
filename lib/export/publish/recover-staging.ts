import { hostname } from 'node:os';
import {
  isMachineLocal,
  type MachineLocalStore,
  type ObjectStore,
  readObject,
  readObjectIfPresent,
} from '../../stores/object-store';
import { type ProcessIdentity, parseProcessIdentity, processGone } from '../../stores/process-identity';
import {
  journalPrefix,
  type StagingLayout,
  stagingArea,
  stagingOwnerKey,
  stagingRoot,
  TENANT_SEGMENT,
} from '../layout';
import { type JournalEntry, journalEntriesOf } from './journal';
import { deleteStaging, rollback, type Touched } from './publish';

/** What became of one run's staging area that a recovery found. */
export interface StagingRecovery {
  runId: string;
  /** The tenant whose run it was (a root under `_staging/tenant=<t>/`). */
  tenant?: string;
  /** Key prefix of the staging root (no trailing slash). */
  root: string;
  /** The process its owner record names; undefined when it has none (an older version's). */
  owner: ProcessIdentity | undefined;
  /**
   * `recovered`: its owner had ended; its partial promotion was rolled back and the staging
   * deleted. `other-host`: owned by a process on another machine, left. `unowned`: no owner
   * record, left. `failed`: its owner had ended but the rollback or the delete failed; left
   * as it is (the backups with it). A root whose owner still runs is not reported.
   */
  outcome: 'recovered' | 'other-host' | 'unowned' | 'failed';
  /** Partitions rolled back to their objects before the run (prefixes, no trailing slash). */
  restored: string[];
  /** Partitions it had begun to promote that another run has published since: not touched. */
  superseded: string[];
  /** Why it failed (outcome `failed`). */
  error?: unknown;
}

export interface RecoverStagingOptions {
  /** Whether the owner has ended. Default processGone: same host, pid gone or reused. */
  gone?: (owner: ProcessIdentity) => boolean;
}

/**
 * Recovers the staging that runs on this machine left when their process died (a kill, a
 * crash) in a machine-local store, under `<prefix>/_staging/`. For each run whose owner
 * record names a process of this host that has ended: every partition its promotion journal
 * lists (the run had backed it up and begun to replace its batch) is rolled back from the backups,
 * unless another run has published it since; then the staging is deleted (the journal
 * first, the owner record last, as a run cleans its own), with what writes the kill cut
 * short left there and in those partitions. A root whose owner still runs,
 * runs on another host, or is not named, is left. Rolling back is idempotent, so a recovery
 * that dies itself is finished by the next one.
 *
 * Only for a store no other machine writes to (see MachineLocalStore), by a caller that
 * keeps other runs of this machine out of the lake meanwhile (the out-dir lock); for any
 * other store it does nothing: S3 staging expires by a lifecycle rule.
 */
export async function recoverDeadStaging(
  store: ObjectStore,
  prefix: string,
  options: RecoverStagingOptions = {},
): Promise<StagingRecovery[]> {
  if (!isMachineLocal(store)) return [];
  const gone = options.gone ?? processGone;
  const out: StagingRecovery[] = [];
  for (const layout of await stagings(store, prefix)) {
    const { runId } = layout;
    const root = stagingRoot(layout, runId);
    const owner = await readOwner(store, stagingOwnerKey(layout, runId));
    const base = { runId, root, owner, restored: [], superseded: [], ...tenantOf(layout) };
    if (owner === undefined) {
      // A run deletes its owner record last: a root left empty since was being cleaned.
      if (await hasAny(store, `${root}/`)) out.push({ ...base, outcome: 'unowned' });
      continue;
    }
    if (owner.host !== hostname()) {
      out.push({ ...base, outcome: 'other-host' });
      continue;
    }
    if (!gone(owner)) continue;
    const recovery: StagingRecovery = { ...base, outcome: 'recovered', restored: [], superseded: [] };
    const unfinished = (store as Partial<MachineLocalStore>).removeUnfinishedWrites?.bind(store);
    try {
      for await (const info of store.list(journalPrefix(layout, runId))) {
        const text = Buffer.from(await readObject(store, info.key)).toString('utf8');
        for (const entry of journalEntriesOf(text)) {
          // A write the kill cut short leaves its temporary file beside the key: in a
          // partition the run journaled (it writes nowhere else outside its staging).
          await unfinished?.(`${entry.partition}/`);
          if (!(await stillOurs(store, entry, runId))) {
            recovery.superseded.push(entry.partition);
            continue;
          }
          await rollback(store, touchedBy(entry));
          recovery.restored.push(entry.partition);
        }
      }
      await unfinished?.(`${root}/`);
      await deleteStaging(store, layout, runId);
    } catch (error) {
      recovery.outcome = 'failed';
      recovery.error = error;
    }
    out.push(recovery);
  }
  // Objects of a run in the staging's own folders (`_`-named: the directory syncs it staged,
  // its sync report): nobody's once no live process owns the run's root (the caller keeps
  // other runs of this machine out of the lake).
  const live = new Set((await stagings(store, prefix)).map((l) => `${l.tenant ?? ''}/${l.runId}`));
  for (const [id, area] of await runAreas(store, prefix)) {
    if (live.has(id)) continue;
    const recovery: StagingRecovery = {
      runId: area.runId,
      ...(area.tenant === undefined ? {} : { tenant: area.tenant }),
      root: area.root,
      owner: undefined,
      outcome: 'recovered',
      restored: [],
      superseded: [],
    };
    try {
      for (let i = 0; i < area.keys.length; i += 1000) await store.deleteMany(area.keys.slice(i, i + 1000));
    } catch (error) {
      recovery.outcome = 'failed';
      recovery.error = error;
    }
    out.push(recovery);
  }
  return out;
}

/** A run's objects in a `_`-named folder of a staging area: `<folder>/<runId>/...` or `<folder>/<runId>.json`. */
interface RunArea {
  runId: string;
  tenant: string | undefined;
  /** The first of its objects' common prefix (the folder's `<runId>`), for the message. */
  root: string;
  keys: string[];
}

/** The staging's `_`-named folders' objects, by `<tenant>/<runId>`. */
async function runAreas(store: ObjectStore, prefix: string): Promise<Map<string, RunArea>> {
  const area = `${stagingArea(prefix)}/`;
  const found = new Map<string, RunArea>();
  for await (const info of store.list(area)) {
    const parts = info.key.slice(area.length).split('/');
    const tenant =
      parts[0]?.startsWith(TENANT_SEGMENT) === true ? parts[0].slice(TENANT_SEGMENT.length) : undefined;
    const [folder, entry] = tenant === undefined ? parts : parts.slice(1);
    if (folder === undefined || !folder.startsWith('_') || entry === undefined || entry === '') continue;
    const runId = entry.replace(/\.json$/, '');
    const id = `${tenant ?? ''}/${runId}`;
    const root = `${stagingArea(prefix, tenant)}/${folder}/${runId}`;
    const known = found.get(id) ?? { runId, tenant, root, keys: [] };
    known.keys.push(info.key);
    found.set(id, known);
  }
  return found;
}

/**
 * The staging roots under `<prefix>/_staging/`: a single-tenant run's `<runId>/` and a
 * tenant's `tenant=<t>/<runId>/` (a run id has no `=`, so the two never mix up).
 */
async function stagings(store: ObjectStore, prefix: string): Promise<(StagingLayout & { runId: string })[]> {
  const area = `${stagingArea(prefix)}/`;
  const found = new Map<string, StagingLayout & { runId: string }>();
  for await (const info of store.list(area)) {
    const [first, second] = info.key.slice(area.length).split('/');
    const tenant =
      first?.startsWith(TENANT_SEGMENT) === true ? first.slice(TENANT_SEGMENT.length) : undefined;
    const runId = tenant === undefined ? first : second;
    // A `_`-named folder is the staging's own (never a run id): see runAreas.
    if (runId === undefined || runId === '' || runId.startsWith('_')) continue;
    found.set(`${tenant ?? ''}/${runId}`, { prefix, tenant, runId });
  }
  return [...found.values()];
}

function tenantOf(layout: StagingLayout): { tenant?: string } {
  return layout.tenant === undefined ? {} : { tenant: layout.tenant };
}

/** The keys a journal entry's promotion may have touched, as the in-process rollback records them. */
function touchedBy(entry: JournalEntry): Touched[] {
  const backedUp = new Set(entry.backups.map((b) => b.key));
  return [
    ...entry.backups.map((b) => ({ key: b.key, backup: b.backup })),
    ...entry.writes.filter((k) => !backedUp.has(k)).map((key) => ({ key, backup: undefined })),
  ];
}

/**
 * True when the partition still holds what the dead run (or the time before it) left: its
 * manifest is missing, is the dead run's, or is the one the run backed up. A manifest of
 * any other run means that run has published the partition since: rolling back would undo it.
 */
async function stillOurs(store: ObjectStore, entry: JournalEntry, runId: string): Promise<boolean> {
  const current = await readIfPresent(store, entry.manifest);
  if (current === undefined) return true;
  try {
    if ((JSON.parse(current.toString('utf8')) as { runId?: unknown }).runId === runId) return true;
  } catch {
    // not JSON: compared with the backup below
  }
  const backup = entry.backups.find((b) => b.key === entry.manifest);
  if (backup === undefined) return false;
  const before = await readIfPresent(store, backup.backup);
  return before?.equals(current) === true;
}

async function hasAny(store: ObjectStore, prefix: string): Promise<boolean> {
  for await (const _ of store.list(prefix)) return true;
  return false;
}

async function readIfPresent(store: ObjectStore, key: string): Promise<Buffer | undefined> {
  const bytes = await readObjectIfPresent(store, key);
  return bytes === undefined ? undefined : Buffer.from(bytes);
}

async function readOwner(store: ObjectStore, key: string): Promise<ProcessIdentity | undefined> {
  const text = await readIfPresent(store, key);
  if (text === undefined) return undefined;
  try {
    return parseProcessIdentity(JSON.parse(text.toString('utf8')));
  } catch {
    return undefined;
  }
}
