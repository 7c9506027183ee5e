// Chrome trace JSON (as xprof's trace_viewer and trace_viewer@ emit it) turned
// into compact per-lane, per-depth arrays that a canvas can cull by binary search.

export interface RawEvent {
  ph?: string; pid?: number | string; tid?: number | string; name?: string; ts?: number; dur?: number;
  args?: Record<string, unknown>; entries?: [number, number][]; cat?: string; id?: unknown; s?: string;
  bind_id?: number | string; flow_in?: boolean; flow_out?: boolean;
}
export interface TraceJson {
  traceEvents?: RawEvent[]; fullTimespan?: [number, number]; filteredByVisibility?: boolean;
  returnedEventsSize?: number; showCounterMessage?: string; displayTimeUnit?: string;
}

// Events of one depth row, sorted by start; within a row events never overlap.
export interface Row { start: Float64Array; dur: Float64Array; name: Int32Array; raw: RawEvent[] }
export interface Lane { key: string; pid: string; tid: string; rows: Row[]; counter?: { ts: Float64Array; value: Float64Array; max: number } }
export interface Layer { lanes: Map<string, Lane>; eventCount: number; minTs: number; maxTs: number; windowUs?: [number, number] }

export class NameTable {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();
  id(name: string): number {
    let i = this.ids.get(name);
    if (i === undefined) { i = this.names.length; this.names.push(name); this.ids.set(name, i); }
    return i;
  }
}

// Process/thread naming and order, accumulated over every response.
export class TraceMeta {
  readonly processNames = new Map<string, string>();
  readonly threadNames = new Map<string, string>();
  readonly processSort = new Map<string, number>();
  readonly threadSort = new Map<string, number>();
  absorb(events: RawEvent[]): void {
    for (const e of events) {
      if (e.ph !== 'M') continue;
      const pid = String(e.pid), key = `${pid}:${e.tid}`;
      const a = e.args ?? {};
      if (e.name === 'process_name') this.processNames.set(pid, String(a.name ?? pid));
      else if (e.name === 'thread_name') this.threadNames.set(key, String(a.name ?? e.tid));
      else if (e.name === 'process_sort_index') this.processSort.set(pid, Number(a.sort_index));
      else if (e.name === 'thread_sort_index') this.threadSort.set(key, Number(a.sort_index));
    }
  }
}

interface Pending { start: number; dur: number; name: number; raw: RawEvent }

export function buildLayer(events: RawEvent[], names: NameTable, windowUs?: [number, number]): Layer {
  const perLane = new Map<string, Pending[]>();
  const counters = new Map<string, [number, number][]>();
  const open = new Map<string, RawEvent[]>(); // B/E pairs per thread
  let minTs = Infinity, maxTs = -Infinity, count = 0;
  const push = (key: string, p: Pending) => {
    let list = perLane.get(key);
    if (!list) { list = []; perLane.set(key, list); }
    list.push(p);
    count++;
    minTs = Math.min(minTs, p.start); maxTs = Math.max(maxTs, p.start + p.dur);
  };
  for (const e of events) {
    const ph = e.ph;
    if (!ph || ph === 'M' || e.ts === undefined && ph !== 'C') continue;
    const key = `${e.pid}:${e.tid}`;
    if (ph === 'X') push(key, { start: Number(e.ts), dur: Math.max(0, Number(e.dur ?? 0)), name: names.id(e.name ?? ''), raw: e });
    else if (ph === 'i' || ph === 'I' || ph === 'R' || ph === 'n') push(key, { start: Number(e.ts), dur: 0, name: names.id(e.name ?? ''), raw: e });
    else if (ph === 'B') { const s = open.get(key) ?? []; s.push(e); open.set(key, s); }
    else if (ph === 'E') {
      const b = open.get(key)?.pop();
      if (b) push(key, { start: Number(b.ts), dur: Math.max(0, Number(e.ts) - Number(b.ts)), name: names.id(b.name ?? ''), raw: { ...b, ph: 'X', dur: Number(e.ts) - Number(b.ts) } });
    } else if (ph === 'C') {
      if (Array.isArray(e.entries)) {
        const ck = `${e.pid}:counter:${e.name}`;
        const pts = counters.get(ck) ?? [];
        for (const pair of e.entries) if (Array.isArray(pair)) pts.push([Number(pair[0]), Number(pair[1])]);
        counters.set(ck, pts);
      } else {
        for (const [series, value] of Object.entries(e.args ?? {})) {
          const ck = `${e.pid}:counter:${e.name}${series === 'value' || series === e.name ? '' : ' ' + series}`;
          const pts = counters.get(ck) ?? [];
          pts.push([Number(e.ts), Number(value)]);
          counters.set(ck, pts);
        }
      }
    }
  }
  const lanes = new Map<string, Lane>();
  for (const [key, list] of perLane) {
    list.sort((a, b) => a.start - b.start || b.dur - a.dur);
    const depthOf = new Int32Array(list.length);
    const stackEnds: number[] = [];
    const rowCounts: number[] = [];
    list.forEach((p, i) => {
      while (stackEnds.length && stackEnds[stackEnds.length - 1] <= p.start) stackEnds.pop();
      const d = stackEnds.length;
      depthOf[i] = d;
      rowCounts[d] = (rowCounts[d] ?? 0) + 1;
      stackEnds.push(p.start + p.dur);
    });
    const rows: Row[] = rowCounts.map((n) => ({ start: new Float64Array(n), dur: new Float64Array(n), name: new Int32Array(n), raw: new Array<RawEvent>(n) }));
    const fill = new Array<number>(rows.length).fill(0);
    list.forEach((p, i) => {
      const r = rows[depthOf[i]], j = fill[depthOf[i]]++;
      r.start[j] = p.start; r.dur[j] = p.dur; r.name[j] = p.name; r.raw[j] = p.raw;
    });
    const [pid, tid] = splitKey(key);
    lanes.set(key, { key, pid, tid, rows });
  }
  for (const [key, pts] of counters) {
    pts.sort((a, b) => a[0] - b[0]);
    const ts = Float64Array.from(pts, (p) => p[0]), value = Float64Array.from(pts, (p) => p[1]);
    let max = 0;
    for (const v of value) if (Number.isFinite(v)) max = Math.max(max, v);
    for (const t of ts) { minTs = Math.min(minTs, t); maxTs = Math.max(maxTs, t); }
    count += ts.length;
    lanes.set(key, { key, pid: key.slice(0, key.indexOf(':')), tid: key.slice(key.indexOf(':') + 1), rows: [], counter: { ts, value, max } });
  }
  return { lanes, eventCount: count, minTs, maxTs, windowUs };
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf(':');
  return [key.slice(0, i), key.slice(i + 1)];
}

