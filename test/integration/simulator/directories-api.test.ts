import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Directory, DirectoryItem, Envelope } from '../../../lib/spec/types';
import { GUID, startTestSim, type TestSim, TIMESTAMP_7 } from './sim-harness';

const NEW_CRM_ID = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';

describe('contact directories API', () => {
  let t: TestSim;
  let dir: string;
  let items: DirectoryItem[];

  const all = async (): Promise<DirectoryItem[]> =>
    ((await (await t.api(`/contactdirectories/${dir}/items`)).json()) as Envelope<DirectoryItem[]>).data;

  beforeAll(async () => {
    t = await startTestSim();
    dir = t.sim.directoryIds[0] as string;
  });
  beforeEach(async () => {
    items = await all();
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists every directory when GET /contactdirectories', async () => {
    // Act
    const body = (await (await t.api('/contactdirectories')).json()) as Envelope<Directory[]>;
    // Assess
    expect(body.data.map((d) => d.id)).toEqual(t.sim.directoryIds);
    expect(body.page_size).toBe(2);
  });

  it('returns the directory in an array with page_size and an octet-stream type when GET endpoint 5', async () => {
    // Act
    const response = await t.api(`/contactdirectories/${dir}`);
    const body = (await response.json()) as Envelope<Directory[]>;
    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream; charset=utf-8');
    expect(body.page_size).toBe(1);
    expect(body.timestamp).toMatch(TIMESTAMP_7);
    expect(body.data[0]).toMatchObject({ id: dir, name: 'Company contacts' });
    expect(body.data[0]?.fields).toContain('field10');
  });

  it.each([
    ['a name, case-insensitive', 'amelia', ['Amelia Hart']],
    ['a company with a comma', 'Freight, Ltd', ['Tomás Ó Briain']],
    ['a phone typed in national format', '07700 900123', ['Amelia Hart']],
    ['an E.164 fragment', '+44163296000', ['Priya Natarajan', "James O'Connor", 'Marcus Webb']],
    ['non-ASCII text', 'Müller', ['Zoë Müller']],
  ])('finds items by %s when GET endpoint 6 with filter', async (_case, filter, names) => {
    // Act
    const response = await t.api(`/contactdirectories/${dir}/items?filter=${encodeURIComponent(filter)}`);
    const body = (await response.json()) as Envelope<DirectoryItem[]>;
    // Assess
    expect(response.status).toBe(200);
    expect(body.data.map((i) => i.fields.fullName)).toEqual(names);
    expect(body.page_size).toBe(names.length);
  });

  it('returns only the selected fields when fields repeats', async () => {
    // Act
    const body = (await (
      await t.api(`/contactdirectories/${dir}/items?filter=Hart&fields=phone1&fields=email`)
    ).json()) as Envelope<DirectoryItem[]>;
    // Assess
    expect(body.data).toEqual([
      { id: items[0]?.id, fields: { phone1: '+447700900123', email: 'amelia.hart@hart-daughters.example' } },
    ]);
  });

  it.each([
    ['200 when the selected field holds the text', 'Hart', 'fullName', 200],
    ['404 when the text is only in a field that is not selected', 'Hart', 'phone1', 404],
    ['200 when a phone search matches the selected phone field in E.164', '07700 900123', 'phone1', 200],
  ])('answers %s (endpoint 6 searches the selected fields)', async (_case, filter, field, status) => {
    // Act
    const response = await t.api(
      `/contactdirectories/${dir}/items?filter=${encodeURIComponent(filter)}&fields=${field}`,
    );
    // Assess
    expect(response.status).toBe(status);
  });

  it('returns the item in an array when GET endpoint 7', async () => {
    // Prepare
    const item = items[1] as DirectoryItem;
    // Act
    const body = (await (await t.api(`/contactdirectories/${dir}/items/${item.id}`)).json()) as Envelope<
      DirectoryItem[]
    >;
    // Assess
    expect(body).toMatchObject({ data: [item], status: 'success', page_size: 1 });
  });

  it('returns the items with the crmId when GET endpoint 8', async () => {
    // Prepare
    const item = items[2] as DirectoryItem;
    // Act
    const body = (await (
      await t.api(`/contactdirectories/${dir}/crmitems/${item.fields.crmId}`)
    ).json()) as Envelope<DirectoryItem[]>;
    // Assess
    expect(body.data).toEqual([item]);
  });

  it('creates an item with phones in E.164 and answers 201 with the collection Location when POST endpoint 9', async () => {
    // Act
    const response = await t.api(`/contactdirectories/${dir}/items`, {
      method: 'POST',
      body: { fields: { fullName: 'New Person', phone1: '020 7946 0018', phone2: '+33 1 23 45 67 89' } },
    });
    const body = (await response.json()) as Envelope<DirectoryItem>;
    // Assess
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${t.sim.baseUrl}/v1.0/contactdirectories/${dir}/items`);
    expect(body.data.id).toMatch(GUID);
    expect(body.data.fields).toEqual({
      fullName: 'New Person',
      phone1: '+442079460018',
      phone2: '+33123456789',
    });
    expect((await all()).map((i) => i.id)).toContain(body.data.id);
  });

  it('creates an item and answers the crmitems Location when POST /crmitems', async () => {
    // Act
    const response = await t.api(`/contactdirectories/${dir}/crmitems`, {
      method: 'POST',
      body: { fields: { fullName: 'CRM Person', crmId: NEW_CRM_ID } },
    });
    // Assess
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${t.sim.baseUrl}/v1.0/contactdirectories/${dir}/crmitems`);
    expect((await t.api(`/contactdirectories/${dir}/crmitems/${NEW_CRM_ID}`)).status).toBe(200);
  });

  it('replaces the item and answers 201 with the item Location when PUT endpoint 10', async () => {
    // Prepare
    const item = items[3] as DirectoryItem;
    // Act
    const response = await t.api(`/contactdirectories/${dir}/items/${item.id}`, {
      method: 'PUT',
      body: { fields: { fullName: 'Priya N.', phone1: '07700 900555' } },
    });
    const body = (await response.json()) as Envelope<DirectoryItem>;
    // Assess
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(
      `${t.sim.baseUrl}/v1.0/contactdirectories/${dir}/items/${item.id}`,
    );
    expect(body.data).toEqual({ id: item.id, fields: { fullName: 'Priya N.', phone1: '+447700900555' } });
  });

  it('applies a JSON Patch and answers 201 when PATCH an item', async () => {
    // Prepare
    const item = items[0] as DirectoryItem;
    // Act
    const response = await t.api(`/contactdirectories/${dir}/items/${item.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json-patch+json' },
      body: [
        { op: 'replace', path: '/fields/jobTitle', value: 'CEO' },
        { op: 'add', path: '/fields/phone2', value: '07700 900999' },
      ],
    });
    const body = (await response.json()) as Envelope<DirectoryItem>;
    // Assess
    expect(response.status).toBe(201);
    expect(body.data.fields).toMatchObject({
      jobTitle: 'CEO',
      phone2: '+447700900999',
      fullName: 'Amelia Hart',
    });
  });

  it('deletes the item and returns it when DELETE endpoint 11', async () => {
    // Prepare
    const item = items.at(-1) as DirectoryItem;
    // Act
    const response = await t.api(`/contactdirectories/${dir}/items/${item.id}`, { method: 'DELETE' });
    const body = (await response.json()) as Envelope<DirectoryItem>;
    // Assess
    expect(response.status).toBe(200);
    expect(body.data).toEqual(item);
    expect((await t.api(`/contactdirectories/${dir}/items/${item.id}`)).status).toBe(404);
  });

  it('deletes the item by crmId and returns it when DELETE endpoint 12', async () => {
    // Prepare
    const item = items.findLast((i) => i.fields.crmId !== undefined) as DirectoryItem;
    // Act
    const response = await t.api(`/contactdirectories/${dir}/crmitems/${item.fields.crmId}`, {
      method: 'DELETE',
    });
    const body = (await response.json()) as Envelope<DirectoryItem>;
    // Assess
    expect(response.status).toBe(200);
    expect(body.data).toEqual(item);
  });
});
