// Memory Viewer: the heap of one XLA program over its program order (padded
// and unpadded), the peak marked, and the buffers live at the peak as bars.
import { apiUrl, fetchText } from '../api';
import { el, svg, section, message, clear } from '../dom';
import { PageContext } from '../page';
import { card, cards } from './common';
import { fmtMiB } from '../format';
import { busiestProgram } from './xla_common';

interface SourceInfo { fileName?: string; lineNumber?: number }
interface HeapObject {
  label?: string; logicalBufferId?: number; logicalBufferSizeMib?: number; unpaddedShapeMib?: number;
  instructionName?: string; shapeString?: string; tfOpName?: string; groupName?: string; opCode?: string; sourceInfo?: SourceInfo;
}
interface PreprocessResult {
  heapSizes?: number[]; unpaddedHeapSizes?: number[]; hloInstructionNames?: string[]; maxHeapBySize?: HeapObject[];
  moduleName?: string; peakHeapMib?: number; peakUnpaddedHeapMib?: number; peakHeapSizePosition?: number;
  entryComputationParametersMib?: number; maybeLiveOutMib?: number; totalBufferAllocationMib?: number;
  indefiniteBufferAllocationMib?: number;
}

const mib = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '—' : fmtMiB(v));
// A card of a size in MiB: unknown when the server left it out.
const mibCard = (label: string, v: number | undefined, note = '') =>
  card(label, v === undefined || !Number.isFinite(v) ? '' : fmtMiB(v), note, { json: v, jsonUnit: 'MiB' });

export async function renderMemoryViewer(ctx: PageContext): Promise<void> {
  const modules = (await fetchText(apiUrl('module_list', { run: ctx.sel.run }), ctx.signal)).split(',').filter(Boolean);
  if (modules.length === 0) { ctx.root.appendChild(message('empty', 'This run has no XLA modules.')); return; }
  const wanted = new URLSearchParams(location.search).get('module_name');
  const picker = el('select', { id: 'mv-module', 'aria-label': 'Module' }, ...modules.map((m) => el('option', { value: m }, m)));
  if (wanted && modules.includes(wanted)) picker.value = wanted;
  else {
    // No link: the program that takes the most device time, not the first name in alphabetical order.
    const busiest = await busiestProgram(ctx.sel, modules, ctx.signal);
    if (busiest?.module) picker.value = busiest.module;
  }
  const space = el('select', { id: 'mv-space', 'aria-label': 'Memory space' },
    el('option', { value: '0' }, 'HBM (0)'), el('option', { value: '1' }, '1'), el('option', { value: '2' }, '2'),
    el('option', { value: '3' }, '3'), el('option', { value: '5' }, 'Host (5)'));
  const body = el('div');
  ctx.root.append(el('div', { class: 'toolbar' }, el('label', {}, 'Module ', picker), el('label', {}, 'Memory space ', space)), body);
  const draw = async () => {
    clear(body);
    try {
      const data = await ctx.load<PreprocessResult>({ module_name: picker.value, memory_space: space.value });
      drawResult(body, data);
    } catch (e) {
      if ((e as Error).name !== 'AbortError') body.appendChild(message('error', String((e as Error).message ?? e)));
    }
  };
  picker.addEventListener('change', () => void draw());
  space.addEventListener('change', () => void draw());
  // The first answer decides the page: a host whose profile cannot be read is an error page, with the server's status.
  const first = await ctx.load<PreprocessResult>({ module_name: picker.value, memory_space: space.value });
  drawResult(body, first);
}

function drawResult(root: HTMLElement, d: PreprocessResult): void {
  const heap = d.heapSizes ?? [];
  root.appendChild(section(`Module ${d.moduleName ?? ''}`, cards(
    mibCard('Peak heap', d.peakHeapMib, heap.length ? `at program point ${d.peakHeapSizePosition ?? 0}` : 'no heap simulation for this memory space'),
    mibCard('Peak heap, unpadded', d.peakUnpaddedHeapMib),
    mibCard('Entry parameters', d.entryComputationParametersMib),
    mibCard('May be live out', d.maybeLiveOutMib),
    mibCard('All allocations', d.totalBufferAllocationMib),
    mibCard('Whole-program allocations', d.indefiniteBufferAllocationMib),
  )));
  // Without a heap-simulator trace only the whole-program allocations are known: no curve, but their buffers.
  root.appendChild(section('Memory allocation size vs. program order',
    heap.length ? usageChart(d) : message('empty', 'No heap-simulator trace for this memory space.')));
  root.appendChild(section('Buffers live at the peak, by size', peakBuffers(d.maxHeapBySize ?? [])));
}

