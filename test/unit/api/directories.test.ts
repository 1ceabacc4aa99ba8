import { describe, expect, it } from 'vitest';
import {
  createClient,
  NotFoundError,
  phoneExtension,
  searchTextFor,
  toE164,
  ValidationError,
} from '../../../lib/api';
import { empty, envelope, json, reset, type Step, scriptedFetch } from './scripted-fetch';

const DIR = '55555555-5555-4555-8555-555555555555';
const ITEM = '66666666-6666-4666-8666-666666666666';
const CRM = '77777777-7777-4777-8777-777777777777';
const notFound = () =>
  json(404, { error: 404, message: 'Not Found', status: 'error', timestamp: '2026-01-01T00:00:00Z' });

function client(steps: Step[], defaultRegion?: string) {
  const fetch = scriptedFetch(steps);
  const api = createClient({
    baseUrl: 'http://service.test/api',
    accessToken: 'tkn',
    fetch,
    ...(defaultRegion ? { defaultRegion } : {}),
  });
  return { api, fetch };
}

describe('DirectoryClient', () => {
  it('returns an empty list when the service answers 404 to a search', async () => {
    // Prepare
    const { api, fetch } = client([notFound()]);
    // Act
    const items = await api.directories.searchItems(DIR, 'nobody', { fields: ['fullName', 'phone1'] });
    // Assess
    expect(items).toEqual([]);
    expect(fetch.calls[0]?.url.search).toBe('?filter=nobody&fields=fullName&fields=phone1');
  });

  it('normalises a phone-like search text to E.164 in the default region', async () => {
    // Prepare
    const { api, fetch } = client([
      json(200, envelope([{ id: ITEM, fields: { phone1: '+442079460000' } }], { page_size: '1' })),
    ]);
    // Act
    const items = await api.directories.searchItems(DIR, '020 7946 0000');
    // Assess
    expect(items).toHaveLength(1);
    expect(fetch.calls[0]?.url.searchParams.get('filter')).toBe('+442079460000');
  });

  it('normalises phone fields before writing when creating an item', async () => {
    // Prepare
    const created = { id: ITEM, fields: { fullName: 'Ann', phone1: '+14155552671' } };
    const { api, fetch } = client(
      [
        json(201, envelope(created), {
          location: `http://service.test/api/v1.0/contactdirectories/${DIR}/items`,
        }),
      ],
      'US',
    );
    // Act
    const { item, location } = await api.directories.createItem(DIR, {
      fullName: 'Ann',
      phone1: '(415) 555-2671',
    });
    // Assess
    expect(JSON.parse(fetch.calls[0]?.body ?? '')).toEqual({
      fields: { fullName: 'Ann', phone1: '+14155552671' },
    });
    expect(item).toEqual(created);
    expect(location).toContain('/items');
  });

  it.each([
    {
      name: 'a bad directory id',
      act: (api: ReturnType<typeof client>['api']) => api.directories.getDirectory('x'),
    },
    {
      name: 'a bad item id',
      act: (api: ReturnType<typeof client>['api']) => api.directories.getItem(DIR, '123'),
    },
    {
      name: 'a bad crmId',
      act: (api: ReturnType<typeof client>['api']) => api.directories.deleteItemByCrmId(DIR, 'crm-1'),
    },
    {
      name: 'an invalid phone',
      act: (api: ReturnType<typeof client>['api']) =>
        api.directories.replaceItem(DIR, ITEM, { phone2: '12' }),
    },
    {
      name: 'an unknown field',
      act: (api: ReturnType<typeof client>['api']) =>
        api.directories.createItem(DIR, { shoeSize: '9' } as never),
    },
    {
      name: 'an unknown search field',
      act: (api: ReturnType<typeof client>['api']) =>
        api.directories.searchItems(DIR, 'a', { fields: ['x' as never] }),
    },
    {
      name: 'a create by crmId without crmId',
      act: (api: ReturnType<typeof client>['api']) =>
        api.directories.createItemByCrmId(DIR, { fullName: 'A' }),
    },
    {
      name: 'a phone with an extension E.164 cannot hold',
      act: (api: ReturnType<typeof client>['api']) =>
        api.directories.createItem(DIR, { fullName: 'Ann', phone1: '01632 960102 ext. 12' }),
    },
    {
      name: 'a patched phone with an extension',
      act: (api: ReturnType<typeof client>['api']) =>
        api.directories.patchItem(DIR, ITEM, [
          { op: 'replace', path: '/fields/phone1', value: '07911 123456 x7' },
        ]),
    },
    {
      name: 'a patched invalid phone',
      act: (api: ReturnType<typeof client>['api']) =>
        api.directories.patchItem(DIR, ITEM, [{ op: 'replace', path: '/fields/phone1', value: 'abc' }]),
    },
  ])('rejects $name before any request', async ({ act }) => {
    // Prepare
    const { api, fetch } = client([json(200, envelope([]))]);
    // Act
    const error = await act(api).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ValidationError);
    expect(fetch.calls).toHaveLength(0);
  });

  it('sends a JSON Patch with phone values in E.164 when patching', async () => {
    // Prepare
    const { api, fetch } = client([json(201, envelope({ id: ITEM, fields: {} }))]);
    // Act
    await api.directories.patchItem(DIR, ITEM, [
      { op: 'replace', path: '/fields/phone1', value: '07911 123456' },
      { op: 'remove', path: '/fields/email' },
    ]);
    // Assess
    expect(fetch.calls[0]?.method).toBe('PATCH');
    expect(fetch.calls[0]?.headers['content-type']).toBe('application/json-patch+json');
    expect(JSON.parse(fetch.calls[0]?.body ?? '')).toEqual([
      { op: 'replace', path: '/fields/phone1', value: '+447911123456' },
      { op: 'remove', path: '/fields/email' },
    ]);
  });

  it('maps each endpoint to its method and path', async () => {
    // Prepare
    const item = { id: ITEM, fields: { crmId: CRM } };
    const { api, fetch } = client([
      json(200, envelope([{ id: DIR, name: 'D', description: '', fields: [] }])),
      json(200, envelope([item])),
      json(200, envelope([item])),
      json(201, envelope(item)),
      json(201, envelope(item)),
      json(200, envelope(item)),
      json(200, envelope(item)),
    ]);
    // Act
    await api.directories.getDirectory(DIR);
    await api.directories.getItem(DIR, ITEM);
    await api.directories.getItemsByCrmId(DIR, CRM);
    await api.directories.createItemByCrmId(DIR, { crmId: CRM });
    await api.directories.replaceItem(DIR, ITEM, { fullName: 'B' });
    await api.directories.deleteItem(DIR, ITEM);
    await api.directories.deleteItemByCrmId(DIR, CRM);
    // Assess
    const d = `/api/v1.0/contactdirectories/${DIR}`;
    expect(fetch.calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      `GET ${d}`,
      `GET ${d}/items/${ITEM}`,
      `GET ${d}/crmitems/${CRM}`,
      `POST ${d}/crmitems`,
      `PUT ${d}/items/${ITEM}`,
      `DELETE ${d}/items/${ITEM}`,
      `DELETE ${d}/crmitems/${CRM}`,
    ]);
  });

  it('throws NotFoundError when an item does not exist', async () => {
    // Prepare
    const { api } = client([notFound()]);
    // Act + Assess
    await expect(api.directories.getItem(DIR, ITEM)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('does not retry a create after a 500 but retries a replace', async () => {
    // Prepare
    const { api, fetch } = client([empty(500), json(201, envelope({ id: ITEM, fields: {} }))]);
    const second = client([empty(500), json(201, envelope({ id: ITEM, fields: {} }))]);
    // Act
    const createError = await api.directories.createItem(DIR, { fullName: 'A' }).catch((e: unknown) => e);
    await second.api.directories.replaceItem(DIR, ITEM, { fullName: 'A' }, { maxRetries: 1 });
    // Assess
    expect(createError).toHaveProperty('code', 'API_SERVER_ERROR');
    expect(fetch.calls).toHaveLength(1);
    expect(second.fetch.calls).toHaveLength(2);
  });

  it.each([
    { name: 'a reset', step: reset() },
    { name: 'a 500', step: empty(500) },
  ])(
    'does not repeat a delete by crmId after $name: the service deletes the oldest match',
    async ({ step }) => {
      // Prepare: a second DELETE after the first took effect would delete another item
      const { api, fetch } = client([step, json(200, envelope({ id: ITEM, fields: { crmId: CRM } }))]);
      // Act
      const error = await api.directories
        .deleteItemByCrmId(DIR, CRM, { maxRetries: 3 })
        .catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(Error);
      expect(fetch.calls).toHaveLength(1);
    },
  );
});

describe('phone normalisation', () => {
  it.each([
    { text: 'Smith', region: 'GB', out: 'Smith' },
    { text: '020 7946 0000', region: 'GB', out: '+442079460000' },
    { text: '+44 (0)20 7946 0000', region: 'US', out: '+442079460000' },
    { text: '7946 00', region: 'GB', out: '794600' },
    { text: '+44 79', region: 'GB', out: '+4479' },
    { text: '12', region: 'GB', out: '12' },
  ])('searches $text as $out in $region', ({ text, region, out }) => {
    // Act + Assess
    expect(searchTextFor(text, region as 'GB')).toBe(out);
  });

  it.each([
    { value: '01632 960102 ext. 12', ext: '12', number: '+441632960102' },
    { value: '+1 415 555 2671 x 305', ext: '305', number: '+14155552671' },
    { value: '020 7946 0000 #9', ext: '9', number: '+442079460000' },
  ])('refuses $value naming extension $ext, and drops it only when asked', ({ value, ext, number }) => {
    // Act
    const refused = (() => {
      try {
        return toE164('fields.phone1', value, 'GB');
      } catch (e) {
        return e;
      }
    })();
    const dropped = toE164('fields.phone1', value, 'GB', { extension: 'drop' });
    // Assess
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ argument: 'fields.phone1' });
    expect((refused as Error).message).toContain(`has extension ${ext}`);
    expect((refused as Error).message).toContain(`(${number})`);
    expect([dropped, phoneExtension(value, 'GB'), phoneExtension(number, 'GB')]).toEqual([
      number,
      ext,
      undefined,
    ]);
  });

  it('throws ValidationError naming the argument when a number is invalid', () => {
    // Act + Assess
    expect(() => toE164('fields.phone1', '12345', 'GB')).toThrow(
      expect.objectContaining({ argument: 'fields.phone1' }),
    );
  });
});
