/**
 * Inline SVG charts for the summary page: plain markup, no script, no font or image from
 * elsewhere. Every mark carries a class (`bar`, `cell`) and a `<title>` (the browser's
 * tooltip), so a reader sees the value and a test can count the marks.
 */

/** Escapes text for HTML and SVG content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface Bar {
  label: string;
  /** null draws no bar but keeps the slot (a day without calls has no rate). */
  value: number | null;
  /** Tooltip text. */
  title: string;
}

interface BarChartOptions {
  /** `data-chart` of the svg, e.g. `calls-per-day`. */
  id: string;
  /** Accessible name of the chart. */
  label: string;
  /** Top of the axis; default the largest value rounded up to a round number. */
  max?: number;
  formatTick: (value: number) => string;
  /** The value written above each bar; default formatTick. */
  formatValue?: (value: number) => string;
}

/**
 * The axis of values 0..`max`: a top of 1, 2, 2.5 or 5 times a power of ten at or above
 * `max`, split into 4 or 5 equal steps, so every tick is a round number.
 */
export function roundAxis(max: number): { top: number; ticks: number[] } {
  if (!(max > 0)) return { top: 1, ticks: [0, 0.25, 0.5, 0.75, 1] };
  const power = 10 ** Math.floor(Math.log10(max));
  for (const [m, steps] of [
    [1, 4],
    [1.2, 4],
    [1.5, 5],
    [2, 4],
    [2.5, 5],
    [3, 5],
    [4, 4],
    [5, 5],
    [6, 4],
    [8, 4],
    [10, 5],
  ] as const) {
    const top = m * power;
    if (top >= max - 1e-9) {
      const step = top / steps;
      return { top, ticks: Array.from({ length: steps + 1 }, (_, i) => Math.round(i * step * 1e9) / 1e9) };
    }
  }
  return { top: 10 * power, ticks: [0, 2, 4, 6, 8, 10].map((t) => t * power) };
}

const W = 720;
const H = 260;
const PAD = { left: 56, right: 12, top: 12, bottom: 44 };

const fixed = (n: number): string => String(Math.round(n * 10) / 10);

/** A bar per item, with a y axis of four ticks and the labels under the bars. */
export function barChart(bars: readonly Bar[], o: BarChartOptions): string {
  const axis =
    o.max === undefined
      ? roundAxis(Math.max(1, ...bars.map((b) => b.value ?? 0)))
      : { top: o.max, ticks: [0, 0.25, 0.5, 0.75, 1].map((f) => f * (o.max as number)) };
  const max = axis.top;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, bars.length);
  const ticks = axis.ticks.map((v) => {
    const y = PAD.top + plotH * (1 - v / max);
    return `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${fixed(y)}" y2="${fixed(y)}"/>
<text class="tick" x="${PAD.left - 6}" y="${fixed(y + 4)}" text-anchor="end">${escapeHtml(o.formatTick(v))}</text>`;
  });
  const formatValue = o.formatValue ?? o.formatTick;
  // Every nth label only, so labels never overlap on a long window.
  const every = Math.max(1, Math.ceil(bars.length / 14));
  const marks = bars.map((b, i) => {
    const x = PAD.left + i * slot + slot * 0.15;
    const h = b.value === null ? 0 : (plotH * Math.max(0, b.value)) / max;
    const label =
      i % every === 0
        ? `<text class="label" x="${fixed(x + slot * 0.35)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${escapeHtml(b.label)}</text>`
        : '';
    // The value above its bar (on the same every-nth bars as the labels, so they never collide).
    const value =
      b.value !== null && i % every === 0
        ? `<text class="value" x="${fixed(x + slot * 0.35)}" y="${fixed(PAD.top + plotH - h - 3)}" text-anchor="middle">${escapeHtml(formatValue(b.value))}</text>`
        : '';
    return `<rect class="bar" x="${fixed(x)}" y="${fixed(PAD.top + plotH - h)}" width="${fixed(slot * 0.7)}" height="${fixed(h)}"><title>${escapeHtml(b.title)}</title></rect>${value}${label}`;
  });
  return `<svg data-chart="${escapeHtml(o.id)}" role="img" aria-label="${escapeHtml(o.label)}" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg">
${ticks.join('\n')}
${marks.join('\n')}
</svg>`;
}

interface HeatCell {
  row: number;
  column: number;
  value: number;
  title: string;
}

/** A grid of cells, shade by value (the darkest is the largest), with row and column labels. */
export function heatmap(
  cells: readonly HeatCell[],
  o: {
    id: string;
    label: string;
    rows: readonly string[];
    columns: readonly string[];
    /** Axis titles, e.g. weekday and hour of day. */
    rowTitle?: string;
    columnTitle?: string;
    /** How the legend writes a value; default as is. */
    formatValue?: (value: number) => string;
  },
): string {
  const cellW = 26;
  const cellH = 24;
  const left = 44;
  const top = 36;
  const max = Math.max(1, ...cells.map((c) => c.value));
  // Light to dark blue; a cell without calls stays near white but visible.
  const shade = (t: number) => `hsl(212 70% ${Math.round(96 - t * 62)}%)`;
  const marks = cells.map(
    (c) =>
      `<rect class="cell" x="${left + c.column * cellW}" y="${top + c.row * cellH}" width="${cellW - 2}" height="${cellH - 2}" fill="${shade(c.value / max)}"><title>${escapeHtml(c.title)}</title></rect>`,
  );
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
  const gridBottom = top + o.rows.length * cellH;
  // The legend: the shade of 0 and of the largest value, and three steps between.
  const format = o.formatValue ?? ((v: number) => String(v));
  const steps = [0, 0.25, 0.5, 0.75, 1];
  const legendY = gridBottom + 14;
  const legend = [
    `<text class="label" x="${left}" y="${legendY + 12}" text-anchor="end" dx="-6">calls</text>`,
    ...steps.map(
      (t, i) =>
        `<rect class="legend" x="${left + i * 48}" y="${legendY}" width="46" height="14" fill="${shade(t)}"/><text class="tick" x="${left + i * 48 + 23}" y="${legendY + 28}" text-anchor="middle">${escapeHtml(format(Math.round(t * max)))}</text>`,
    ),
  ];
  const titles = [
    o.columnTitle === undefined
      ? ''
      : `<text class="label" x="${left + (o.columns.length * cellW) / 2}" y="10" text-anchor="middle">${escapeHtml(o.columnTitle)}</text>`,
    o.rowTitle === undefined
      ? ''
      : `<text class="label" x="4" y="${top - 6}">${escapeHtml(o.rowTitle)}</text>`,
  ];
  const height = legendY + 36;
  return `<svg data-chart="${escapeHtml(o.id)}" role="img" aria-label="${escapeHtml(o.label)}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">
${titles.join('')}
${columnLabels.join('')}
${rowLabels.join('\n')}
${marks.join('\n')}
${legend.join('\n')}
</svg>`;
}
