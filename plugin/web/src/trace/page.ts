// Trace viewer page. With trace_viewer@ the server returns a resolution-limited
// view; as the user zooms or pans, the visible window (×3, as xprof's viewer
// fetches) is re-requested at a resolution matching the canvas width.
import { el, clear, message } from '../dom';
import { PageContext } from '../page';
import { dataUrl, fetchJson } from '../api';
import { buildLayer, firstVisible, flowArrows, flowPartners, Layer, NameTable, PathArrow, TraceJson, TraceMeta } from './model';
import { TraceView, Selected, BoxSelection, WheelMode } from './view';
import { fmtNum, fmtUs, fmtPreciseUs } from '../format';
import { hloLinksForEvent } from '../pages/xla_common';

const FETCH_RATIO = 3;      // fetched window = visible window × 3
const REFETCH_ZOOM = 2;     // refetch once zoomed in 2× past the fetched detail

export async function renderTraceViewer(ctx: PageContext): Promise<void> {
  const streaming = ctx.sel.tool.startsWith('trace_viewer@');
  const root = ctx.root;
  const bar = traceLayout(root);
  const names = new NameTable(), meta = new TraceMeta();
  const view = new TraceView(bar.canvasHost, names, meta);
  bindViewControls(root, view, bar);
  const resolutionFor = () => Math.max(100, Math.round(view.plotWidth / 2) * 8);

  // trace_analysis links here with critical_path=STEP: the server adds that step's critical path as flows.
  const criticalPath = new URL(location.href).searchParams.get('critical_path') ?? undefined;
  performance.mark('tbprof-trace-request');
  const first = await ctx.load<TraceJson>({ ...(streaming ? { resolution: resolutionFor() } : {}), critical_path: criticalPath });
  performance.mark('tbprof-trace-parsed');
  const events = first.traceEvents ?? [];
  meta.absorb(events);
  const base = buildLayer(events, names);
  performance.mark('tbprof-trace-built');
  if (base.eventCount === 0) {
    clear(root);
    root.appendChild(message('empty', 'No trace events data returned for this host.'));
    return;
  }
  const span: [number, number] = Array.isArray(first.fullTimespan) && first.fullTimespan[1] > first.fullTimespan[0]
    ? [first.fullTimespan[0] * 1000, first.fullTimespan[1] * 1000] : [base.minTs, base.maxTs];
  const canStream = streaming && first.filteredByVisibility === true;
  const windows = new TraceWindows(ctx, view, names, meta, base, span, canStream, first.showCounterMessage ?? '',
    bar.status, resolutionFor);

  const url = new URL(location.href);
  const vs = Number(url.searchParams.get('view_start')), ve = Number(url.searchParams.get('view_end'));
  view.bounds = span;
  view.setLayers(base, null);
  const deepLink = Number.isFinite(vs) && Number.isFinite(ve) && ve > vs && url.searchParams.has('view_start');
  if (deepLink) view.setView(vs * 1000, ve * 1000, false);
  else view.setView(span[0], span[1], false);
  windows.updateStatus();
  let fitted = false;
  if (criticalPath !== undefined) {
    windows.extra = { critical_path: criticalPath };
    fitted = showCriticalPath(bar.status, view, criticalPath, flowArrows(events, 'critical_path'), !deepLink);
  }

  let timer = 0;
  view.onViewChange = () => {
    const u = new URL(location.href);
    u.searchParams.set('view_start', (view.viewStart / 1000).toFixed(6));
    u.searchParams.set('view_end', (view.viewEnd / 1000).toFixed(6));
    history.replaceState(null, '', u.toString());
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void windows.maybeFetch(), 150);
  };
  view.onSelect = (s) => showDetails(bar.details, s, view, ctx.tools.includes('graph_viewer'),
    (from, note, target) => windows.followFlow(from, note, target));
  view.onBox = (b) => { if (b) showAggregate(bar.details, b, view); };
  // A link to a window shows that window's detail at once, not only the coarse layer.
  if (deepLink || fitted) void windows.maybeFetch();

  bar.zoomIn.addEventListener('click', () => view.zoomBy(0.5));
  bar.zoomOut.addEventListener('click', () => view.zoomBy(2));
  bar.reset.addEventListener('click', () => view.setView(span[0], span[1]));
  bindSearch(ctx, view, names, windows, bar);
  root.setAttribute('data-streaming', String(canStream));
}

