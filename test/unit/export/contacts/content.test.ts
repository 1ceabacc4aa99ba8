import { describe, expect, it } from 'vitest';
import { contactContent, omittedFields } from '../../../../lib/export/contacts';

const NONE = omittedFields([]);

describe('contactContent', () => {
  it('hashes equal content equally whatever order its members came in', () => {
    // Act
    const a = contactContent(
      { id: 'x', fields: { fullName: 'A', email: 'a@x', nick: { b: 1, a: [2] } } },
      NONE,
    );
    const b = contactContent(
      { fields: { nick: { a: [2], b: 1 }, email: 'a@x', fullName: 'A' }, id: 'x' },
      NONE,
    );
    const c = contactContent(
      { id: 'x', fields: { fullName: 'B', email: 'a@x', nick: { b: 1, a: [2] } } },
      NONE,
    );
    // Assess
    expect(a.contentHash).toBe(b.contentHash);
    expect(a.extra).toBe(b.extra);
    expect(c.contentHash).not.toBe(a.contentHash);
  });

  it('keeps the members the spec does not name in extra, shaped like the item', () => {
    // Act
    const content = contactContent(
      { id: 'x', etag: 'W/1', fields: { fullName: 'A', nickname: 'Al', phone1: 447700900123 } },
      NONE,
    );
    // Assess
    expect(content.fields).toEqual({ fullName: 'A' });
    expect(content.extra).toBe('{"etag":"W/1","fields":{"nickname":"Al","phone1":447700900123}}');
  });

  it('keeps a member named __proto__ as a member', () => {
    // Act
    const content = contactContent(JSON.parse('{"id":"x","fields":{"__proto__":{"polluted":1}}}'), NONE);
    // Assess
    expect(content.extra).toBe('{"fields":{"__proto__":{"polluted":1}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('drops omitted fields before hashing', () => {
    // Prepare
    const omit = omittedFields(['email', 'extra']);
    // Act
    const a = contactContent({ id: 'x', fields: { fullName: 'A', email: 'a@x', nick: 'n' } }, omit);
    const b = contactContent({ id: 'x', fields: { fullName: 'A', email: 'b@x' } }, omit);
    // Assess
    expect(a.fields).toEqual({ fullName: 'A' });
    expect(a.extra).toBeNull();
    expect(a.contentHash).toBe(b.contentHash);
  });

  it('refuses an item without an id', () => {
    // Act
    const attempt = () => contactContent({ fields: { fullName: 'A' } }, NONE);
    // Assess
    expect(attempt).toThrow(expect.objectContaining({ code: 'EXPORT_ROW_INVALID' }));
  });

  it('refuses an extra member nested deeper than the limit, without overflowing the stack', () => {
    // Prepare
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    // Act
    const attempt = () => contactContent({ id: 'x', fields: { nested: deep } }, NONE);
    // Assess
    expect(attempt).toThrow(/nests deeper than 128/);
  });
});
