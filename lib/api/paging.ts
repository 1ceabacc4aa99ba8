import { expectArray, parseEnvelope } from './envelope';
import type { CallOptions, HttpTransport } from './http/transport';

/** Paging of list endpoints. */
export interface PageOptions extends CallOptions {
  /** Items asked per page (`pageSize`). Default 100; the notes say the service caps at 1000. */
  pageSize?: number;
  /** Upper bound on pages fetched, against a server that never says "last page". Default 1000. */
  maxPages?: number;
}

/**
 * Iterates a list endpoint page by page with `pageIndex`/`pageSize` (0-based, as the
 * sibling APIs do). Stops when a page is shorter than asked, when the server does not echo
 * the page index it was asked for (it ignores paging and sent everything), on an empty
 * page, or after `maxPages`.
 */
export async function* paginate<T>(
  transport: HttpTransport,
  path: string,
  options: PageOptions = {},
  map: (item: unknown) => T = (item) => item as T,
): AsyncGenerator<T> {
  const { pageSize = 100, maxPages = 1000, ...call } = options;
  for (let pageIndex = 0; pageIndex < maxPages; pageIndex++) {
    const { body } = await transport.requestJson({
      ...call,
      method: 'GET',
      path,
      query: { pageIndex, pageSize },
    });
    const details = { method: 'GET', path };
    const envelope = parseEnvelope(body, details);
    const items = expectArray(envelope.data, details);
    const pagedAsAsked = envelope.pageIndex === pageIndex;
    // A server that ignores paging answers page 1 with page 0 again: drop it, not duplicate.
    if (pageIndex > 0 && !pagedAsAsked) return;
    for (const item of items) yield map(item);
    const count = envelope.pageSize ?? items.length;
    if (items.length === 0 || count < pageSize || !pagedAsAsked) return;
  }
}