// The step's critical path: its arrows drawn over the lanes, the view fitted to them (unless a link named a window),
// and a line saying how many there are (data-arrows, read by the browser tests).
function showCriticalPath(status: HTMLElement, view: TraceView, step: string, arrows: PathArrow[], fit: boolean): boolean {
  view.pathArrows = arrows;
  const note = el('span', { class: 'hint', id: 'trace-critical-path', 'data-step': step, 'data-arrows': String(arrows.length) },
    `${step ? `Critical path of step ${step}` : 'Critical path'}: ${arrows.length ? `${arrows.length} flows (purple arrows)` : 'the server added none'}`);
  status.before(note);
  if (!arrows.length || !fit) return false;
  const ts = arrows.flatMap((a) => [a.from.ts, a.to.ts]);
  const t0 = Math.min(...ts), t1 = Math.max(...ts), pad = Math.max((t1 - t0) * 0.05, 1);
  view.setView(t0 - pad, t1 + pad, false);
  return true;
}

// Arrows of a window join those already known (a window fetched again brings the same ones).
function mergeArrows(view: TraceView, more: PathArrow[]): void {
  const key = (a: PathArrow) => `${a.id}|${a.from.lane}|${a.from.ts}|${a.to.lane}|${a.to.ts}`;
  const known = new Set(view.pathArrows.map(key));
  view.pathArrows = [...view.pathArrows, ...more.filter((a) => !known.has(key(a)))];
}

// The page's toolbar, timeline host, splitter and details panel.
function traceLayout(root: HTMLElement) {
  const bar = {
    search: el('input', { type: 'search', id: 'trace-search', placeholder: 'Search loaded events by name…', 'aria-label': 'Search events' }),
    searchInfo: el('span', { class: 'hint', id: 'trace-search-info' }),
    nextBtn: el('button', { id: 'trace-next', title: 'Go to the next match' }, 'Next ▸'),
    zoomIn: el('button', { id: 'trace-zoom-in', title: 'Zoom in (W)' }, '+'),
    zoomOut: el('button', { id: 'trace-zoom-out', title: 'Zoom out (S)' }, '−'),
    reset: el('button', { id: 'trace-reset', title: 'Show the whole trace' }, 'Fit'),
    status: el('span', { class: 'trace-status', id: 'trace-status', role: 'status' }),
    canvasHost: el('div', { class: 'trace-host' }),
    details: el('aside', { class: 'trace-details', id: 'trace-details' }, el('p', { class: 'hint' },
      'Click an event to see its details; Shift+drag selects a range. Press ? for the keys.')),
    wheel: el('select', { id: 'trace-wheel', 'aria-label': 'Mouse wheel', title: 'What the mouse wheel does without a modifier' },
      el('option', { value: 'scroll' }, 'Wheel scrolls (Ctrl zooms)'), el('option', { value: 'zoom' }, 'Wheel zooms (Shift scrolls)')),
    helpBtn: el('button', { id: 'trace-help-button', title: 'Keys and mouse (?)' }, '?'),
    splitter: el('div', { class: 'trace-splitter', id: 'trace-splitter', title: 'Drag to resize the details panel', role: 'separator' }),
  };
  root.append(el('div', { class: 'toolbar' }, bar.zoomIn, bar.zoomOut, bar.reset, bar.search, bar.nextBtn, bar.searchInfo,
    bar.wheel, bar.helpBtn, bar.status),
  el('div', { class: 'trace-layout' }, bar.canvasHost, bar.splitter, bar.details));
  return bar;
}
type TraceLayout = ReturnType<typeof traceLayout>;

