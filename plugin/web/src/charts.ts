// Hand-written SVG charts: stacked columns, pies, lines, horizontal bars.
// Each chart carries a legend and native tooltips (<title>), no external code.
import { el, svg } from './dom';
import { fmtNum, middleEllipsis } from './format';

export const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#bab0ac',
  '#ff9da7', '#86bcb6', '#8cd17d', '#499894', '#d4a6c8', '#79706e'];
export const INPUT_RED = '#d62728';

export interface Series { name: string; values: number[]; color?: string; id?: string }

// A legend item's name may be cut (long op names keep their tail, which names the op); its share never is.
function legend(series: { name: string; color: string; share?: string }[]): HTMLElement {
  return el('div', { class: 'legend' }, ...series.map((s) => {
    const swatch = el('span', { class: 'swatch' });
    swatch.style.background = s.color;
    const label = s.name.length > 48 ? '…' + s.name.slice(-46) : s.name;
    const title = s.share ? `${s.name} (${s.share})` : s.name;
    return el('span', { class: 'legend-item', title }, swatch, el('span', { class: 'legend-name' }, label),
      s.share ? el('span', { class: 'legend-share' }, `(${s.share})`) : null);
  }));
}

// One colour per step-time category on every page (overview, input pipeline, pod viewer): a category is known by its
// words, whatever the page's id for it, so "Device compute" is the same blue everywhere. Input is red.
const CATEGORY_COLORS: [RegExp, string][] = [
  [/infeed|input/i, INPUT_RED], [/outfeed|output/i, '#f28e2b'], [/compil/i, '#9c755f'], [/launch/i, '#b07aa1'],
  [/host.?compute|host.?op|high.?flops/i, '#59a14f'], [/collective|all.?reduce/i, '#edc948'], [/device.?to.?device|d2d|send|recv/i, '#76b7b2'],
  [/device.?compute|tc.?compute|^compute|compute.?time/i, '#4e79a7'], [/idle|wait/i, '#bab0ac'], [/other|rest/i, '#79706e'],
];
export function categoryColor(name: string): string | undefined {
  return CATEGORY_COLORS.find(([re]) => re.test(name))?.[1];
}

// Colours for the series of a step breakdown: by category, input in shades of red, each colour used once.
const INPUT_REDS = [INPUT_RED, '#ff7f7f', '#a50f15', '#fb6a4a'];
export function seriesColors(names: string[]): string[] {
  const used = new Set<string>();
  let red = 0;
  const free = () => PALETTE.find((c) => !used.has(c) && !CATEGORY_COLORS.some(([, k]) => k === c)) ?? PALETTE.find((c) => !used.has(c)) ?? PALETTE[0];
  return names.map((name) => {
    const wanted = /infeed|input/i.test(name) && !/percent/i.test(name) ? INPUT_REDS[red++ % INPUT_REDS.length] : categoryColor(name);
    const color = wanted && !used.has(wanted) ? wanted : free();
    used.add(color);
    return color;
  });
}

