// Trace viewer page. With trace_viewer@ the server returns a resolution-limited
// view; as the user zooms or pans, the visible window (×3, as xprof's viewer
// fetches) is re-requested at a resolution matching the canvas width.
import { el, clear, message } from '../dom';
import { PageContext } from '../page';
import { dataUrl, fetchJson } from '../api';
import { buildLayer, flowPartners, Layer, NameTable, TraceJson, TraceMeta } from './model';
import { TraceView, Selected } from './view';
import { fmtNum, fmtUs } from '../format';
import { hloLinksForEvent } from '../pages/xla_common';

const FETCH_RATIO = 3;      // fetched window = visible window × 3
const REFETCH_ZOOM = 2;     // refetch once zoomed in 2× past the fetched detail

export async function renderTraceViewer(ctx: PageContext): Promise<void> {
  const streaming = ctx.sel.tool.startsWith('trace_viewer@');
  const root = ctx.root;
  const search = el('input', { type: 'search', id: 'trace-search', placeholder: 'Search loaded events by name…', 'aria-label': 'Search events' });
  const searchInfo = el('span', { class: 'hint', id: 'trace-search-info' });
  const nextBtn = el('button', { id: 'trace-next', title: 'Go to the next match' }, 'Next ▸');
  const zoomIn = el('button', { id: 'trace-zoom-in', title: 'Zoom in (W)' }, '+');
  const zoomOut = el('button', { id: 'trace-zoom-out', title: 'Zoom out (S)' }, '−');
  const reset = el('button', { id: 'trace-reset', title: 'Show the whole trace' }, 'Fit');
  const status = el('span', { class: 'trace-status', id: 'trace-status', role: 'status' });
  const canvasHost = el('div', { class: 'trace-host' });
  const details = el('aside', { class: 'trace-details', id: 'trace-details' }, el('p', { class: 'hint' }, 'Click an event to see its details. W/S zoom, A/D pan, drag to move, Ctrl+wheel zooms.'));
  root.append(el('div', { class: 'toolbar' }, zoomIn, zoomOut, reset, search, nextBtn, searchInfo, status), el('div', { class: 'trace-layout' }, canvasHost, details));

  const names = new NameTable(), meta = new TraceMeta();
  const view = new TraceView(canvasHost, names, meta);
  const resolutionFor = () => Math.max(100, Math.round(view.plotWidth / 2) * 8);

  const first = await ctx.load<TraceJson>(streaming ? { resolution: resolutionFor() } : {});
  const events = first.traceEvents ?? [];
  meta.absorb(events);
  const base = buildLayer(events, names);
  if (base.eventCount === 0) {
    clear(root);
    root.appendChild(message('empty', 'No trace events data returned for this host.'));
    return;
  }
  const span: [number, number] = Array.isArray(first.fullTimespan) && first.fullTimespan[1] > first.fullTimespan[0]
    ? [first.fullTimespan[0] * 1000, first.fullTimespan[1] * 1000] : [base.minTs, base.maxTs];
  const canStream = streaming && first.filteredByVisibility === true;
  let detail: Layer | null = null;
  let detailViewWidth = Infinity;
  let loadingWindow = false;
  const counterMsg = first.showCounterMessage ?? '';

  const url = new URL(location.href);
  const vs = Number(url.searchParams.get('view_start')), ve = Number(url.searchParams.get('view_end'));
  view.bounds = span;
  view.setLayers(base, null);
  if (Number.isFinite(vs) && Number.isFinite(ve) && ve > vs && url.searchParams.has('view_start')) view.setView(vs * 1000, ve * 1000, false);
  else view.setView(span[0], span[1], false);

  const updateStatus = () => {
    const loaded = base.eventCount + (detail?.eventCount ?? 0);
    status.textContent = `${fmtNum(loaded)} events loaded · ${canStream ? 'streaming' : 'complete trace'}` +
      (loadingWindow ? ' · loading window…' : '') + (counterMsg ? ` · ${counterMsg}` : '');
    status.setAttribute('data-loading', loadingWindow ? 'true' : 'false');
  };
  updateStatus();

  let inflight: AbortController | null = null;
  let timer = 0;
  const maybeFetch = async () => {
    if (!canStream || ctx.signal.aborted) return;
    const v0 = view.viewStart, v1 = view.viewEnd, w = v1 - v0;
    if (w >= (span[1] - span[0]) * 0.9) {               // the base layer already covers this view
      inflight?.abort();
      if (detail) { detail = null; detailViewWidth = Infinity; view.setLayers(base, null); }
      loadingWindow = false; updateStatus();
      return;
    }
    const win = detail?.windowUs;
    if (win && v0 >= win[0] && v1 <= win[1] && w * REFETCH_ZOOM > detailViewWidth) return;
    inflight?.abort();
    const abort = new AbortController();
    inflight = abort;
    ctx.signal.addEventListener('abort', () => abort.abort());
    const f0 = Math.max(span[0], v0 - w * (FETCH_RATIO - 1) / 2), f1 = Math.min(span[1], v1 + w * (FETCH_RATIO - 1) / 2);
    loadingWindow = true; updateStatus();
    try {
      const res = await fetchJson<TraceJson>(dataUrl(ctx.sel, { resolution: resolutionFor(), start_time_ms: f0 / 1000, end_time_ms: f1 / 1000 }), abort.signal);
      if (abort.signal.aborted) return;
      meta.absorb(res.traceEvents ?? []);
      detail = buildLayer(res.traceEvents ?? [], names, [f0, f1]);
      detailViewWidth = w;
      view.setLayers(base, detail);
      loadingWindow = false; updateStatus();
      root.setAttribute('data-windows-loaded', String(Number(root.getAttribute('data-windows-loaded') ?? '0') + 1));
    } catch (e) {
      if ((e as Error).name === 'AbortError') return;
      loadingWindow = false; updateStatus();
      status.textContent += ` · window failed: ${(e as Error).message}`;
    } finally {
      if (inflight === abort) inflight = null;
    }
  };
  view.onViewChange = () => {
    const u = new URL(location.href);
    u.searchParams.set('view_start', (view.viewStart / 1000).toFixed(6));
    u.searchParams.set('view_end', (view.viewEnd / 1000).toFixed(6));
    history.replaceState(null, '', u.toString());
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void maybeFetch(), 150);
  };
  view.onSelect = (s) => showDetails(details, s, view);

  zoomIn.addEventListener('click', () => view.zoomBy(0.5));
  zoomOut.addEventListener('click', () => view.zoomBy(2));
  reset.addEventListener('click', () => view.setView(span[0], span[1]));

  // Search over the events loaded so far: dims the rest and steps through matches.
  let matches: Selected[] = [];
  let matchIndex = -1;
  let highlightIds = new Set<number>();
  const runHighlight = (ids: Set<number>) => { for (const i of ids) highlightIds.add(i); view.setHighlight(highlightIds); };
  const runSearch = () => {
    highlightIds = new Set<number>();
    const q = search.value.trim().toLowerCase();
    matches = []; matchIndex = -1;
    if (!q) { view.setHighlight(null); searchInfo.textContent = ''; return; }
    const ids = new Set<number>();
    names.names.forEach((n, i) => { if (n.toLowerCase().includes(q)) ids.add(i); });
    const seen = new Set<string>();
    for (const layer of [base, detail]) if (layer) for (const lane of layer.lanes.values()) for (const row of lane.rows) {
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
  // A streamed trace holds only part of the events: Enter asks the server to
  // search the whole trace, then steps through its answers.
  let searchedFor = '';
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
  search.addEventListener('keydown', async (e) => {
    if (e.key === 'Escape') { search.blur(); view.canvas.focus(); return; }  // hand W/A/S/D back to the timeline
    if (e.key !== 'Enter') return;
    const q = search.value.trim();
    if (canStream && q && q !== searchedFor) { searchedFor = q; await searchServer(q); }
    next();
  });
  root.setAttribute('data-streaming', String(canStream));
}

function showDetails(box: HTMLElement, s: Selected | null, view: TraceView): void {
  clear(box);
  if (!s) { box.appendChild(el('p', { class: 'hint' }, 'No event here.')); return; }
  const row = (k: string, v: string) => el('tr', {}, el('th', {}, k), el('td', {}, v));
  const table = el('table', { class: 'kv' },
    row('Name', s.name), row('Lane', view.laneTitle(s.lane)), row('Start', fmtUs(s.start)),
    row('Duration', fmtUs(s.dur)), row('End', fmtUs(s.start + s.dur)));
  if (s.raw.cat) table.appendChild(row('Category', String(s.raw.cat)));
  for (const [k, v] of Object.entries(s.raw.args ?? {})) table.appendChild(row(k, typeof v === 'object' ? JSON.stringify(v) : String(v)));
  box.append(el('h3', {}, 'Event'), table);
  const hloLinks = hloLinksForEvent(s.name, s.raw.args);
  if (hloLinks) box.appendChild(hloLinks);
  // Flow links (launch <-> kernel): list the partners that are loaded; a click jumps there.
  if (s.raw.bind_id !== undefined) {
    const partners = flowPartners(view.layers(), s.raw.bind_id, view.names).filter((p) => !(p.lane === s.lane && p.start === s.start));
    const list = el('ul', { class: 'flows' });
    for (const p of partners) {
      const link = el('button', { class: 'link-button' }, `${p.name} (${view.laneTitle(p.lane)})`);
      link.addEventListener('click', () => {
        const w = Math.max(view.viewEnd - view.viewStart, Math.abs(p.start - s.start) * 3);
        view.setView(p.start + p.dur / 2 - w / 2, p.start + p.dur / 2 + w / 2);
        view.select(p);
      });
      list.appendChild(el('li', {}, link));
    }
    box.append(el('h3', {}, `Flow ${s.raw.flow_out ? 'to' : 'from'}`), partners.length ? list : el('p', { class: 'hint' }, 'The linked event is outside the loaded window.'));
  }
}
