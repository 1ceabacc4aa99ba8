import type { DirectoryItem } from '../../../spec';
import { formatCell, renderTable, type TerminalStream } from '../../shared/terminal';

/** How items are shown to people; `--json` prints the items as the service gave them. */

/** One item as `name  value` lines, id first, fields in the order the service gave them. */
export function itemText(item: DirectoryItem): string {
  const rows: [string, string][] = [
    ['id', item.id],
    ...Object.entries(item.fields).map(([k, v]) => [k, formatCell(v)] as [string, string]),
  ];
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return `${rows.map(([k, v]) => `${k.padEnd(width)}${v}`.trimEnd()).join('\n')}\n`;
}

/** Several items, a blank line between them. */
export function itemsText(items: readonly DirectoryItem[]): string {
  return items.map(itemText).join('\n');
}

/** Items as a table: the id, then `columns` (a field an item lacks is blank). */
export function itemsTable(items: readonly DirectoryItem[], columns: readonly string[]): string {
  const rows = items.map(
    (i) => ({ id: i.id, ...(i.fields as Record<string, string>) }) as Record<string, string>,
  );
  return renderTable(rows, ['id', ...columns]);
}

/** `value` as indented JSON, for scripts. */
export function writeJson(stream: TerminalStream, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}