// Which of n labels of `chars` characters fit side by side in `width` px (≈6.5 px a character at the axis font).
export function labelStride(n: number, chars: number, width: number): number {
  const perLabel = Math.max(1, chars) * 6.5 + 8;
  return Math.max(1, Math.ceil((n * perLabel) / width));
}

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function yAxis(g: SVGElement, max: number, x: number, top: number, h: number, width: number, label: string): void {
  for (let i = 0; i <= 4; i++) {
    const y = top + h - (h * i) / 4;
    g.appendChild(svg('line', { x1: x, x2: x + width, y1: y, y2: y, class: 'gridline' }));
    g.appendChild(svg('text', { x: x - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' }, fmtNum((max * i) / 4, 2)));
  }
  if (label) g.appendChild(svg('text', { x: 12, y: top + h / 2, transform: `rotate(-90 12 ${top + h / 2})`, 'text-anchor': 'middle', class: 'axis' }, label));
}

export function stackedColumns(categories: string[], series: Series[], opts: { yLabel?: string; height?: number; name?: string } = {}): HTMLElement {
  const width = 860, height = opts.height ?? 280, left = 64, right = 12, top = 10, bottom = 40;
  const plotW = width - left - right, plotH = height - top - bottom;
  const totals = categories.map((_, i) => series.reduce((s, se) => s + Math.max(0, se.values[i] || 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'data-chart': opts.name ?? 'stacked' });
  yAxis(root, max, left, top, plotH, plotW, opts.yLabel ?? '');
  const colors = series.map((s, i) => s.color ?? PALETTE[i % PALETTE.length]);
  const n = Math.max(1, categories.length);
  const band = plotW / n, barW = Math.max(1, band * 0.75);
  const labelEvery = labelStride(n, Math.max(0, ...categories.map((c) => c.length)), plotW);
  categories.forEach((cat, i) => {
    let y = top + plotH;
    const x = left + i * band + (band - barW) / 2;
    series.forEach((s, si) => {
      const v = Math.max(0, s.values[i] || 0);
      const h = (v / max) * plotH;
      if (h <= 0) return;
      y -= h;
      root.appendChild(svg('rect', { x, y, width: barW, height: h, fill: colors[si], class: 'bar', 'data-category': cat,
        'data-series': s.id ?? s.name, 'data-value': v }, svg('title', {}, `${cat} · ${s.name}: ${fmtNum(v, 3)}`)));
    });
    if (i % labelEvery === 0) root.appendChild(svg('text', { x: x + barW / 2, y: top + plotH + 16, 'text-anchor': 'middle', class: 'axis' }, cat));
  });
  // The legend names the series drawn; those with no time in any column are named once, in a note, not as swatches
  // (a CPU-only run has no device series).
  const drawn = series.map((s, i) => ({ s, color: colors[i] })).filter(({ s }) => s.values.some((v) => v > 0));
  const empty = series.filter((s) => !s.values.some((v) => v > 0)).map((s) => s.name);
  return el('figure', { class: 'chart-box' }, root as unknown as Node, legend(drawn.map(({ s, color }) => ({ name: s.name, color }))),
    empty.length ? el('p', { class: 'hint legend-empty', 'data-empty-series': JSON.stringify(empty) }, `None in any column: ${empty.join(', ')}.`) : null);
}

export function pie(title: string, slices: { name: string; value: number }[], opts: { maxSlices?: number; name?: string } = {}): HTMLElement {
  const maxSlices = opts.maxSlices ?? 10;
  const sorted = slices.filter((s) => s.value > 0).sort((a, b) => b.value - a.value);
  const shown = sorted.slice(0, maxSlices);
  const rest = sorted.slice(maxSlices).reduce((s, x) => s + x.value, 0);
  if (rest > 0) shown.push({ name: 'Other', value: rest });
  const total = shown.reduce((s, x) => s + x.value, 0);
  const size = 220, r = 100, c = size / 2;
  const root = svg('svg', { viewBox: `0 0 ${size} ${size}`, class: 'pie', role: 'img', 'data-chart': opts.name ?? 'pie' });
  const items: { name: string; color: string; share: string }[] = [];
  if (total <= 0) {
    root.appendChild(svg('circle', { cx: c, cy: c, r, class: 'pie-empty' }));
    root.appendChild(svg('text', { x: c, y: c + 4, 'text-anchor': 'middle', class: 'axis' }, 'no data'));
  }
  let angle = -Math.PI / 2;
  shown.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const frac = s.value / total;
    const pct = `${(frac * 100).toFixed(1)}%`;
    items.push({ name: s.name, color, share: pct });
    const tip = svg('title', {}, `${s.name}: ${fmtNum(s.value, 3)} (${pct})`);
    if (frac >= 0.9999) { root.appendChild(svg('circle', { cx: c, cy: c, r, fill: color }, tip)); return; }
    const a2 = angle + frac * 2 * Math.PI;
    const large = frac > 0.5 ? 1 : 0;
    const d = `M${c},${c} L${c + r * Math.cos(angle)},${c + r * Math.sin(angle)} A${r},${r} 0 ${large} 1 ${c + r * Math.cos(a2)},${c + r * Math.sin(a2)} Z`;
    root.appendChild(svg('path', { d, fill: color, class: 'slice' }, tip));
    angle = a2;
  });
  return el('figure', { class: 'pie-box' }, el('figcaption', {}, title), root as unknown as Node, legend(items));
}

export interface LineSeries extends Series { axis?: 'left' | 'right' }

export interface LineOptions {
  xLabel?: string; yLabel?: string; y2Label?: string; height?: number; marker?: number; name?: string;
  y2Max?: number;                                   // a fixed right-axis maximum (e.g. 100 for percentages)
  onRange?: (x0: number, x1: number) => void;       // drag across the plot: the x range chosen
  onPick?: (index: number) => void;                 // click in the plot: the nearest point
  picked?: number;                                  // index of a point to mark
}

export function lines(xs: number[], series: LineSeries[], opts: LineOptions = {}): HTMLElement {
  const width = 860, height = opts.height ?? 300, left = 70, right = 60, top = 10, bottom = 40;
  const plotW = width - left - right, plotH = height - top - bottom;
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'data-chart': opts.name ?? 'lines' });
  const xmin = xs.length ? Math.min(...xs) : 0, xmax = xs.length ? Math.max(...xs) : 1;
  const xspan = xmax - xmin || 1;
  const maxOf = (axis: string) => niceMax(Math.max(0, ...series.filter((s) => (s.axis ?? 'left') === axis).flatMap((s) => s.values.filter(Number.isFinite))));
  const lmax = maxOf('left'), rmax = opts.y2Max ?? maxOf('right');
  yAxis(root, lmax, left, top, plotH, plotW, opts.yLabel ?? '');
  if (series.some((s) => s.axis === 'right')) {
    for (let i = 0; i <= 4; i++) {
      root.appendChild(svg('text', { x: left + plotW + 6, y: top + plotH - (plotH * i) / 4 + 4, class: 'axis' }, fmtNum((rmax * i) / 4, 2)));
    }
    if (opts.y2Label) root.appendChild(svg('text', { x: width - 8, y: top + plotH / 2, transform: `rotate(90 ${width - 8} ${top + plotH / 2})`, 'text-anchor': 'middle', class: 'axis' }, opts.y2Label));
  }
  for (let i = 0; i <= 5; i++) {
    const x = left + (plotW * i) / 5;
    root.appendChild(svg('text', { x, y: top + plotH + 16, 'text-anchor': 'middle', class: 'axis' }, fmtNum(xmin + (xspan * i) / 5, 2)));
  }
  if (opts.xLabel) root.appendChild(svg('text', { x: left + plotW / 2, y: height - 4, 'text-anchor': 'middle', class: 'axis' }, opts.xLabel));
  const px = (x: number) => left + ((x - xmin) / xspan) * plotW;
  const colors = series.map((s, i) => s.color ?? PALETTE[i % PALETTE.length]);
  series.forEach((s, si) => {
    const max = (s.axis ?? 'left') === 'right' ? rmax : lmax;
    let d = '';
    s.values.forEach((v, i) => {
      if (!Number.isFinite(v)) return;
      d += `${d ? 'L' : 'M'}${px(xs[i]).toFixed(1)},${(top + plotH - (v / max) * plotH).toFixed(1)}`;
    });
    root.appendChild(svg('path', { d, fill: 'none', stroke: colors[si], 'stroke-width': 1.5, class: 'line' }, svg('title', {}, s.name)));
  });
  if (opts.marker !== undefined && Number.isFinite(opts.marker) && opts.marker >= xmin && opts.marker <= xmax) {
    const x = px(opts.marker);
    root.appendChild(svg('line', { x1: x, x2: x, y1: top, y2: top + plotH, class: 'marker' }, svg('title', {}, 'peak')));
  }
  if (opts.picked !== undefined && xs[opts.picked] !== undefined) {
    const x = px(xs[opts.picked]);
    root.appendChild(svg('line', { x1: x, x2: x, y1: top, y2: top + plotH, class: 'picked' }));
  }
  if (opts.onRange || opts.onPick) interactive(root, { left, top, plotW, plotH }, (v) => xmin + ((v - left) / plotW) * xspan, xs, opts);
  return el('figure', { class: 'chart-box' }, root as unknown as Node, legend(series.map((s, i) => ({ name: s.name, color: colors[i] }))));
}