// First index in a row whose event may be visible at `t` (events never overlap within a row).
export function firstVisible(row: Row, t: number): number {
  let lo = 0, hi = row.start.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (row.start[mid] < t) lo = mid + 1; else hi = mid; }
  return lo > 0 && row.start[lo - 1] + row.dur[lo - 1] >= t ? lo - 1 : lo;
}

// Events sharing a flow id (host launch -> device kernel) across the given layers.
export function flowPartners(layers: (Layer | null)[], bindId: number | string, names: NameTable): { lane: string; raw: RawEvent; start: number; dur: number; name: string }[] {
  const out: { lane: string; raw: RawEvent; start: number; dur: number; name: string }[] = [];
  const seen = new Set<string>();
  for (const layer of layers) if (layer) for (const lane of layer.lanes.values()) for (const row of lane.rows) {
    for (let i = 0; i < row.raw.length; i++) {
      if (row.raw[i].bind_id !== bindId) continue;
      const key = `${lane.key}|${row.start[i]}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ lane: lane.key, raw: row.raw[i], start: row.start[i], dur: row.dur[i], name: names.names[row.name[i]] });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

// A flow drawn for its own sake (the critical path the server adds with `critical_path=STEP`): from a point of one
// lane to a point of another, whatever is selected.
export interface PathArrow { id: string; from: { lane: string; ts: number }; to: { lane: string; ts: number } }

// The "s"/"t"/"f" flow events of category `cat`, joined by id in time order: one arrow per consecutive pair.
export function flowArrows(events: RawEvent[], cat: string): PathArrow[] {
  const byId = new Map<string, RawEvent[]>();
  for (const e of events) {
    if ((e.ph !== 's' && e.ph !== 't' && e.ph !== 'f') || e.cat !== cat || e.ts === undefined) continue;
    const id = String(e.id ?? '');
    byId.set(id, [...(byId.get(id) ?? []), e]);
  }
  const out: PathArrow[] = [];
  for (const [id, list] of byId) {
    list.sort((a, b) => Number(a.ts) - Number(b.ts) || (a.ph === 's' ? -1 : b.ph === 's' ? 1 : 0));
    for (let i = 1; i < list.length; i++) {
      const a = list[i - 1], b = list[i];
      out.push({ id, from: { lane: `${a.pid}:${a.tid}`, ts: Number(a.ts) }, to: { lane: `${b.pid}:${b.tid}`, ts: Number(b.ts) } });
    }
  }
  return out;
}