// The wheel mode (kept across visits), the key help and the details panel's splitter.
function bindViewControls(root: HTMLElement, view: TraceView, bar: TraceLayout): void {
  const help = helpDialog();
  root.appendChild(help);
  const { wheel } = bar;
  const savedWheel = localStorage.getItem('tbprof.trace.wheel');
  if (savedWheel === 'zoom' || savedWheel === 'scroll') { wheel.value = savedWheel; view.wheelMode = savedWheel; }
  wheel.addEventListener('change', () => { view.wheelMode = wheel.value as WheelMode; localStorage.setItem('tbprof.trace.wheel', wheel.value); });
  view.onHelp = () => { help.hidden = !help.hidden; };
  bar.helpBtn.addEventListener('click', () => { help.hidden = !help.hidden; });
  resizable(bar.splitter, bar.details);
}

// The events shown: the first answer's layer over the whole trace and, while
// streaming, a detail layer of the window around the view, fetched again as
// the view leaves it or is zoomed past its detail.
class TraceWindows {
  detail: Layer | null = null;
  private detailViewWidth = Infinity;
  private loadingWindow = false;
  private inflight: AbortController | null = null;
  extra: Record<string, string> = {};   // kept on every window fetched (critical_path)

  constructor(private ctx: PageContext, private view: TraceView, private names: NameTable, private meta: TraceMeta,
    readonly base: Layer, readonly span: [number, number], readonly canStream: boolean, private counterMsg: string,
    private status: HTMLElement, private resolutionFor: () => number) {}

  updateStatus(): void {
    const loaded = this.base.eventCount + (this.detail?.eventCount ?? 0);
    this.status.textContent = `${fmtNum(loaded)} events loaded · ${this.canStream ? 'streaming' : 'complete trace'}` +
      (this.loadingWindow ? ' · loading window…' : '') + (this.counterMsg ? ` · ${this.counterMsg}` : '');
    this.status.setAttribute('data-loading', this.loadingWindow ? 'true' : 'false');
  }

  // Shows `detail` (null: the base layer alone), fetched for a view `viewWidth` wide.
  private showDetail(detail: Layer | null, viewWidth: number): void {
    this.detail = detail;
    this.detailViewWidth = viewWidth;
    this.view.setLayers(this.base, detail);
    this.loadingWindow = false; this.updateStatus();
  }

  async maybeFetch(): Promise<void> {
    const { ctx, view, span } = this;
    if (!this.canStream || ctx.signal.aborted) return;
    const v0 = view.viewStart, v1 = view.viewEnd, w = v1 - v0;
    if (w >= (span[1] - span[0]) * 0.9) {               // the base layer already covers this view
      this.inflight?.abort();
      if (this.detail) this.showDetail(null, Infinity);
      else { this.loadingWindow = false; this.updateStatus(); }
      return;
    }
    const win = this.detail?.windowUs;
    if (win && v0 >= win[0] && v1 <= win[1] && w * REFETCH_ZOOM > this.detailViewWidth) return;
    this.inflight?.abort();
    const abort = new AbortController();
    this.inflight = abort;
    ctx.signal.addEventListener('abort', () => abort.abort());
    const f0 = Math.max(span[0], v0 - w * (FETCH_RATIO - 1) / 2), f1 = Math.min(span[1], v1 + w * (FETCH_RATIO - 1) / 2);
    this.loadingWindow = true; this.updateStatus();
    try {
      const res = await fetchJson<TraceJson>(dataUrl(ctx.sel, { ...this.extra, resolution: this.resolutionFor(), start_time_ms: f0 / 1000, end_time_ms: f1 / 1000 }), abort.signal);
      if (abort.signal.aborted) return;
      this.meta.absorb(res.traceEvents ?? []);
      if (this.extra.critical_path !== undefined) mergeArrows(this.view, flowArrows(res.traceEvents ?? [], 'critical_path'));
      this.showDetail(buildLayer(res.traceEvents ?? [], this.names, [f0, f1]), w);
      ctx.root.setAttribute('data-windows-loaded', String(Number(ctx.root.getAttribute('data-windows-loaded') ?? '0') + 1));
    } catch (e) {
      if ((e as Error).name === 'AbortError') return;
      this.loadingWindow = false; this.updateStatus();
      this.status.textContent += ` · window failed: ${(e as Error).message}`;
    } finally {
      if (this.inflight === abort) this.inflight = null;
    }
  }

