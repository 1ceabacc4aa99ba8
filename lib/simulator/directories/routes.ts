import {
  DIRECTORY_FIELD_NAMES,
  type Directory,
  type DirectoryFieldName,
  type DirectoryItem,
} from '../../spec';
import type { Clock } from '../clock';
import type { HostedTenants } from '../hosted-tenants';
import { InvalidValueError, NotFoundError } from '../http/errors';
import { readJsonBody, sendEnvelope, sendList } from '../http/responses';
import type { RouteContext, Router } from '../http/router';
import { isGuid } from '../prng';
import type { DirectoryStore } from './directory-store';
import { itemMatches, selectFields, validateItemFields } from './item-fields';
import { applyFieldsPatch } from './json-patch';

interface DirectoryDeps {
  /** Each token's tenant has its own directories; its country is the default region of phone numbers. */
  tenants: HostedTenants;
  clock: Clock;
  /** `{base_url}` once listening, for Location headers. */
  baseUrl: () => string;
}

/** What a request works on: its tenant's directories and that tenant's country. */
interface TenantDirectories {
  store: DirectoryStore;
  region: string;
}

const MAX_FILTER_LENGTH = 256;

/** One form-encoded query component; malformed percent-encoding is a 400 naming the raw text. */
function formDecode(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    throw new InvalidValueError(raw);
  }
}

/** Query values by name, decoded strictly: malformed percent-encoding is a 400 naming the raw value. */
function strictQuery(url: URL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of url.search.replace(/^\?/, '').split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    const name = formDecode(rawName);
    out.set(name, [...(out.get(name) ?? []), formDecode(rawValue)]);
  }
  return out;
}