function usageChart(d: PreprocessResult): HTMLElement {
  const heap = d.heapSizes ?? [], unpadded = d.unpaddedHeapSizes ?? [], names = d.hloInstructionNames ?? [];
  const W = 900, H = 260, L = 60, B = 30, T = 10;
  const max = Math.max(...heap, ...unpadded, 1e-9);
  const x = (i: number) => L + (i / Math.max(heap.length - 1, 1)) * (W - L - 10);
  const y = (v: number) => T + (1 - v / max) * (H - T - B);
  const path = (vs: number[]) => vs.map((v, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join('');
  const peakIndex = heap.indexOf(Math.max(...heap));
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'mv-chart', id: 'mv-chart', role: 'img', 'aria-label': 'Heap size over program order' },
    svg('line', { x1: L, y1: y(0), x2: W - 10, y2: y(0), stroke: '#999' }),
    svg('line', { x1: L, y1: T, x2: L, y2: y(0), stroke: '#999' }),
    svg('text', { x: 4, y: T + 10, 'font-size': 11 }, fmtMiB(max)),
    svg('text', { x: 4, y: y(0), 'font-size': 11 }, '0'),
    svg('path', { d: path(unpadded), fill: 'none', stroke: '#81c784', 'stroke-width': 1.5 }),
    svg('path', { d: path(heap), fill: 'none', stroke: '#1e88e5', 'stroke-width': 1.5 }),
    svg('line', { x1: x(peakIndex), y1: T, x2: x(peakIndex), y2: y(0), stroke: '#d32f2f', 'stroke-dasharray': '4 3', id: 'mv-peak' }),
    svg('text', { x: x(peakIndex) + 4, y: T + 22, 'font-size': 11, fill: '#d32f2f' }, `peak ${mib(d.peakHeapMib)}`));
  const cursor = svg('line', { x1: 0, y1: T, x2: 0, y2: y(0), stroke: '#555', visibility: 'hidden' });
  chart.appendChild(cursor);
  const info = el('div', { class: 'mv-hover', id: 'mv-hover' }, 'Hover over the chart for the program point.');
  chart.addEventListener('mousemove', (ev) => {
    const box = (chart as SVGSVGElement).getBoundingClientRect();
    const px = ((ev.clientX - box.left) / box.width) * W;
    const i = Math.min(heap.length - 1, Math.max(0, Math.round(((px - L) / (W - L - 10)) * (heap.length - 1))));
    cursor.setAttribute('x1', String(x(i))); cursor.setAttribute('x2', String(x(i))); cursor.setAttribute('visibility', 'visible');
    info.textContent = `Program point ${i}${names[i] ? ` (${names[i]})` : ''}: heap ${mib(heap[i])}, unpadded ${mib(unpadded[i])}`;
  });
  const legend = el('div', { class: 'mv-legend' }, el('span', { class: 'mv-key mv-key-heap' }, 'heap (padded)'), ' ',
    el('span', { class: 'mv-key mv-key-unpadded' }, 'unpadded'), ' ', el('span', { class: 'mv-key mv-key-peak' }, 'peak'));
  return el('div', {}, chart, legend, info);
}

function peakBuffers(objects: HeapObject[]): HTMLElement {
  const search = el('input', { type: 'search', id: 'mv-search', placeholder: 'Filter by name, op, shape…', 'aria-label': 'Filter buffers' });
  const list = el('div', { class: 'mv-bars', id: 'mv-bars' });
  const detail = el('div', { class: 'mv-detail', id: 'mv-detail' }, 'Hover a buffer for its details.');
  const max = Math.max(...objects.map((o) => o.logicalBufferSizeMib ?? 0), 1e-12);
  const describe = (o: HeapObject) => {
    const src = o.sourceInfo?.fileName ? `${o.sourceInfo.fileName}:${o.sourceInfo.lineNumber ?? ''}` : '—';
    return `${o.instructionName || o.label || ''} · ${o.shapeString || '—'} · ${mib(o.logicalBufferSizeMib)} (unpadded ${mib(o.unpaddedShapeMib)}) · ` +
      `op ${o.opCode || '—'} · ${o.groupName || '—'} · framework op ${o.tfOpName || '—'} · source ${src}`;
  };
  const draw = () => {
    clear(list);
    const q = search.value.trim().toLowerCase();
    const shown = objects.filter((o) => !q || [o.label, o.instructionName, o.tfOpName, o.shapeString, o.opCode]
      .some((s) => (s ?? '').toLowerCase().includes(q)));
    for (const o of shown) {
      const bar = el('div', { class: 'mv-bar-fill' });
      bar.style.width = `${Math.max(0.5, ((o.logicalBufferSizeMib ?? 0) / max) * 100)}%`;
      const row = el('div', { class: 'mv-bar', title: describe(o) },
        el('div', { class: 'mv-bar-label' }, o.instructionName || o.label || ''),
        el('div', { class: 'mv-bar-track' }, bar),
        el('div', { class: 'mv-bar-value' }, mib(o.logicalBufferSizeMib)));
      row.addEventListener('mouseenter', () => { detail.textContent = describe(o); });
      list.appendChild(row);
    }
    if (shown.length === 0) list.appendChild(message('empty', 'No buffer matches.'));
  };
  search.addEventListener('input', draw);
  draw();
  return el('div', {}, el('div', { class: 'toolbar' }, search), detail, list);
}