// Items may carry a short label for the axis; the name (shown on hover) stays whole.
export function horizontalBars(items: { name: string; value: number; label?: string }[], opts: { unit?: string; name?: string } = {}): HTMLElement {
  const rowH = 22, width = 960, labelW = 420, right = 90;
  const height = items.length * rowH + 10;
  const max = Math.max(0, ...items.map((i) => i.value)) || 1;
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'data-chart': opts.name ?? 'hbars' });
  items.forEach((it, i) => {
    const y = 5 + i * rowH;
    const w = ((width - labelW - right) * it.value) / max;
    const label = it.label ?? middleEllipsis(it.name, 56);
    root.appendChild(svg('text', { x: labelW - 6, y: y + 15, 'text-anchor': 'end', class: 'axis' }, label, svg('title', {}, it.name)));
    root.appendChild(svg('rect', { x: labelW, y: y + 3, width: Math.max(1, w), height: rowH - 6, fill: PALETTE[0], class: 'bar' },
      svg('title', {}, `${it.name}: ${fmtNum(it.value, 3)}${opts.unit ?? ''}`)));
    root.appendChild(svg('text', { x: labelW + w + 6, y: y + 15, class: 'axis' }, fmtNum(it.value, 2) + (opts.unit ?? '')));
  });
  return el('figure', { class: 'chart-box' }, root as unknown as Node);
}

