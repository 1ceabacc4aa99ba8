import {
  API_VERSION_SEGMENT,
  DIRECTORY_FIELD_NAMES,
  type Directory,
  type DirectoryFieldName,
  type DirectoryItem,
  type DirectoryItemFields,
} from '../spec';
import { expectArray, expectObject, parseEnvelope } from './envelope';
import { NotFoundError, ValidationError } from './errors';
import { RETRY_MODES } from './http/retry';
import type { CallOptions, HttpTransport } from './http/transport';
import { type PageOptions, paginate } from './paging';
import {
  DEFAULT_PHONE_REGION,
  isPhoneField,
  type PhoneRegion,
  requireRegion,
  searchTextFor,
  toE164,
} from './phone';
import { requireGuid, seg } from './validate';

/** One RFC 6902 operation of a PATCH. Values of `/fields/phoneN` are normalised to E.164. */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** A written item and the `Location` the service answered with. */
export interface WrittenItem {
  item: DirectoryItem;
  location: string | undefined;
}

export interface DirectoryClientOptions {
  /** Region of phone numbers written without a country code. Default `GB`. */
  defaultRegion?: string | undefined;
}

const V = `/${API_VERSION_SEGMENT}`;

/** Contact directory endpoints 5-12 plus list-all, create-by-crmId and PATCH. */
export class DirectoryClient {
  readonly #t: HttpTransport;
  readonly #region: PhoneRegion;

  constructor(transport: HttpTransport, options: DirectoryClientOptions = {}) {
    this.#t = transport;
    this.#region = requireRegion(options.defaultRegion ?? DEFAULT_PHONE_REGION);
  }

