import { el, section, message, clear } from '../dom';
import { PageContext } from '../page';
import { card, cards } from './common';
import { lines } from '../charts';
import { fmtBytes, fmtNum } from '../format';
import { DataGrid, GridColumn } from '../table';

// Protobuf JSON: int64 fields arrive as strings.
interface Stats { stackReservedBytes?: string; heapAllocatedBytes?: string; freeMemoryBytes?: string; fragmentation?: number; peakBytesInUse?: string }
interface Activity { memoryActivity?: string; requestedBytes?: string; allocationBytes?: string; tfOpName?: string; stepId?: string;
  regionType?: string; dataType?: string; tensorShape?: string; address?: string }
interface Snapshot { timeOffsetPs?: string; aggregationStats?: Stats; activityMetadata?: Activity }
interface Allocator {
  memoryProfileSnapshots?: Snapshot[]; sampledTimelineSnapshots?: Snapshot[];
  profileSummary?: { peakBytesUsageLifetime?: string; peakStats?: Stats; peakStatsTimePs?: string; memoryCapacity?: string;
    numAllocations?: string; numDeallocations?: string; inUseFromAllocationSizes?: boolean };
  activeAllocations?: { snapshotIndex?: string; specialIndex?: string; numOccurrences?: string }[];
  specialAllocations?: Activity[];
}
interface HloModule { name?: string; startTimePs?: string; endTimePs?: string; id?: string; planeName?: string }
interface MemoryProfile { memoryIds?: string[]; memoryProfilePerAllocator?: Record<string, Allocator>; numHosts?: number; hloModules?: HloModule[] }

type Row = Activity & { occurrences: number };
const n = (v: string | number | undefined) => (v === undefined ? NaN : Number(v));
const MIB = 1024 ** 2, GIB = 1024 ** 3;
const NOT_RECORDED = 'not recorded in the profile';

export async function renderMemoryProfile(ctx: PageContext): Promise<void> {
  const data = await ctx.load<MemoryProfile>();
  const per = data.memoryProfilePerAllocator ?? {};
  const ids = (data.memoryIds?.length ? data.memoryIds : Object.keys(per)).filter((id) => per[id]);
  if (ids.length === 0) { ctx.root.appendChild(message('empty', 'No memory allocations were recorded in this profile.')); return; }
  const picker = el('select', { id: 'memory-id', 'aria-label': 'Memory ID' }, ...ids.map((id) => el('option', { value: id }, id)));
  picker.value = busiestAllocator(ids, per);
  const body = el('div');
  ctx.root.append(el('div', { class: 'toolbar' }, el('label', {}, 'Memory ID ', picker),
    el('span', { class: 'hint' }, ids.length > 1 ? ' opened on the allocator with the most allocations' : '')), body);
  const draw = () => { clear(body); drawAllocator(body, per[picker.value]); };
  picker.addEventListener('change', draw);
  draw();
  if (data.hloModules?.length) ctx.root.appendChild(section('HLO modules', hloModules(data.hloModules)));
}

// The allocator to open first: the one that allocated most often (the memory the program works in), then the one with
// the highest peak in use. The memory id order (often a host allocator with a handful of allocations first) says nothing.
function busiestAllocator(ids: string[], per: Record<string, Allocator>): string {
  const count = (id: string) => n(per[id].profileSummary?.numAllocations) || 0;
  const peak = (id: string) => n(per[id].profileSummary?.peakStats?.peakBytesInUse) || 0;
  return ids.reduce((best, id) => (count(id) > count(best) || (count(id) === count(best) && peak(id) > peak(best)) ? id : best), ids[0]);
}

// Sizes in the unit that fits: bytes, KiB, MiB, GiB.
function size(v: string | undefined): string {
  const b = n(v);
  return Number.isFinite(b) ? fmtBytes(b) : '';
}