/** Registers endpoints 5-12, GET /contactdirectories, POST .../crmitems and PATCH .../items/{id}. */
export function registerDirectoryRoutes(router: Router, deps: DirectoryDeps): void {
  const { tenants, clock } = deps;

  /** The token's tenant's store (opened on its first use) and its country. */
  const scopeOf = async (ctx: RouteContext): Promise<TenantDirectories> => {
    const tenant = tenants.of(ctx);
    return { store: await tenant.directoryStore(), region: tenant.seed.tenant.countryCode };
  };
  const directoryOf = ({ store }: TenantDirectories, id: string | undefined): Directory => {
    if (!isGuid(id)) throw new InvalidValueError(id);
    const directory = store.directory(id);
    if (!directory) throw new NotFoundError();
    return directory;
  };
  const itemsOf = ({ store }: TenantDirectories, directory: Directory): DirectoryItem[] =>
    store.items(directory.id) ?? [];
  const guidParam = (value: string | undefined): string => {
    if (!isGuid(value)) throw new InvalidValueError(value);
    return value.toLowerCase();
  };
  const itemOf = (
    scope: TenantDirectories,
    ctx: RouteContext,
  ): { directory: Directory; item: DirectoryItem } => {
    const directory = directoryOf(scope, ctx.params.directoryId);
    const itemId = guidParam(ctx.params.itemId);
    const item = itemsOf(scope, directory).find((i) => i.id === itemId);
    if (!item) throw new NotFoundError();
    return { directory, item };
  };
  const byCrmId = (
    scope: TenantDirectories,
    ctx: RouteContext,
  ): { directory: Directory; items: DirectoryItem[] } => {
    const directory = directoryOf(scope, ctx.params.directoryId);
    const crmId = guidParam(ctx.params.crmId);
    const items = itemsOf(scope, directory).filter((i) => i.fields.crmId?.toLowerCase() === crmId);
    if (items.length === 0) throw new NotFoundError();
    return { directory, items };
  };
  const collectionUrl = (directoryId: string, collection: 'items' | 'crmitems') =>
    `${deps.baseUrl()}/v1.0/contactdirectories/${directoryId}/${collection}`;

  router.add('GET', '/v1.0/contactdirectories', 'directories', async (ctx) => {
    sendList(ctx.res, clock, (await scopeOf(ctx)).store.directories());
  });

  router.add('GET', '/v1.0/contactdirectories/:directoryId', 'directories', async (ctx) => {
    const directory = directoryOf(await scopeOf(ctx), ctx.params.directoryId);
    // The spec shows this read with an octet-stream media type (the body is JSON all the same).
    sendList(ctx.res, clock, [directory], {}, { 'content-type': 'application/octet-stream; charset=utf-8' });
  });

  router.add('GET', '/v1.0/contactdirectories/:directoryId/items', 'items', async (ctx) => {
    const { res, url, params } = ctx;
    const scope = await scopeOf(ctx);
    const { region } = scope;
    const directory = directoryOf(scope, params.directoryId);
    const query = strictQuery(url);
    const filter = query.get('filter')?.at(-1) ?? '';
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is rejected
    if (filter.length > MAX_FILTER_LENGTH || /[\u0000-\u001f]/.test(filter))
      throw new InvalidValueError(filter);
    const fields = query.get('fields') ?? [];
    for (const name of fields) {
      if (!(DIRECTORY_FIELD_NAMES as readonly string[]).includes(name) || !directory.fields.includes(name)) {
        throw new InvalidValueError(name);
      }
    }
    const text = filter.trim();
    const matches = itemsOf(scope, directory).filter(
      (item) => text === '' || itemMatches(item, text, region, fields),
    );
    if (matches.length === 0) throw new NotFoundError();
    sendList(
      res,
      clock,
      matches.map((item) => selectFields(item, fields as DirectoryFieldName[])),
    );
  });

  router.add('POST', '/v1.0/contactdirectories/:directoryId/items', 'items', async (ctx) => {
    const scope = await scopeOf(ctx);
    const { store, region } = scope;
    const directory = directoryOf(scope, ctx.params.directoryId);
    const fields = validateItemFields(await readJsonBody(ctx.req), directory, region);
    const item = await store.create(directory.id, fields);
    sendEnvelope(ctx.res, clock, 201, item, {}, { location: collectionUrl(directory.id, 'items') });
  });

  router.add('POST', '/v1.0/contactdirectories/:directoryId/crmitems', 'items', async (ctx) => {
    const scope = await scopeOf(ctx);
    const { store, region } = scope;
    const directory = directoryOf(scope, ctx.params.directoryId);
    const fields = validateItemFields(await readJsonBody(ctx.req), directory, region);
    if (!fields.crmId) throw new InvalidValueError('crmId');
    const item = await store.create(directory.id, fields);
    sendEnvelope(ctx.res, clock, 201, item, {}, { location: collectionUrl(directory.id, 'crmitems') });
  });

  const itemPath = '/v1.0/contactdirectories/:directoryId/items/:itemId';
  router.add('GET', itemPath, 'items', async (ctx) => {
    sendList(ctx.res, clock, [itemOf(await scopeOf(ctx), ctx).item]);
  });

  /** PUT and PATCH: the body (read by `nextBody` from the current item) replaces the fields; 201 + item Location. */
  const replaceItem =
    (nextBody: (item: DirectoryItem, body: unknown) => unknown) =>
    async (ctx: RouteContext): Promise<void> => {
      const scope = await scopeOf(ctx);
      const { store, region } = scope;
      const { directory, item } = itemOf(scope, ctx);
      const fields = validateItemFields(nextBody(item, await readJsonBody(ctx.req)), directory, region);
      const replaced = await store.replace(directory.id, item.id, fields);
      const location = `${collectionUrl(directory.id, 'items')}/${item.id}`;
      sendEnvelope(ctx.res, clock, 201, replaced, {}, { location });
    };
  router.add(
    'PUT',
    itemPath,
    'items',
    replaceItem((_item, body) => body),
  );
  router.add(
    'PATCH',
    itemPath,
    'items',
    replaceItem((item, patch) => ({ fields: applyFieldsPatch(item.fields, patch) })),
  );

  router.add('DELETE', itemPath, 'items', async (ctx) => {
    const scope = await scopeOf(ctx);
    const { directory, item } = itemOf(scope, ctx);
    const deleted = await scope.store.delete(directory.id, item.id);
    sendEnvelope(ctx.res, clock, 200, deleted);
  });

  const crmPath = '/v1.0/contactdirectories/:directoryId/crmitems/:crmId';
  router.add('GET', crmPath, 'items', async (ctx) => {
    sendList(ctx.res, clock, byCrmId(await scopeOf(ctx), ctx).items);
  });

  router.add('DELETE', crmPath, 'items', async (ctx) => {
    const scope = await scopeOf(ctx);
    const { directory, items } = byCrmId(scope, ctx);
    // Several items may share a crmId; one call deletes the oldest and returns it.
    const deleted = await scope.store.delete(directory.id, (items[0] as DirectoryItem).id);
    sendEnvelope(ctx.res, clock, 200, deleted);
  });
}
