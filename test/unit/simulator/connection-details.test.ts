import { describe, expect, it } from 'vitest';
import {
  type ConnectionDetails,
  formatDetailsJson,
  formatDetailsText,
} from '../../../lib/simulator/connection-details';

const DETAILS: ConnectionDetails = {
  baseUrl: 'http://127.0.0.1:4000/api',
  authUrl: 'http://127.0.0.1:4000',
  clientId: 'client-a',
  clientSecret: 'secret-b',
  redirectUri: 'http://127.0.0.1:8000/',
  username: 'user@example.test',
  password: 'pw-c',
  tenantId: '11111111-1111-4111-8111-111111111111',
  workspaceId: '22222222-2222-4222-8222-222222222222',
  reportIds: ['33333333-3333-4333-8333-333333333333', '44444444-4444-4444-8444-444444444444'],
  directoryIds: ['55555555-5555-4555-8555-555555555555'],
};

describe('formatDetailsText', () => {
  it.each(Object.entries(DETAILS))('shows %s for a person when printed without --json', (_key, value) => {
    // Act
    const text = formatDetailsText(DETAILS);
    // Assess
    for (const part of Array.isArray(value) ? value : [value]) expect(text).toContain(part);
  });

  it('names the authorize and token URLs and the other registered redirect URIs', () => {
    // Act
    const text = formatDetailsText(DETAILS);
    // Assess
    expect(text).toContain('http://127.0.0.1:4000/connect/authorize');
    expect(text).toContain('http://127.0.0.1:4000/connect/token');
    expect(text).toContain('https://127.0.0.1:8000/');
  });
});

describe('formatDetailsJson', () => {
  it('prints exactly one JSON line with every member when --json', () => {
    // Act
    const text = formatDetailsJson(DETAILS);
    // Assess
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(text)).toEqual(DETAILS);
  });
});
