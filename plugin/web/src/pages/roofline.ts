// roofline_model: each op's HBM operational intensity (x, FLOP/Byte) against
// its measured FLOP rate (y, GFLOP/s, as xprof writes it) on log-log axes, under the device's
// compute roof and HBM bandwidth roof from the table's properties; hover names
// the op; filters by category and by infeed/outfeed; the table of ops below.
import { el, svg, section, message, clear } from '../dom';
import { fmtNum } from '../format';
import { DataTable, isTable, strings, cellValue, colIndex } from '../datatable';
import { PageContext } from '../page';
import { DataGrid } from '../table';
import { PALETTE } from '../charts';
import { card, cards } from './common';
import { UNKNOWN, columnsOf, distinct, selectOf, numOrNull, fmtKnown, xlaToolHref } from './xla_common';

const GIB = 1024 ** 3;
const W = 860, H = 480, LEFT = 70, RIGHT = 20, TOP = 14, BOTTOM = 46;

interface Point { row: number; x: number; y: number }

function decadesAround(lo: number, hi: number): [number, number] {
  return [Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(Math.log10(hi)))];
}

// xprof writes an op's source as an HTML cell (file:line, the stack as its
// title): shown as text with the stack as tooltip; the HTML is never inserted.
function sourceCell(html: string): Node | string {
  if (!html) return '';
  const div = new DOMParser().parseFromString(html, 'text/html').body.firstElementChild;
  if (!div) return html;
  const span = el('span', { class: 'source-info' }, div.textContent ?? '');
  const stack = div.getAttribute('title');
  if (stack) span.title = stack;
  return span;
}

