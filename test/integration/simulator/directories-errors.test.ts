import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DirectoryItem, Envelope, ErrorBody } from '../../../lib/spec/types';
import { startTestSim, type TestSim, TIMESTAMP_7 } from './sim-harness';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('contact directories API errors', () => {
  let t: TestSim;
  let dir: string;
  let items: DirectoryItem[];

  beforeAll(async () => {
    t = await startTestSim();
    dir = t.sim.directoryIds[0] as string;
    const listed = await t.api(`/contactdirectories/${dir}/items`);
    items = ((await listed.json()) as Envelope<DirectoryItem[]>).data;
  });
  afterAll(async () => {
    await t.close();
  });

  const good = () => (items[0] as DirectoryItem).id;
  const crm = () => (items[0] as DirectoryItem).fields.crmId as string;
  const body = { fields: { fullName: 'X' } };

  // Every 400 and 404 cell of the spec's per-endpoint error table (plus the ones it leaves open, marked *).
  type ErrorCase = [string, string, () => string, unknown, number, string | undefined];
  const ERROR_CASES: ErrorCase[] = [
    ['5*', 'GET', () => `/contactdirectories/bad-dir`, undefined, 400, 'bad-dir'],
    ['5', 'GET', () => `/contactdirectories/${UNKNOWN}`, undefined, 404, undefined],
    ['6 filter', 'GET', () => `/contactdirectories/${dir}/items?filter=%E0%A4%A`, undefined, 400, '%E0%A4%A'],
    ['6 query name', 'GET', () => `/contactdirectories/${dir}/items?%E0%A4%A=x`, undefined, 400, '%E0%A4%A'],
    ['6 fields', 'GET', () => `/contactdirectories/${dir}/items?fields=nickname`, undefined, 400, 'nickname'],
    [
      '6 fields list',
      'GET',
      () => `/contactdirectories/${dir}/items?fields=phone1,phone2`,
      undefined,
      400,
      'phone1,phone2',
    ],
    ['6', 'GET', () => `/contactdirectories/${dir}/items?filter=zzzz-no-match`, undefined, 404, undefined],
    ['7*', 'GET', () => `/contactdirectories/${dir}/items/bad-item`, undefined, 400, 'bad-item'],
    ['7', 'GET', () => `/contactdirectories/${dir}/items/${UNKNOWN}`, undefined, 404, undefined],
    ['8 directory', 'GET', () => `/contactdirectories/bad-dir/crmitems/${crm()}`, undefined, 400, 'bad-dir'],
    ['8 crmId', 'GET', () => `/contactdirectories/${dir}/crmitems/bad-crm`, undefined, 400, 'bad-crm'],
    ['8', 'GET', () => `/contactdirectories/${dir}/crmitems/${UNKNOWN}`, undefined, 404, undefined],
    ['9 directory', 'POST', () => `/contactdirectories/bad-dir/items`, body, 400, 'bad-dir'],
    [
      '9* phone',
      'POST',
      () => `/contactdirectories/${dir}/items`,
      { fields: { phone1: 'call me' } },
      400,
      'call me',
    ],
    [
      '9* field',
      'POST',
      () => `/contactdirectories/${dir}/items`,
      { fields: { nickname: 'x' } },
      400,
      'nickname',
    ],
    [
      '9* crmId',
      'POST',
      () => `/contactdirectories/${dir}/items`,
      { fields: { crmId: 'crm-1' } },
      400,
      'crm-1',
    ],
    ['9*', 'POST', () => `/contactdirectories/${UNKNOWN}/items`, body, 404, undefined],
    ['10 item', 'PUT', () => `/contactdirectories/${dir}/items/bad-item`, body, 400, 'bad-item'],
    ['10', 'PUT', () => `/contactdirectories/${dir}/items/${UNKNOWN}`, body, 404, undefined],
    [
      '11 directory',
      'DELETE',
      () => `/contactdirectories/bad-dir/items/${good()}`,
      undefined,
      400,
      'bad-dir',
    ],
    ['11 item', 'DELETE', () => `/contactdirectories/${dir}/items/bad-item`, undefined, 400, 'bad-item'],
    ['11', 'DELETE', () => `/contactdirectories/${dir}/items/${UNKNOWN}`, undefined, 404, undefined],
    [
      '12 directory',
      'DELETE',
      () => `/contactdirectories/bad-dir/crmitems/${crm()}`,
      undefined,
      400,
      'bad-dir',
    ],
    ['12 crmId', 'DELETE', () => `/contactdirectories/${dir}/crmitems/bad-crm`, undefined, 400, 'bad-crm'],
    ['12', 'DELETE', () => `/contactdirectories/${dir}/crmitems/${UNKNOWN}`, undefined, 404, undefined],
  ];
  it.each(
    ERROR_CASES.map(
      ([endpoint, method, path, payload, status, named]) =>
        [endpoint, method, status, path, payload, named] as const,
    ),
  )(
    'endpoint %s: %s answers %i with the error body',
    async (_endpoint, method, status, path, payload, named) => {
      // Act
      const response = await t.api(path(), { method, ...(payload === undefined ? {} : { body: payload }) });
      const error = (await response.json()) as ErrorBody;
      // Assess
      expect(response.status).toBe(status);
      expect(error.error).toBe(status);
      expect(error.status).toBe('error');
      expect(error.timestamp).toMatch(TIMESTAMP_7);
      expect(error.message).toBe(status === 404 ? 'Not Found' : `The value '${named}' is not valid.`);
    },
  );
});