// Drag across the plot to choose an x range, click to pick the nearest point. Coordinates go through the
// SVG's own transform, so this works at any rendered size.
function interactive(root: SVGElement, box: { left: number; top: number; plotW: number; plotH: number }, toX: (v: number) => number,
  xs: number[], opts: LineOptions): void {
  const area = svg('rect', { x: box.left, y: box.top, width: box.plotW, height: box.plotH, class: 'drag-area' });
  const band = svg('rect', { x: 0, y: box.top, width: 0, height: box.plotH, class: 'drag-band' });
  root.append(area, band);
  const local = (e: MouseEvent) => {
    const m = (root as unknown as SVGGraphicsElement).getScreenCTM();
    if (!m) return box.left;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    return Math.max(box.left, Math.min(box.left + box.plotW, p.x));
  };
  let from: number | null = null;
  area.addEventListener('mousedown', (e) => { from = local(e as MouseEvent); e.preventDefault(); });
  root.addEventListener('mousemove', (e) => {
    if (from === null) return;
    const to = local(e as MouseEvent);
    band.setAttribute('x', String(Math.min(from, to))); band.setAttribute('width', String(Math.abs(to - from)));
  });
  root.addEventListener('mouseup', (e) => {
    if (from === null) return;
    const to = local(e as MouseEvent), start = from;
    from = null;
    band.setAttribute('width', '0');
    if (Math.abs(to - start) > 4 && opts.onRange) { opts.onRange(toX(Math.min(start, to)), toX(Math.max(start, to))); return; }
    if (!opts.onPick || xs.length === 0) return;
    const x = toX(to);
    let best = 0;
    xs.forEach((v, i) => { if (Math.abs(v - x) < Math.abs(xs[best] - x)) best = i; });
    opts.onPick(best);
  });
}