export async function renderRoofline(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown>();
  const tables = (Array.isArray(data) ? data : [data]).filter(isTable);
  const t: DataTable | undefined = tables.find((x) => colIndex(x, 'operation') >= 0);
  const diagnostics = tables.find((x) => colIndex(x, 'severity') >= 0);
  if (!t) { ctx.root.appendChild(message('empty', 'No roofline table in this response.')); return; }
  const p = t.p ?? {};
  const peakGflops = numOrNull(p.peak_flop_rate), peakHbmGib = numOrNull(p.peak_hbm_bw), ridge = numOrNull(p.hbm_ridge_point);
  ctx.root.appendChild(cards(card('Device', p.device_type || UNKNOWN), card('Peak FLOP rate', peakGflops === null ? UNKNOWN : `${fmtNum(peakGflops, 3)} GFLOP/s`, '', { key: 'peak_flop_rate', json: p.peak_flop_rate }),
    card('Peak HBM bandwidth', peakHbmGib === null ? UNKNOWN : `${fmtNum(peakHbmGib, 2)} GiB/s`, '', { key: 'peak_hbm_bw', json: p.peak_hbm_bw, jsonUnit: 'GiB' }),
    card('HBM ridge point', ridge === null ? UNKNOWN : `${fmtNum(ridge, 2)} FLOP/Byte`, '', { key: 'hbm_ridge_point', json: p.hbm_ridge_point })));
  if (diagnostics) {
    for (let r = 0; r < diagnostics.rows.length; r++) {
      const sev = String(cellValue(diagnostics, r, colIndex(diagnostics, 'severity')) ?? '');
      ctx.root.appendChild(message(sev === 'WARNING' || sev === 'ERROR' ? 'info' : 'empty', `${sev}: ${String(cellValue(diagnostics, r, colIndex(diagnostics, 'message')) ?? '')}`));
    }
  }

  const names = strings(t, 'operation'), categories = strings(t, 'category'), programs = strings(t, 'hlo_module_id');
  const boundBy = strings(t, 'bound_by'), sources = strings(t, 'source_info');
  const xCol = colIndex(t, 'hbm_operational_intensity'), yCol = colIndex(t, 'measured_flop_rate');
  const timeCol = colIndex(t, 'total_time'), infeedCol = colIndex(t, 'include_infeed_outfeed');
  const categorySelect = selectOf('roofline-category', 'Category', distinct(categories).sort(), 'All categories');
  const includeInfeed = el('input', { type: 'checkbox', id: 'roofline-infeed' });
  includeInfeed.checked = true;
  ctx.root.appendChild(el('div', { class: 'toolbar' }, el('label', {}, 'Category ', categorySelect), el('label', {}, includeInfeed, ' Include infeed/outfeed')));
  const chartBox = el('div', { class: 'roofline-box' });
  const tooltip = el('div', { class: 'chart-tooltip', id: 'roofline-tooltip', role: 'tooltip' });
  tooltip.hidden = true;
  const note = el('p', { class: 'hint', id: 'roofline-unplotted' });
  ctx.root.appendChild(section('Roofline (log-log): HBM operational intensity vs. measured FLOP rate', el('div', { class: 'roofline-wrap' }, chartBox, tooltip), note));
  const grid = new DataGrid<number>(columnsOf(t, {
    hide: ['step', 'include_infeed_outfeed'],
    fractionCols: ['total_self_time_percent', 'cumulative_total_self_time_percent', 'dma_stall_percent', 'total_time_in_percentage',
      'roofline_efficiency', 'compute_efficiency', 'max_mem_bw_utilization'],
    render: {
      source_info: (r) => sourceCell(sources[r]),
      operation: (r) => categories[r] === 'Program' ? names[r]
        : el('a', { class: 'xla-link', href: xlaToolHref(ctx.sel, 'op_profile', names[r], programs[r]), title: 'Show this op in HLO Op Profile' }, names[r] || UNKNOWN),
    },
  }), [], { initialSort: { id: 'rank', desc: false }, name: 'roofline', filterPlaceholder: 'Filter ops…' });
  ctx.root.appendChild(section('Ops', grid.root));

  const colorOf = new Map(distinct(categories).map((c, i) => [c, PALETTE[i % PALETTE.length]]));
  const tip = (r: number) => [names[r], `category: ${categories[r] || UNKNOWN}`,
    `operational intensity: ${fmtKnown(numOrNull(cellValue(t, r, xCol)), 4)} FLOP/Byte`,
    `FLOP rate: ${fmtKnown(numOrNull(cellValue(t, r, yCol)), 4)} GFLOP/s`,
    `total time: ${fmtKnown(numOrNull(cellValue(t, r, timeCol)), 3)} µs`, `bound by: ${boundBy[r] || UNKNOWN}`];

  const draw = () => {
    const category = categorySelect.value;
    const rows: number[] = [];
    for (let r = 0; r < t.rows.length; r++) {
      if (infeedCol >= 0 && cellValue(t, r, infeedCol) !== includeInfeed.checked) continue;
      if (category && categories[r] !== category) continue;
      rows.push(r);
    }
    grid.setRows(rows);
    const points: Point[] = [];
    for (const r of rows) {
      const x = numOrNull(cellValue(t, r, xCol)), y = numOrNull(cellValue(t, r, yCol));
      if (x !== null && y !== null && x > 0 && y > 0) points.push({ row: r, x, y });
    }
    const unplotted = rows.length - points.length;
    note.textContent = unplotted ? `${unplotted} of ${rows.length} rows are not plotted: their FLOPs or bytes are unknown or zero.` : `${rows.length} rows plotted.`;
    clear(chartBox);
    chartBox.appendChild(chart(points));
  };

  const chart = (points: Point[]): Node => {
    const xs = points.map((q) => q.x), ys = points.map((q) => q.y);
    if (ridge !== null) xs.push(ridge / 10, ridge * 10);
    // Three decades under the compute roof keep the bandwidth roof in view.
    if (peakGflops !== null) ys.push(peakGflops * 2, peakGflops / 1000);
    if (xs.length === 0 || ys.length === 0) return message('empty', 'Nothing to plot: no op has a known operational intensity and FLOP rate.');
    const [x0, x1] = decadesAround(Math.min(...xs), Math.max(...xs));
    const [y0, y1] = decadesAround(Math.min(...ys), Math.max(...ys));
    const plotW = W - LEFT - RIGHT, plotH = H - TOP - BOTTOM;
    const px = (x: number) => LEFT + ((Math.log10(x) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * plotW;
    const py = (y: number) => TOP + plotH - ((Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * plotH;
    const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart roofline', role: 'img', 'data-chart': 'roofline',
      'data-x-min': x0, 'data-x-max': x1, 'data-y-min': y0, 'data-y-max': y1, 'data-plot': `${LEFT},${TOP},${plotW},${plotH}` });
    for (let e = Math.log10(x0); e <= Math.log10(x1) + 1e-9; e++) {
      const x = px(Math.pow(10, e));
      root.append(svg('line', { x1: x, x2: x, y1: TOP, y2: TOP + plotH, class: 'gridline' }),
        svg('text', { x, y: TOP + plotH + 16, 'text-anchor': 'middle', class: 'axis' }, `1e${e}`));
    }
    for (let e = Math.log10(y0); e <= Math.log10(y1) + 1e-9; e++) {
      const y = py(Math.pow(10, e));
      root.append(svg('line', { x1: LEFT, x2: LEFT + plotW, y1: y, y2: y, class: 'gridline' }),
        svg('text', { x: LEFT - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' }, `1e${e}`));
    }
    root.append(svg('text', { x: LEFT + plotW / 2, y: H - 8, 'text-anchor': 'middle', class: 'axis' }, 'HBM operational intensity (FLOP/Byte)'),
      svg('text', { x: 14, y: TOP + plotH / 2, transform: `rotate(-90 14 ${TOP + plotH / 2})`, 'text-anchor': 'middle', class: 'axis' }, 'FLOP rate (GFLOP/s)'));
    // Roofs: attainable GFLOP/s = min(peak, intensity × bandwidth).
    if (peakGflops !== null && peakHbmGib !== null) {
      const bwGflops = (x: number) => (x * peakHbmGib * GIB) / 1e9;
      const knee = (peakGflops * 1e9) / (peakHbmGib * GIB);
      const start = Math.max(x0, (y0 * 1e9) / (peakHbmGib * GIB));
      root.append(svg('polyline', { class: 'roof', 'data-roof': 'hbm', points: `${px(start)},${py(bwGflops(start))} ${px(Math.min(knee, x1))},${py(Math.min(peakGflops, bwGflops(Math.min(knee, x1))))}` },
        svg('title', {}, `HBM bandwidth roof: ${fmtNum(peakHbmGib, 2)} GiB/s`)));
      if (knee < x1) {
        root.append(svg('polyline', { class: 'roof', 'data-roof': 'compute', points: `${px(Math.max(knee, x0))},${py(peakGflops)} ${px(x1)},${py(peakGflops)}` },
          svg('title', {}, `Compute roof: ${fmtNum(peakGflops, 3)} GFLOP/s`)));
        root.append(svg('text', { x: px(x1) - 4, y: py(peakGflops) - 6, 'text-anchor': 'end', class: 'axis roof-label' }, `peak ${fmtNum(peakGflops, 3)} GFLOP/s`));
      }
    } else if (peakGflops !== null) {
      root.append(svg('polyline', { class: 'roof', 'data-roof': 'compute', points: `${px(x0)},${py(peakGflops)} ${px(x1)},${py(peakGflops)}` }));
    }
    for (const q of points) {
      const isProgram = categories[q.row] === 'Program';
      const dot = svg('circle', { cx: px(q.x), cy: py(q.y), r: isProgram ? 7 : 4.5, class: isProgram ? 'point program' : 'point', fill: isProgram ? '#24292f' : colorOf.get(categories[q.row]) ?? PALETTE[0],
        'data-op': names[q.row], 'data-category': categories[q.row], 'data-x': q.x, 'data-y': q.y, 'data-rank': String(cellValue(t, q.row, colIndex(t, 'rank')) ?? '') },
      svg('title', {}, tip(q.row).join('\n')));
      dot.addEventListener('mouseenter', () => {
        clear(tooltip);
        for (const line of tip(q.row)) tooltip.appendChild(el('div', {}, line));
        const box = (root as unknown as SVGSVGElement).getBoundingClientRect(), scale = box.width / W;
        tooltip.style.left = `${(px(q.x) + 10) * scale}px`;
        tooltip.style.top = `${(py(q.y) + 10) * scale}px`;
        tooltip.hidden = false;
      });
      dot.addEventListener('mouseleave', () => { tooltip.hidden = true; });
      root.appendChild(dot);
    }
    const shown = distinct(points.map((q) => categories[q.row]));
    return el('figure', { class: 'chart-box' }, root as unknown as Node,
      el('div', { class: 'legend' }, ...shown.map((c) => {
        const sw = el('span', { class: 'swatch' });
        sw.style.background = c === 'Program' ? '#24292f' : colorOf.get(c) ?? PALETTE[0];
        return el('span', { class: 'legend-item' }, sw, c);
      })));
  };
  categorySelect.addEventListener('change', draw);
  includeInfeed.addEventListener('change', draw);
  draw();
}