  // Zooms to a flow's partner and selects it: the partner fills about a quarter of the view, together with the
  // event the link started from when both fit at that zoom.
  private zoomTo(p: Selected, from: Selected): void {
    const view = this.view;
    const w = Math.max(p.dur * 4, 2);
    const lo = Math.min(p.start, from.start), hi = Math.max(p.start + p.dur, from.start + from.dur);
    if ((hi - lo) * 1.5 <= Math.max(w, p.dur * 8)) {
      const both = Math.max(w, (hi - lo) * 1.5);
      view.setView((lo + hi) / 2 - both / 2, (lo + hi) / 2 + both / 2);
    } else view.setView(p.start + p.dur / 2 - w / 2, p.start + p.dur / 2 + w / 2);
    view.select(p);
  }

  // Follows a flow to its partner: a loaded one at once, else windows of growing width around the event's start are
  // fetched in full detail until one holds an event with the same flow id. The window found is kept as the detail
  // layer, so the partner is drawn at once, without waiting for the zoomed view's own fetch.
  async followFlow(s: Selected, note: HTMLElement, target?: Selected): Promise<void> {
    const { ctx, span } = this;
    const started = performance.now();
    const done = (p: Selected) => {
      this.zoomTo(p, s);
      note.textContent = '';
      ctx.root.setAttribute('data-flow-ms', (performance.now() - started).toFixed(1));  // read by the browser tests
    };
    if (target) { done(target); return; }
    const loaded = flowPartners(this.view.layers(), s.raw.bind_id!, this.names).filter((p) => !(p.lane === s.lane && p.start === s.start));
    if (loaded.length) { done(loaded[0]); return; }
    for (let half = 100; ; half *= 10) {
      const t0 = Math.max(span[0], s.start - half), t1 = Math.min(span[1], s.start + half);
      note.textContent = `Looking for the linked event within ${fmtUs(half)} of this one…`;
      const res = await fetchJson<TraceJson>(dataUrl(ctx.sel, { resolution: 0, start_time_ms: t0 / 1000, end_time_ms: t1 / 1000 }), ctx.signal);
      const found = res.traceEvents ?? [];
      const hit = found.find((e) => e.bind_id === s.raw.bind_id && e.ph === 'X' && !(`${e.pid}:${e.tid}` === s.lane && Number(e.ts) === s.start));
      if (hit) {
        if (this.canStream) {
          // Full detail of the window: no refetch is needed while the view stays inside it.
          this.inflight?.abort();
          this.meta.absorb(found);
          this.showDetail(buildLayer(found, this.names, [t0, t1]), 0);
        }
        done({ lane: `${hit.pid}:${hit.tid}`, raw: hit, start: Number(hit.ts), dur: Number(hit.dur ?? 0), name: hit.name ?? '' });
        return;
      }
      if (t0 <= span[0] && t1 >= span[1]) { note.textContent = 'No event of this host\'s trace has this flow id; its partner may be on another host.'; return; }
    }
  }
}

