/**
 * Inline SVG charts for the summary page: plain markup, no script, no font or image from
 * elsewhere. Every mark carries a class (`bar`, `cell`) and a `<title>` (the browser's
 * tooltip), so a reader sees the value and a test can count the marks.
 */

/** Escapes text for HTML and SVG content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface Bar {
  label: string;
  /** null draws no bar but keeps the slot (a day without calls has no rate). */
  value: number | null;
  /** Tooltip text. */
  title: string;
}

export interface BarChartOptions {
  /** `data-chart` of the svg, e.g. `calls-per-day`. */
  id: string;
  /** Accessible name of the chart. */
  label: string;
  /** Top of the axis; default the largest value. */
  max?: number;
  formatTick: (value: number) => string;
}

const W = 720;
const H = 260;
const PAD = { left: 56, right: 12, top: 12, bottom: 44 };

const fixed = (n: number): string => String(Math.round(n * 10) / 10);

/** A bar per item, with a y axis of four ticks and the labels under the bars. */
export function barChart(bars: readonly Bar[], o: BarChartOptions): string {
  const max = o.max ?? Math.max(1, ...bars.map((b) => b.value ?? 0));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, bars.length);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const y = PAD.top + plotH * (1 - f);
    return `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${fixed(y)}" y2="${fixed(y)}"/>
<text class="tick" x="${PAD.left - 6}" y="${fixed(y + 4)}" text-anchor="end">${escapeHtml(o.formatTick(max * f))}</text>`;
  });
  // Every nth label only, so labels never overlap on a long window.
  const every = Math.max(1, Math.ceil(bars.length / 14));
  const marks = bars.map((b, i) => {
    const x = PAD.left + i * slot + slot * 0.15;
    const h = b.value === null ? 0 : (plotH * Math.max(0, b.value)) / max;
    const label =
      i % every === 0
        ? `<text class="label" x="${fixed(x + slot * 0.35)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${escapeHtml(b.label)}</text>`
        : '';
    return `<rect class="bar" x="${fixed(x)}" y="${fixed(PAD.top + plotH - h)}" width="${fixed(slot * 0.7)}" height="${fixed(h)}"><title>${escapeHtml(b.title)}</title></rect>${label}`;
  });
  return `<svg data-chart="${escapeHtml(o.id)}" role="img" aria-label="${escapeHtml(o.label)}" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg">
${ticks.join('\n')}
${marks.join('\n')}
</svg>`;
}

export interface HeatCell {
  row: number;
  column: number;
  value: number;
  title: string;
}

/** A grid of cells, shade by value (the darkest is the largest), with row and column labels. */
export function heatmap(
  cells: readonly HeatCell[],
  o: { id: string; label: string; rows: readonly string[]; columns: readonly string[] },
): string {
  const cellW = 26;
  const cellH = 24;
  const left = 44;
  const top = 22;
  const max = Math.max(1, ...cells.map((c) => c.value));
  const marks = cells.map((c) => {
    // Light to dark blue; a cell without calls stays near white but visible.
    const t = c.value / max;
    const light = Math.round(96 - t * 62);
    return `<rect class="cell" x="${left + c.column * cellW}" y="${top + c.row * cellH}" width="${cellW - 2}" height="${cellH - 2}" fill="hsl(212 70% ${light}%)"><title>${escapeHtml(c.title)}</title></rect>`;
  });
  const rowLabels = o.rows.map(
    (r, i) =>
      `<text class="label" x="${left - 6}" y="${top + i * cellH + 16}" text-anchor="end">${escapeHtml(r)}</text>`,
  );
  const columnLabels = o.columns.map((c, i) =>
    i % 3 === 0
      ? `<text class="label" x="${left + i * cellW + cellW / 2}" y="${top - 6}" text-anchor="middle">${escapeHtml(c)}</text>`
      : '',
  );
  const width = left + o.columns.length * cellW + 8;
  const height = top + o.rows.length * cellH + 8;
  return `<svg data-chart="${escapeHtml(o.id)}" role="img" aria-label="${escapeHtml(o.label)}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">
${columnLabels.join('')}
${rowLabels.join('\n')}
${marks.join('\n')}
</svg>`;
}
