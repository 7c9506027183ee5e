// A generated trace with trace_viewer@'s streaming semantics: a window and a
// resolution select which events come back (narrow events that would share a
// pixel bin with another on the same row are dropped).
function rng(seed) { let s = seed >>> 0; return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32); }

export function makeTrace({ events, seed }) {
  const rand = rng(seed);
  const lanes = [];
  const procs = [{ pid: 1, name: '/device:GPU:0', threads: ['Stream #14(Compute)', 'Stream #15(MemcpyH2D)'] },
    { pid: 701, name: '/host:CPU', threads: ['python3', 'tf_data_worker', 'launcher'] }];
  for (const p of procs) p.threads.forEach((t, i) => lanes.push({ pid: p.pid, tid: i + 1, name: t }));
  const perLane = Math.floor(events / lanes.length);
  const names = ['MatMul', 'Conv2D', 'Relu', 'BiasAdd', 'Iterator::Map', 'cudaLaunchKernel', 'volta_h884gemm', 'AllReduce'];
  const out = [];
  for (const lane of lanes) {
    let t = 0;
    for (let i = 0; i < perLane; i += 3) {
      const dur = 5 + rand() * 40;
      out.push({ pid: lane.pid, tid: lane.tid, name: `step ${Math.floor(i / 3000)}/${names[i % names.length]}`, ts: t, dur, depth: 0 });
      const launch = lane.pid === 701 && lane.tid === 3, kernel = lane.pid === 1 && lane.tid === 1;
      out.push({ pid: lane.pid, tid: lane.tid, name: launch ? 'cudaLaunchKernel' : names[(i + 1) % names.length], ts: t + 1, dur: dur * 0.5, depth: 1,
        ...(launch || kernel ? { bind_id: i, [launch ? 'flow_out' : 'flow_in']: true } : {}) });
      out.push({ pid: lane.pid, tid: lane.tid, name: names[(i + 2) % names.length], ts: t + 1.5, dur: dur * 0.2, depth: 2 });
      t += dur + rand() * 10;
    }
  }
  out.sort((a, b) => a.ts - b.ts);
  const end = out.reduce((m, e) => Math.max(m, e.ts + e.dur), 0);
  return { procs, lanes, events: out, spanUs: [0, end] };
}

const flow = (ev) => (ev.bind_id === undefined ? {} : { bind_id: ev.bind_id, cat: 'gpu_launch', ...(ev.flow_out ? { flow_out: true } : { flow_in: true }) });

export function traceResponse(trace, q) {
  const startMs = Number(q.start_time_ms ?? 0), endMs = Number(q.end_time_ms ?? 0);
  const resolution = Number(q.resolution ?? 0);
  const [s, e] = startMs === 0 && endMs === 0 ? trace.spanUs : [startMs * 1000, endMs * 1000];
  const bin = resolution > 0 ? (e - s) / resolution : 0;
  const lastBin = new Map();
  const kept = [];
  const prefix = q.search_prefix ?? '';
  for (const ev of trace.events) {
    if (prefix) { if (ev.name.startsWith(prefix) && kept.length < 100000) kept.push({ pid: ev.pid, tid: ev.tid, name: ev.name, ts: ev.ts, dur: ev.dur, ph: 'X', args: { depth: ev.depth }, ...flow(ev) }); continue; }
    if (ev.ts > e || ev.ts + ev.dur < s) continue;
    if (bin > 0 && ev.dur < bin) {
      const key = `${ev.pid}:${ev.tid}:${ev.depth}`, b = Math.floor(ev.ts / bin);
      if (lastBin.get(key) === b) continue;
      lastBin.set(key, b);
    }
    kept.push({ pid: ev.pid, tid: ev.tid, name: ev.name, ts: ev.ts, dur: ev.dur, ph: 'X', args: { depth: ev.depth }, ...flow(ev) });
  }
  const meta = [];
  for (const p of trace.procs) {
    meta.push({ args: { name: p.name }, name: 'process_name', ph: 'M', pid: p.pid });
    meta.push({ args: { sort_index: p.pid }, name: 'process_sort_index', ph: 'M', pid: p.pid });
  }
  for (const l of trace.lanes) meta.push({ args: { name: l.name }, name: 'thread_name', ph: 'M', pid: l.pid, tid: l.tid });
  return { displayTimeUnit: 'ns', metadata: { 'highres-ticks': true }, returnedEventsSize: kept.length, filteredByVisibility: true,
    fullTimespan: [trace.spanUs[0] / 1000, trace.spanUs[1] / 1000], showCounterMessage: '', traceEvents: [...meta, ...kept] };
}