// Search over the events loaded so far: dims the rest and steps through
// matches. A streamed trace holds only part of the events: Enter asks the
// server to search the whole trace, then steps through its answers.
function bindSearch(ctx: PageContext, view: TraceView, names: NameTable, windows: TraceWindows, bar: TraceLayout): void {
  const { search, searchInfo, nextBtn } = bar;
  const canStream = windows.canStream;
  let matches: Selected[] = [];
  let matchIndex = -1;
  let highlightIds = new Set<number>();
  let searchedFor = '';
  const runHighlight = (ids: Set<number>) => { for (const i of ids) highlightIds.add(i); view.setHighlight(highlightIds); };
  const runSearch = () => {
    highlightIds = new Set<number>();
    const q = search.value.trim().toLowerCase();
    matches = []; matchIndex = -1;
    if (!q) { view.setHighlight(null); searchInfo.textContent = ''; return; }
    const ids = new Set<number>();
    names.names.forEach((n, i) => { if (n.toLowerCase().includes(q)) ids.add(i); });
    const seen = new Set<string>();
    for (const layer of [windows.base, windows.detail]) if (layer) for (const lane of layer.lanes.values()) for (const row of lane.rows) {
      for (let i = 0; i < row.name.length; i++) {
        if (!ids.has(row.name[i])) continue;
        const key = `${lane.key}|${row.start[i]}|${row.name[i]}`;
        if (seen.has(key)) continue;  // the same event in the base and the detail layer
        seen.add(key);
        matches.push({ lane: lane.key, raw: row.raw[i], start: row.start[i], dur: row.dur[i], name: names.names[row.name[i]] });
      }
    }
    matches.sort((a, b) => a.start - b.start);
    searchedFor = '';
    runHighlight(ids);
    searchInfo.textContent = `${fmtNum(matches.length)} matching events loaded${canStream ? ' (Enter searches the whole trace)' : ''}`;
  };
  search.addEventListener('input', runSearch);
  const next = () => {
    if (!matches.length) return;
    matchIndex = (matchIndex + 1) % matches.length;
    const m = matches[matchIndex];
    const w = Math.max(m.dur * 4, 2);  // the match fills a quarter of the view
    view.setView(m.start + m.dur / 2 - w / 2, m.start + m.dur / 2 + w / 2);
    view.select(m);
    searchInfo.textContent = `match ${matchIndex + 1} of ${fmtNum(matches.length)}`;
  };
  nextBtn.addEventListener('click', next);
  const searchServer = async (q: string) => {
    searchInfo.textContent = 'searching the whole trace…';
    try {
      const res = await fetchJson<TraceJson & { searchTruncated?: boolean }>(dataUrl(ctx.sel, { search_prefix: q, resolution: 0, replace_model: 'false' }), ctx.signal);
      const ids = new Set<number>();
      const seen = new Set(matches.map((m) => `${m.lane}|${m.start}|${m.name}`));
      for (const e of res.traceEvents ?? []) {
        if (e.ph !== 'X' && e.ph !== 'i' && e.ph !== 'I') continue;
        const name = e.name ?? '', lane = `${e.pid}:${e.tid}`, start = Number(e.ts);
        ids.add(names.id(name));
        if (seen.has(`${lane}|${start}|${name}`)) continue;
        seen.add(`${lane}|${start}|${name}`);
        matches.push({ lane, raw: e, start, dur: Number(e.dur ?? 0), name });
      }
      matches.sort((a, b) => a.start - b.start);
      runHighlight(ids);
      searchInfo.textContent = `${fmtNum(matches.length)} matches in the whole trace${res.searchTruncated ? ' (truncated)' : ''}`;
    } catch (e) {
      if ((e as Error).name !== 'AbortError') searchInfo.textContent = `search failed: ${(e as Error).message}`;
    }
  };
  // Enter pressed again while the whole-trace search runs steps through its answer, not through the loaded matches.
  let searching: Promise<void> = Promise.resolve();
  search.addEventListener('keydown', async (e) => {
    if (e.key === 'Escape') { search.blur(); view.canvas.focus(); return; }  // hand W/A/S/D back to the timeline
    if (e.key !== 'Enter') return;
    const q = search.value.trim();
    if (canStream && q && q !== searchedFor) { searchedFor = q; searching = searchServer(q); }
    await searching;
    next();
  });
}

// The program an XLA op ran in, on TPUs: the event of its device's
// `XLA Modules` line that spans the op's start ("" when none is loaded).
function enclosingModule(view: TraceView, s: Selected): string {
  const pid = s.lane.slice(0, s.lane.indexOf(':'));
  for (const layer of view.layers()) {
    for (const lane of layer?.lanes.values() ?? []) {
      if (lane.pid !== pid || lane.key === s.lane || view.meta.threadNames.get(lane.key) !== 'XLA Modules') continue;
      for (const row of lane.rows) {
        const i = firstVisible(row, s.start);
        if (i < row.start.length && row.start[i] <= s.start && s.start <= row.start[i] + row.dur[i]) return view.names.names[row.name[i]];
      }
    }
  }
  return '';
}