function drawAllocator(root: HTMLElement, a: Allocator): void {
  const s = a.profileSummary ?? {};
  const peak = s.peakStats ?? {};
  const peakMs = n(s.peakStatsTimePs) / 1e9;
  const summary = [
    card('Peak heap usage (lifetime)', size(s.peakBytesUsageLifetime), '', { key: 'peakBytesUsageLifetime', json: s.peakBytesUsageLifetime, jsonUnit: 'B' }),
    card('Peak memory in use', size(peak.peakBytesInUse), Number.isFinite(peakMs) ? `at ${fmtNum(peakMs, 3)} ms` : '', { key: 'peakBytesInUse', json: peak.peakBytesInUse, jsonUnit: 'B' }),
    card('Stack reserved at peak', size(peak.stackReservedBytes), '', { key: 'stackReservedBytes', json: peak.stackReservedBytes, jsonUnit: 'B' }),
    card('Heap allocated at peak', size(peak.heapAllocatedBytes), '', { key: 'heapAllocatedBytes', json: peak.heapAllocatedBytes, jsonUnit: 'B' }),
    card('Free memory at peak', size(peak.freeMemoryBytes), '', { key: 'freeMemoryBytes', json: peak.freeMemoryBytes, jsonUnit: 'B' }),
    card('Fragmentation at peak', peak.fragmentation === undefined ? '' : `${fmtNum(peak.fragmentation * 100, 2)}%`, 'lower is better', { key: 'fragmentation', json: peak.fragmentation, jsonUnit: 'fraction' }),
    card('Memory capacity', size(s.memoryCapacity), '', { key: 'memoryCapacity', json: s.memoryCapacity, jsonUnit: 'B' }),
  ];
  // Counted by the server over every activity of the profiling window (xprof's page counts the timeline points it got).
  const noCount = 'The server sent no count for this memory (an older tbprof or another server).';
  summary.unshift(
    card('#Allocation', s.numAllocations === undefined ? '' : fmtNum(n(s.numAllocations)), '', { key: 'numAllocations', json: s.numAllocations,
      tooltip: 'Allocations by this allocator within the profiling window.', unknown: s.numAllocations === undefined ? noCount : undefined }),
    card('#Deallocation', s.numDeallocations === undefined ? '' : fmtNum(n(s.numDeallocations)), '', { key: 'numDeallocations', json: s.numDeallocations,
      tooltip: 'Deallocations by this allocator within the profiling window.', unknown: s.numDeallocations === undefined ? noCount : undefined }));
  root.appendChild(section('Memory profile summary', cards(...summary)));
  if (s.inUseFromAllocationSizes) {
    root.appendChild(el('p', { class: 'hint', id: 'memory-relative' },
      'The profile recorded allocation sizes but not the memory in use: the curve is the allocations less the frees since the ' +
      'trace started (relative to the trace start; memory allocated before it is not known), and the capacity is unknown.'));
  }

  const snaps = (a.sampledTimelineSnapshots?.length ? a.sampledTimelineSnapshots : a.memoryProfileSnapshots) ?? [];
  if (snaps.length === 0) root.appendChild(section('Memory timeline', message('empty', 'No snapshots recorded for this memory.')));
  else root.appendChild(section('Memory timeline', timeline(snaps, peakMs)));

  // Allocations live at the peak: active allocations point either at a snapshot or at a special allocation.
  const rows: Row[] = [];
  for (const act of a.activeAllocations ?? []) {
    const si = n(act.snapshotIndex), sp = n(act.specialIndex);
    const meta = si >= 0 ? a.memoryProfileSnapshots?.[si]?.activityMetadata : sp >= 0 ? a.specialAllocations?.[sp] : undefined;
    if (meta && (n(meta.allocationBytes) > 0 || n(meta.requestedBytes) > 0)) rows.push({ ...meta, occurrences: n(act.numOccurrences) || 1 });
  }
  // Fields the profiler left empty (JAX allocations carry no op or tensor) read "—", not blank or "INVALID".
  const text = (v: string | undefined) => (!v || v === 'INVALID' || v === 'unknown' ? el('span', { class: 'unknown', title: v ? `${v}: ${NOT_RECORDED}` : NOT_RECORDED }, '—') : v);
  const grid = new DataGrid([
    { id: 'op', label: 'Op Name', value: (r) => r.tfOpName ?? '', render: (r) => text(r.tfOpName), longText: true },
    { id: 'alloc', label: 'Allocation Size', numeric: true, value: (r) => n(r.allocationBytes), render: (r) => size(r.allocationBytes) },
    { id: 'req', label: 'Requested Size', numeric: true, value: (r) => n(r.requestedBytes), render: (r) => size(r.requestedBytes) },
    { id: 'occ', label: 'Occurrences', numeric: true, value: (r) => r.occurrences },
    { id: 'region', label: 'Region type', value: (r) => r.regionType ?? '', render: (r) => text(r.regionType) },
    { id: 'dtype', label: 'Data type', value: (r) => r.dataType ?? '', render: (r) => text(r.dataType) },
    { id: 'shape', label: 'Shape', value: (r) => r.tensorShape ?? '', render: (r) => text(r.tensorShape) },
  ] as GridColumn<Row>[], rows, { initialSort: { id: 'alloc', desc: true }, name: 'memory-breakdown' });
  root.appendChild(section('Memory breakdown at peak', rows.length ? grid.root : message('empty', 'No allocations were live at the peak.')));
}

