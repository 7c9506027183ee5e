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
  profileSummary?: { peakBytesUsageLifetime?: string; peakStats?: Stats; peakStatsTimePs?: string; memoryCapacity?: string };
  activeAllocations?: { snapshotIndex?: string; specialIndex?: string; numOccurrences?: string }[];
  specialAllocations?: Activity[]; numAllocations?: string | number; numDeallocations?: string | number;
}
interface MemoryProfile { memoryIds?: string[]; memoryProfilePerAllocator?: Record<string, Allocator>; numHosts?: number }

type Row = Activity & { occurrences: number };
const n = (v: string | number | undefined) => (v === undefined ? NaN : Number(v));
const GIB = 1024 ** 3;

export async function renderMemoryProfile(ctx: PageContext): Promise<void> {
  const data = await ctx.load<MemoryProfile>();
  const per = data.memoryProfilePerAllocator ?? {};
  const ids = (data.memoryIds?.length ? data.memoryIds : Object.keys(per)).filter((id) => per[id]);
  if (ids.length === 0) { ctx.root.appendChild(message('empty', 'No memory allocations were recorded in this profile.')); return; }
  const picker = el('select', { id: 'memory-id', 'aria-label': 'Memory ID' }, ...ids.map((id) => el('option', { value: id }, id)));
  const body = el('div');
  ctx.root.append(el('div', { class: 'toolbar' }, el('label', {}, 'Memory ID ', picker)), body);
  const draw = () => { clear(body); drawAllocator(body, per[picker.value]); };
  picker.addEventListener('change', draw);
  draw();
}

function drawAllocator(root: HTMLElement, a: Allocator): void {
  const s = a.profileSummary ?? {};
  const peak = s.peakStats ?? {};
  const peakMs = n(s.peakStatsTimePs) / 1e9;
  const summary = [
    card('Peak heap usage (lifetime)', fmtBytes(n(s.peakBytesUsageLifetime))),
    card('Peak memory in use', fmtBytes(n(peak.peakBytesInUse)), Number.isFinite(peakMs) ? `at ${fmtNum(peakMs, 3)} ms` : ''),
    card('Stack reserved at peak', fmtBytes(n(peak.stackReservedBytes))),
    card('Heap allocated at peak', fmtBytes(n(peak.heapAllocatedBytes))),
    card('Free memory at peak', fmtBytes(n(peak.freeMemoryBytes))),
    card('Fragmentation at peak', `${fmtNum((peak.fragmentation ?? 0) * 100, 2)}%`),
    card('Memory capacity', fmtBytes(n(s.memoryCapacity))),
  ];
  if (a.numAllocations !== undefined) summary.push(card('Allocations', fmtNum(n(a.numAllocations))));
  if (a.numDeallocations !== undefined) summary.push(card('Deallocations', fmtNum(n(a.numDeallocations))));
  root.appendChild(section('Memory profile summary', cards(...summary)));

  const snaps = (a.sampledTimelineSnapshots?.length ? a.sampledTimelineSnapshots : a.memoryProfileSnapshots) ?? [];
  if (snaps.length === 0) root.appendChild(section('Memory timeline', message('empty', 'No snapshots recorded for this memory.')));
  else {
    const xs = snaps.map((x) => n(x.timeOffsetPs) / 1e9);
    const stat = (k: keyof Stats) => snaps.map((x) => n(x.aggregationStats?.[k] as string | undefined) / GIB);
    root.appendChild(section('Memory timeline', lines(xs, [
      { name: 'Heap allocated (GiB)', values: stat('heapAllocatedBytes') },
      { name: 'Stack reserved (GiB)', values: stat('stackReservedBytes') },
      { name: 'Free memory (GiB)', values: stat('freeMemoryBytes') },
      { name: 'Fragmentation (%)', values: snaps.map((x) => (x.aggregationStats?.fragmentation ?? 0) * 100), axis: 'right' },
    ], { xLabel: 'time (ms)', yLabel: 'GiB', y2Label: 'fragmentation %', marker: peakMs, name: 'memory-timeline' })));
  }

  // Allocations live at the peak: active allocations point either at a snapshot or at a special allocation.
  const rows: Row[] = [];
  for (const act of a.activeAllocations ?? []) {
    const si = n(act.snapshotIndex), sp = n(act.specialIndex);
    const meta = si >= 0 ? a.memoryProfileSnapshots?.[si]?.activityMetadata : sp >= 0 ? a.specialAllocations?.[sp] : undefined;
    if (meta) rows.push({ ...meta, occurrences: n(act.numOccurrences) || 1 });
  }
  const gib = (v: string | undefined) => n(v) / GIB;
  const grid = new DataGrid([
    { id: 'op', label: 'Op Name', value: (r) => r.tfOpName ?? '' },
    { id: 'alloc', label: 'Allocation Size (GiBs)', numeric: true, value: (r) => gib(r.allocationBytes), render: (r) => gib(r.allocationBytes).toFixed(4) },
    { id: 'req', label: 'Requested Size (GiBs)', numeric: true, value: (r) => gib(r.requestedBytes), render: (r) => gib(r.requestedBytes).toFixed(4) },
    { id: 'occ', label: 'Occurrences', numeric: true, value: (r) => r.occurrences },
    { id: 'region', label: 'Region type', value: (r) => r.regionType ?? '' },
    { id: 'dtype', label: 'Data type', value: (r) => r.dataType ?? '' },
    { id: 'shape', label: 'Shape', value: (r) => r.tensorShape ?? '' },
  ] as GridColumn<Row>[], rows, { initialSort: { id: 'alloc', desc: true }, name: 'memory-breakdown' });
  root.appendChild(section('Memory breakdown at peak', rows.length ? grid.root : message('empty', 'No allocations were live at the peak.')));
}