function showDetails(box: HTMLElement, s: Selected | null, view: TraceView, hasGraphs: boolean,
  followFlow: (s: Selected, note: HTMLElement, target?: Selected) => Promise<void>): void {
  clear(box);
  if (!s) { box.appendChild(el('p', { class: 'hint' }, 'No event here.')); return; }
  const row = (k: string, v: string) => el('tr', {}, el('th', {}, k), el('td', {}, v));
  const table = el('table', { class: 'kv' },
    row('Name', s.name), row('Lane', view.laneTitle(s.lane)), row('Start', fmtPreciseUs(s.start)),
    row('Duration', fmtPreciseUs(s.dur)), row('End', fmtPreciseUs(s.start + s.dur)));
  if (s.raw.cat) table.appendChild(row('Category', String(s.raw.cat)));
  for (const [k, v] of Object.entries(s.raw.args ?? {})) table.appendChild(row(k, typeof v === 'object' ? JSON.stringify(v) : String(v)));
  box.append(el('h3', {}, 'Event'), table);
  const hloLinks = hloLinksForEvent(s.name, s.raw.args, { moduleOnLine: enclosingModule(view, s), hasGraphs });
  if (hloLinks) box.appendChild(hloLinks);
  // Flow links (launch <-> kernel): list the partners that are loaded; a click jumps there.
  if (s.raw.bind_id !== undefined) {
    const partners = flowPartners(view.layers(), s.raw.bind_id, view.names).filter((p) => !(p.lane === s.lane && p.start === s.start));
    const list = el('ul', { class: 'flows' });
    for (const p of partners) {
      const link = el('button', { class: 'link-button' }, `${p.name} (${view.laneTitle(p.lane)})`);
      link.addEventListener('click', () => { void followFlow(s, note, p); });
      list.appendChild(el('li', {}, link));
    }
    const note = el('p', { class: 'hint', id: 'trace-flow-note' }, partners.length ? '' : 'The linked event is outside the loaded window.');
    const follow = el('button', { id: 'trace-follow-flow', title: 'Select the linked event, fetching it when it is not loaded' }, 'Go to the linked event');
    follow.addEventListener('click', () => { void followFlow(s, note).catch((e) => { if ((e as Error).name !== 'AbortError') note.textContent = `Could not fetch: ${(e as Error).message}`; }); });
    table.appendChild(row('Flow id', String(s.raw.bind_id)));
    box.append(el('h3', {}, `Flow ${s.raw.flow_out ? 'to' : 'from'}`));
    if (partners.length) box.append(list);
    box.append(follow, note);
  }
}

const KEYS: [string, string][] = [
  ['W / S', 'zoom in / out around the mouse'], ['A / D', 'pan left / right'], ['← / →', 'previous / next event of the selected event\'s row'],
  ['F', 'fit the view to the selection (range or event)'], ['Z', 'show the whole trace'], ['Shift+drag', 'select a range: its length and a table of the events in it'],
  ['Esc', 'clear the range'], ['Click', 'select an event and show its details'], ['Drag', 'move the view'],
  ['Wheel', 'scroll the lanes, or zoom (see the wheel setting); Ctrl+wheel zooms, Shift+wheel pans'], ['?', 'show or hide this help'],
];

function helpDialog(): HTMLElement {
  const box = el('div', { class: 'trace-help', id: 'trace-help', role: 'dialog', 'aria-label': 'Trace viewer keys' },
    el('h3', {}, 'Keys and mouse'),
    el('table', { class: 'kv' }, ...KEYS.map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, v)))),
    el('p', { class: 'hint' }, 'Press ? or Esc to close.'));
  box.hidden = true;
  box.addEventListener('click', () => { box.hidden = true; });
  window.addEventListener('keydown', (e) => { if (e.key === 'Escape') box.hidden = true; });
  return box;
}

// Dragging the splitter sets the details panel's width (kept between 180 px and 70% of the window).
function resizable(splitter: HTMLElement, panel: HTMLElement): void {
  const saved = Number(localStorage.getItem('tbprof.trace.details'));
  if (saved > 0) panel.style.width = `${saved}px`;
  splitter.addEventListener('mousedown', (e) => {
    e.preventDefault();
    const x0 = e.clientX, w0 = panel.getBoundingClientRect().width;
    const move = (m: MouseEvent) => {
      const w = Math.max(180, Math.min(window.innerWidth * 0.7, w0 + (x0 - m.clientX)));
      panel.style.width = `${Math.round(w)}px`;
    };
    const up = () => {
      window.removeEventListener('mousemove', move); window.removeEventListener('mouseup', up);
      localStorage.setItem('tbprof.trace.details', String(Math.round(panel.getBoundingClientRect().width)));
      window.dispatchEvent(new Event('resize'));
    };
    window.addEventListener('mousemove', move); window.addEventListener('mouseup', up);
  });
}