// Heap and stack in use over time on an axis fitted to them (free memory would scale it to the capacity);
// fragmentation on its own 0–100% axis. Drag to zoom into a time range, click for a snapshot's details.
function timeline(all: Snapshot[], peakMs: number): HTMLElement {
  const box = el('div', { class: 'memory-timeline' });
  const details = el('div', { class: 'snapshot-details', id: 'snapshot-details' }, el('p', { class: 'hint' },
    'Drag across the chart to zoom into a time range; click a point for its allocation details.'));
  const resetZoom = el('button', { id: 'memory-zoom-reset', disabled: '' }, 'Reset zoom');
  let range: [number, number] | null = null;
  let picked: number | undefined;
  const ms = (x: Snapshot) => n(x.timeOffsetPs) / 1e9;
  const draw = () => {
    const snaps = range ? all.filter((x) => ms(x) >= range![0] && ms(x) <= range![1]) : all;
    const used = (x: Snapshot) => n(x.aggregationStats?.heapAllocatedBytes) + n(x.aggregationStats?.stackReservedBytes);
    const top = Math.max(0, ...snaps.map(used).filter(Number.isFinite));
    const unit = top >= GIB ? { div: GIB, name: 'GiB' } : { div: MIB, name: 'MiB' };
    const stat = (k: keyof Stats) => snaps.map((x) => n(x.aggregationStats?.[k] as string | undefined) / unit.div);
    const chart = lines(snaps.map(ms), [
      { name: `Heap allocated (${unit.name})`, values: stat('heapAllocatedBytes') },
      { name: `Stack reserved (${unit.name})`, values: stat('stackReservedBytes') },
      { name: `In use: heap + stack (${unit.name})`, values: snaps.map((x) => used(x) / unit.div) },
      { name: 'Fragmentation (%)', values: snaps.map((x) => (x.aggregationStats?.fragmentation ?? NaN) * 100), axis: 'right', color: '#bab0ac' },
    ], { xLabel: 'time (ms)', yLabel: unit.name, y2Label: 'fragmentation %', y2Max: 100, marker: peakMs, name: 'memory-timeline',
      picked: picked === undefined ? undefined : snaps.indexOf(all[picked]),
      onRange: (x0, x1) => { range = [x0, x1]; resetZoom.removeAttribute('disabled'); draw(); },
      onPick: (i) => { picked = all.indexOf(snaps[i]); showSnapshot(details, snaps[i]); draw(); } });
    clear(box);
    box.append(chart);
    box.setAttribute('data-points', String(snaps.length));
    box.setAttribute('data-unit', unit.name);
  };
  resetZoom.addEventListener('click', () => { range = null; resetZoom.setAttribute('disabled', ''); draw(); });
  draw();
  return el('div', {}, el('div', { class: 'toolbar' }, resetZoom), box, details);
}

// An activity's size of 0 is one the profiler did not record (a free that matched no allocation and
// carried no size): shown as "—", not "0 B".
function activitySize(v: string | undefined): string {
  return n(v) > 0 ? size(v) : '';
}

function showSnapshot(box: HTMLElement, s: Snapshot): void {
  clear(box);
  const st = s.aggregationStats ?? {}, act = s.activityMetadata ?? {};
  const row = (k: string, v: string) => el('tr', {}, el('th', {}, k), el('td', {}, v || '—'));
  box.append(el('h3', {}, `Snapshot at ${(n(s.timeOffsetPs) / 1e9).toFixed(6)} ms`), el('table', { class: 'kv' },
    row('Heap allocated', size(st.heapAllocatedBytes)), row('Stack reserved', size(st.stackReservedBytes)),
    row('Free memory', size(st.freeMemoryBytes)),
    row('Fragmentation', st.fragmentation === undefined ? '' : `${fmtNum(st.fragmentation * 100, 2)}%`),
    row('Activity', act.memoryActivity ?? ''), row('Op name', act.tfOpName ?? ''),
    row('Requested size', activitySize(act.requestedBytes)), row('Allocation size', activitySize(act.allocationBytes)),
    row('Region type', act.regionType ?? ''), row('Data type', act.dataType === 'INVALID' ? '' : act.dataType ?? ''),
    row('Shape', act.tensorShape ?? ''), row('Step id', act.stepId ?? ''), row('Address', act.address ?? '')));
}

function hloModules(mods: HloModule[]): HTMLElement {
  const ms = (ps: string | undefined) => n(ps) / 1e9;
  return new DataGrid([
    { id: 'name', label: 'Module', value: (m) => m.name ?? '', longText: true },
    { id: 'plane', label: 'Device', value: (m) => m.planeName ?? '' },
    { id: 'start', label: 'Start (ms)', numeric: true, value: (m) => ms(m.startTimePs), render: (m) => ms(m.startTimePs).toFixed(6) },
    { id: 'dur', label: 'Duration (ms)', numeric: true, value: (m) => ms(m.endTimePs) - ms(m.startTimePs),
      render: (m) => (ms(m.endTimePs) - ms(m.startTimePs)).toFixed(6) },
  ] as GridColumn<HloModule>[], mods, { initialSort: { id: 'start', desc: false }, name: 'hlo-modules' }).root;
}