  /** All directories (`GET /v1.0/contactdirectories`). */
  listDirectories(options: PageOptions = {}): AsyncIterable<Directory> {
    return paginate<Directory>(this.#t, `${V}/contactdirectories`, options);
  }

  /** One directory (endpoint 5). */
  async getDirectory(directoryId: string, call: CallOptions = {}): Promise<Directory> {
    const path = this.#dir(directoryId);
    return this.#first<Directory>(await this.#get(path, call), path);
  }

  /**
   * Searches items (endpoint 6): `text` is a CONTAINS match (phone-like texts are
   * normalised, see {@link searchTextFor}); `fields` picks the fields returned.
   * The service answers 404 when nothing matches; this method returns `[]` instead. An
   * unknown directory also answers 404, so it also gives `[]`: use `getDirectory` to tell.
   */
  async searchItems(
    directoryId: string,
    text: string,
    options: CallOptions & { fields?: readonly DirectoryFieldName[] } = {},
  ): Promise<DirectoryItem[]> {
    const { fields, ...call } = options;
    for (const f of fields ?? []) {
      if (!(DIRECTORY_FIELD_NAMES as readonly string[]).includes(f))
        throw new ValidationError('fields', `unknown field '${f}'`);
    }
    const path = `${this.#dir(directoryId)}/items`;
    try {
      const query = { filter: searchTextFor(text, this.#region), fields: fields ?? undefined };
      const { body } = await this.#t.requestJson({ ...call, method: 'GET', path, query });
      return expectArray(parseEnvelope(body, { method: 'GET', path }).data, {
        method: 'GET',
        path,
      }) as DirectoryItem[];
    } catch (error) {
      if (error instanceof NotFoundError) return [];
      throw error;
    }
  }

  /** One item by id (endpoint 7). */
  async getItem(directoryId: string, itemId: string, call: CallOptions = {}): Promise<DirectoryItem> {
    const path = this.#item(directoryId, itemId);
    return this.#first<DirectoryItem>(await this.#get(path, call), path);
  }

  /** Items with a crmId (endpoint 8). 404 (no such item) surfaces as `NotFoundError`. */
  async getItemsByCrmId(
    directoryId: string,
    crmId: string,
    call: CallOptions = {},
  ): Promise<DirectoryItem[]> {
    const path = this.#crm(directoryId, crmId);
    const body = await this.#get(path, call);
    return expectArray(parseEnvelope(body, { method: 'GET', path }).data, {
      method: 'GET',
      path,
    }) as DirectoryItem[];
  }

  /** Creates an item (endpoint 9). Not retried once it may have reached the service. */
  async createItem(
    directoryId: string,
    fields: DirectoryItemFields,
    call: CallOptions = {},
  ): Promise<WrittenItem> {
    return this.#write('POST', `${this.#dir(directoryId)}/items`, { fields: this.#fields(fields) }, call);
  }

  /** Creates an item addressed by its crmId (`POST .../crmitems`); `fields.crmId` is required. */
  async createItemByCrmId(
    directoryId: string,
    fields: DirectoryItemFields,
    call: CallOptions = {},
  ): Promise<WrittenItem> {
    requireGuid('fields.crmId', fields.crmId);
    return this.#write('POST', `${this.#dir(directoryId)}/crmitems`, { fields: this.#fields(fields) }, call);
  }

  /** Replaces an item (endpoint 10; the service answers 201). */
  async replaceItem(
    directoryId: string,
    itemId: string,
    fields: DirectoryItemFields,
    call: CallOptions = {},
  ): Promise<WrittenItem> {
    return this.#write('PUT', this.#item(directoryId, itemId), { fields: this.#fields(fields) }, call);
  }

  /** Applies a JSON Patch to an item (`PATCH`, answered 201). */
  async patchItem(
    directoryId: string,
    itemId: string,
    operations: readonly JsonPatchOperation[],
    call: CallOptions = {},
  ): Promise<WrittenItem> {
    const ops = operations.map((op) => {
      const field = /^\/fields\/(phone[1-4])$/.exec(op.path)?.[1];
      if (field && 'value' in op && typeof op.value === 'string') {
        return { ...op, value: toE164(`operations[${op.path}]`, op.value, this.#region) };
      }
      return op;
    });
    return this.#write('PATCH', this.#item(directoryId, itemId), ops, call, 'application/json-patch+json');
  }

  /** Deletes an item (endpoint 11); resolves with the deleted item. */
  async deleteItem(directoryId: string, itemId: string, call: CallOptions = {}): Promise<DirectoryItem> {
    const path = this.#item(directoryId, itemId);
    const { body } = await this.#t.requestJson({ ...call, method: 'DELETE', path });
    return expectObject<DirectoryItem>(parseEnvelope(body, { method: 'DELETE', path }).data, {
      method: 'DELETE',
      path,
    });
  }

  /**
   * Deletes the oldest item with a crmId (endpoint 12); resolves with the deleted item. Not
   * idempotent when several items share the crmId, so it is retried only when the service
   * cannot have acted (like a POST): a timeout or reset surfaces; look before deleting again.
   */
  async deleteItemByCrmId(
    directoryId: string,
    crmId: string,
    call: CallOptions = {},
  ): Promise<DirectoryItem> {
    const path = this.#crm(directoryId, crmId);
    const { body } = await this.#t.requestJson({
      ...call,
      method: 'DELETE',
      path,
      retryMode: RETRY_MODES.unsentOnly,
    });
    return expectObject<DirectoryItem>(parseEnvelope(body, { method: 'DELETE', path }).data, {
      method: 'DELETE',
      path,
    });
  }

  async #get(path: string, call: CallOptions): Promise<unknown> {
    return (await this.#t.requestJson({ ...call, method: 'GET', path })).body;
  }

  #first<T>(body: unknown, path: string): T {
    const items = expectArray(parseEnvelope(body, { method: 'GET', path }).data, { method: 'GET', path });
    if (items.length === 0) throw new NotFoundError('Not found', { method: 'GET', path });
    return items[0] as T;
  }

  async #write(
    method: 'POST' | 'PUT' | 'PATCH',
    path: string,
    json: unknown,
    call: CallOptions,
    contentType?: string,
  ): Promise<WrittenItem> {
    const { body, headers } = await this.#t.requestJson({
      ...call,
      method,
      path,
      json,
      ...(contentType ? { contentType } : {}),
      retryMode: method === 'PUT' ? RETRY_MODES.idempotent : RETRY_MODES.unsentOnly,
    });
    const item = expectObject<DirectoryItem>(parseEnvelope(body, { method, path }).data, { method, path });
    return { item, location: headers.get('location') ?? undefined };
  }

  /** Validates field names and normalises phone fields before any request. */
  #fields(fields: DirectoryItemFields): DirectoryItemFields {
    const out: DirectoryItemFields = {};
    for (const [name, value] of Object.entries(fields)) {
      if (!(DIRECTORY_FIELD_NAMES as readonly string[]).includes(name))
        throw new ValidationError('fields', `unknown field '${name}'`);
      if (value === undefined) continue;
      if (typeof value !== 'string') throw new ValidationError(`fields.${name}`, 'must be a string');
      out[name as DirectoryFieldName] =
        isPhoneField(name) && value !== '' ? toE164(`fields.${name}`, value, this.#region) : value;
    }
    if (out.crmId !== undefined) requireGuid('fields.crmId', out.crmId);
    return out;
  }

  #dir(directoryId: string): string {
    return `${V}/contactdirectories/${seg(requireGuid('directoryId', directoryId))}`;
  }

  #item(directoryId: string, itemId: string): string {
    return `${this.#dir(directoryId)}/items/${seg(requireGuid('itemId', itemId))}`;
  }

  #crm(directoryId: string, crmId: string): string {
    return `${this.#dir(directoryId)}/crmitems/${seg(requireGuid('crmId', crmId))}`;
  }
}