// The events of the chosen lanes that overlap the range, by name: count, and the total and average of the
// time each spends inside the range (a step that starts before the range adds only its part after the start).
// An event served twice (the same lane, start, duration and name) is counted once.
export function rangeAggregate(layer: Layer | null, lanes: string[], t0: number, t1: number, names: NameTable):
  Map<string, { count: number; total: number }> {
  const agg = new Map<string, { count: number; total: number }>();
  const seen = new Set<string>();
  for (const key of new Set(lanes)) {
    for (const row of layer?.lanes.get(key)?.rows ?? []) {
      for (let i = firstVisible(row, t0); i < row.start.length && row.start[i] <= t1; i++) {
        const start = row.start[i], end = start + row.dur[i];
        if (end < t0) continue;
        const id = `${key}|${start}|${row.dur[i]}|${row.name[i]}`;
        if (seen.has(id)) continue;
        seen.add(id);
        const name = names.names[row.name[i]];
        const a = agg.get(name) ?? { count: 0, total: 0 };
        a.count++; a.total += Math.max(0, Math.min(end, t1) - Math.max(start, t0));
        agg.set(name, a);
      }
    }
  }
  return agg;
}

function showAggregate(box: HTMLElement, b: BoxSelection, view: TraceView): void {
  clear(box);
  const { layer, which } = view.layerFor(b.t0, b.t1);
  const agg = rangeAggregate(layer, b.lanes, b.t0, b.t1, view.names);
  const rows = Array.from(agg, ([name, a]) => ({ name, ...a })).sort((x, y) => y.total - x.total);
  const count = rows.reduce((s, r) => s + r.count, 0);
  const table = el('table', { class: 'grid aggregate', id: 'trace-aggregate', 'data-lanes': JSON.stringify(b.lanes), 'data-range': `${b.t0},${b.t1}`, 'data-layer': which },
    el('thead', {}, el('tr', {}, el('th', {}, 'Name'), el('th', { class: 'num' }, 'Count'), el('th', { class: 'num', title: 'The time of these events inside the range' }, 'Total'), el('th', { class: 'num', title: 'Total ÷ count: the average time inside the range' }, 'Average'))),
    el('tbody', {}, ...rows.map((r) => el('tr', { 'data-name': r.name, 'data-count': String(r.count), 'data-total': String(r.total) },
      el('td', { title: r.name }, r.name), el('td', { class: 'num' }, fmtNum(r.count)), el('td', { class: 'num' }, fmtUs(r.total)),
      el('td', { class: 'num' }, fmtUs(r.total / r.count))))));
  box.append(el('h3', {}, 'Selected range'),
    el('table', { class: 'kv' },
      el('tr', {}, el('th', {}, 'From'), el('td', {}, fmtPreciseUs(b.t0))), el('tr', {}, el('th', {}, 'To'), el('td', {}, fmtPreciseUs(b.t1))),
      el('tr', {}, el('th', {}, 'Length'), el('td', { id: 'trace-range-length' }, fmtPreciseUs(b.t1 - b.t0))),
      el('tr', {}, el('th', {}, 'Lanes'), el('td', {}, String(b.lanes.length))),
      el('tr', {}, el('th', {}, 'Events'), el('td', { id: 'trace-range-count' }, fmtNum(count)))),
    rows.length ? table : el('p', { class: 'hint' }, 'No events in this range.'));
  if (rows.length) box.appendChild(el('p', { class: 'hint', id: 'trace-range-clipped' }, 'Total: each event\'s time inside the range, counted once.'));
  if (which === 'base' && view.layers()[1]) box.appendChild(el('p', { class: 'hint' }, 'Counted from the coarse layer: the range reaches outside the loaded detail window.'));
}
