// Checks of the trace viewer page in real Chromium: counts, search, details to the ns, keys, range
// selection, flows and streaming windows, each against the events the server serves.
const n = (x) => x.toLocaleString('en-US');

// Trace events the viewer counts: slices, instants, B/E pairs and counter samples.
export function expectedTraceCount(json) {
  let count = 0;
  for (const e of json.traceEvents ?? []) {
    if (['X', 'i', 'I', 'R', 'n', 'E'].includes(e.ph)) count++;
    else if (e.ph === 'C') count += Array.isArray(e.entries) ? e.entries.length : Object.keys(e.args ?? {}).length;
  }
  return count;
}

export const streamingSeen = { count: 0 };
export const flowFetchSeen = { count: 0 };
export const derivedLaneSeen = { count: 0 };

// "1.234567890 s", "12.345678 ms", "19.600 µs" back to µs. Shown to the ns, so a value may be off by half a ns (6e-4 µs allows it).
function toUs(text) {
  const m = /(-?[\d.,]+)\s*(s|ms|µs|ns)\b/.exec(text ?? '');
  if (!m) throw new Error(`no time in "${text}"`);
  const v = Number(m[1].replace(/,/g, ''));
  return v * { s: 1e6, ms: 1e3, 'µs': 1, ns: 1e-3 }[m[2]];
}
// The served events within 1 µs of a time, in full detail (a streamed page holds only part of them).
async function servedAround(firstUrl, us) {
  const base = new URL(firstUrl);
  const q = new URLSearchParams({ ...Object.fromEntries(base.searchParams), resolution: '0', start_time_ms: String((us - 1) / 1000), end_time_ms: String((us + 1) / 1000) });
  return (await (await fetch(`${base.origin}${base.pathname}?${q}`)).json()).traceEvents ?? [];
}
async function detailValue(page, key) {
  return page.$$eval('#trace-details table.kv tr', (rows, k) => rows.find((r) => r.querySelector('th')?.textContent === k)?.querySelector('td')?.textContent ?? '', key);
}
// What the search box finds: names containing the text, whatever the case.
const searchFinds = (text, name) => String(name).toLowerCase().includes(String(text).toLowerCase());
// The page's own URL: Playwright's page.url() learns of history.replaceState later, so it can lag a key press.
const pageHref = (page) => page.evaluate(() => location.href);
const viewMs = async (page) => { const q = new URL(await pageHref(page)).searchParams; return [Number(q.get('view_start')), Number(q.get('view_end'))]; };

// The ruler counts from the profile's start: each tick's label is the time of its x position less the start of the
// served fullTimespan (to the tick's pixel and the label's printed digits).
export async function checkRuler(page, json, assert) {
  if (!Array.isArray(json.fullTimespan)) return;
  await page.waitForTimeout(100);  // a frame for the last view change
  const ruler = JSON.parse(await page.getAttribute('.trace-canvas', 'data-ruler'));
  const [v0, v1] = await viewMs(page);
  const width = await page.evaluate(() => document.querySelector('.trace-canvas').getBoundingClientRect().width);
  const usPerPx = ((v1 - v0) * 1000) / (width - ruler.plotLeft);
  assert(ruler.ticks.length > 0, 'the ruler shows no time');
  for (const [x, label] of ruler.ticks) {
    const want = v0 * 1000 + (x - ruler.plotLeft) * usPerPx - json.fullTimespan[0] * 1000;
    const decimals = /[.](\d+)/.exec(label)?.[1].length ?? 0;
    const unit = toUs(`1 ${/(s|ms|µs|ns)\s*$/.exec(label)?.[1]}`);
    const tol = 1.5 * usPerPx + 0.5 * 10 ** -decimals * unit + 1e-6 * Math.abs(want);
    assert(Math.abs(toUs(label) - want) <= tol, `ruler tick "${label}" at x=${x}: ${want.toFixed(3)} µs after the profile start (±${tol.toFixed(3)})`);
  }
}

// The range's length label stays off the ruler and inside the timeline; the range table fits the details panel.
async function checkRangeLayout(page, assert) {
  const ruler = JSON.parse(await page.getAttribute('.trace-canvas', 'data-ruler'));
  const label = (await page.getAttribute('.trace-canvas', 'data-range-label'))?.split(',').map(Number);
  assert(label, 'the range has no length label on the timeline');
  const canvasWidth = await page.evaluate(() => document.querySelector('.trace-canvas').getBoundingClientRect().width);
  const [lx, ly, lw] = label;
  assert(ly >= ruler.height, `the range label (top ${ly}) overlaps the ruler (${ruler.height} px high)`);
  assert(lx >= ruler.plotLeft - 2 && lx + lw <= canvasWidth, `the range label (${lx}..${lx + lw}) leaves the timeline`);
  const fit = await page.evaluate(() => {
    const panel = document.querySelector('#trace-details'), table = document.querySelector('#trace-aggregate');
    const clipped = table ? Array.from(table.querySelectorAll('td.num, th')).filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent) : [];
    return { over: panel.scrollWidth - panel.clientWidth, tableRight: table?.getBoundingClientRect().right ?? 0,
      panelRight: panel.getBoundingClientRect().right, clipped };
  });
  assert(fit.over <= 1 && fit.tableRight <= fit.panelRight + 0.5, `the range table is wider than its panel by ${Math.max(fit.over, fit.tableRight - fit.panelRight)} px`);
  assert(fit.clipped.length === 0, `range table cells cut: ${fit.clipped.slice(0, 3).join(' | ')}`);
}

// ←/→ step through the selected event's row, F fits it, Z shows everything, ? opens the key help.
async function checkTraceKeys(page, json, assert, firstUrl) {
  const before = { name: await detailValue(page, 'Name'), start: toUs(await detailValue(page, 'Start')), dur: toUs(await detailValue(page, 'Duration')),
    lane: await detailValue(page, 'Lane') };
  await page.keyboard.press('ArrowRight');
  let after = { name: await detailValue(page, 'Name'), start: toUs(await detailValue(page, 'Start')), lane: await detailValue(page, 'Lane') };
  let dir = 'ArrowLeft';
  if (after.start === before.start) { await page.keyboard.press('ArrowLeft'); after = { name: await detailValue(page, 'Name'), start: toUs(await detailValue(page, 'Start')), lane: await detailValue(page, 'Lane') }; dir = 'ArrowRight'; }
  if (after.start !== before.start) {
    assert(after.lane === before.lane, `arrow key left the lane: ${before.lane} -> ${after.lane}`);
    if (dir === 'ArrowLeft') assert(after.start >= before.start + before.dur - 6e-4, `next event starts at ${after.start}, before the end of ${before.start}+${before.dur}`);
    else assert(after.start < before.start, `previous event starts at ${after.start}, not before ${before.start}`);
    assert((await servedAround(firstUrl, after.start)).some((e) => e.name === after.name && Math.abs(e.ts - after.start) < 6e-4), `stepped to ${after.name}@${after.start}, not a served event`);
    await page.keyboard.press(dir);
    const back = { name: await detailValue(page, 'Name'), start: toUs(await detailValue(page, 'Start')) };
    assert(back.name === before.name && Math.abs(back.start - before.start) < 6e-4, `${dir} did not return to ${before.name}@${before.start}`);
  }
  await page.keyboard.press('f');
  const [f0, f1] = await viewMs(page);
  await checkRuler(page, json, assert);
  // The view never widens past the trace with 5% margins: an event as long as the trace is fitted to that.
  const widest = Array.isArray(json.fullTimespan) ? (json.fullTimespan[1] - json.fullTimespan[0]) * 1.1 : Infinity;
  const want = Math.min(Math.max(before.dur * 1.2, before.dur + 2e-3) / 1000, widest);
  assert(Math.abs((f1 - f0) - want) <= Math.max(want * 0.01, 3e-6), `F: view ${f1 - f0} ms, selection ${before.dur} µs wants ${want} ms`);
  assert(f0 * 1000 <= before.start && f1 * 1000 >= before.start + before.dur, 'F: the selection is not inside the view');
  await page.keyboard.press('z');
  const [z0, z1] = await viewMs(page);
  if (Array.isArray(json.fullTimespan)) assert(z0 <= json.fullTimespan[0] + 1e-6 && z1 >= json.fullTimespan[1] - 1e-6, `Z: view ${z0}–${z1} ms is not the whole trace ${json.fullTimespan}`);
  await page.keyboard.press('?');
  assert(await page.isVisible('#trace-help'), '? does not open the key help');
  assert((await page.textContent('#trace-help')).includes('Shift+drag'), 'the key help lacks the range selection');
  await page.keyboard.press('Escape');
  assert(!(await page.isVisible('#trace-help')), 'Esc does not close the key help');
  // The details panel is as wide as the splitter is dragged.
  const panel = async () => (await (await page.$('#trace-details')).boundingBox()).width;
  const w0 = await panel(), sp = await (await page.$('#trace-splitter')).boundingBox();
  await page.mouse.move(sp.x + sp.width / 2, sp.y + 50); await page.mouse.down();
  await page.mouse.move(sp.x + sp.width / 2 - 120, sp.y + 50, { steps: 4 }); await page.mouse.up();
  assert(Math.abs(await panel() - (w0 + 120)) <= 2, `details panel ${await panel()} px after widening ${w0} px by 120`);
  await page.evaluate(() => localStorage.removeItem('tbprof.trace.details'));  // the width is kept for the next pages
  // In "wheel zooms" mode a plain wheel zooms in.
  await page.selectOption('#trace-wheel', 'zoom');
  const cv = await (await page.$('.trace-canvas')).boundingBox();
  await page.mouse.move(cv.x + cv.width * 0.5, cv.y + 80);
  const [a0, a1] = await viewMs(page);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((w) => { const q = new URL(location.href).searchParams; return Number(q.get('view_end')) - Number(q.get('view_start')) < w * 0.9; }, a1 - a0);
  await page.selectOption('#trace-wheel', 'scroll');
}

// "Go to the linked event" selects the event with the same flow id, fetching it when it is not loaded.
async function checkFollowFlow(page, json, assert, firstUrl, dataRequests) {
  const events = (json.traceEvents ?? []).filter((e) => e.ph === 'X' && e.name);
  // Prefer a flow whose partner the first (coarse) response lacks, so that following it needs a fetch.
  const flows = new Map();
  for (const e of json.traceEvents ?? []) if (e.bind_id !== undefined) flows.set(String(e.bind_id), (flows.get(String(e.bind_id)) ?? 0) + 1);
  // A name held by one end of its flows only: a kernel launch named after its kernel (as TF names
  // them) would make the search land on the launch, whose kernel the zoom around it already loads.
  const flowing = events.filter((e) => e.bind_id !== undefined &&
    events.every((x) => x.name !== e.name || (x.bind_id !== undefined && !!x.flow_out === !!e.flow_out)));
  const flowName = (flowing.find((e) => flows.get(String(e.bind_id)) === 1) ?? flowing[0])?.name;
  if (!flowName) return;
  await page.fill('#trace-search', flowName);
  await page.press('#trace-search', 'Enter');
  await page.waitForFunction(() => /^match /.test(document.querySelector('#trace-search-info')?.textContent ?? ''), null, { timeout: 60000 });
  // Step through the matches to one whose partner the first (coarse) response lacks, when there is one.
  const inFirst = (fid) => (json.traceEvents ?? []).filter((e) => String(e.bind_id) === fid).length;
  for (let i = 0; i < 40 && inFirst(await detailValue(page, 'Flow id')) > 1; i++) await page.press('#trace-search', 'Enter');
  await page.fill('#trace-search', '');
  const id = await detailValue(page, 'Flow id'), start = toUs(await detailValue(page, 'Start'));
  assert(id, `${flowName}: the details show no flow id`);
  // The whole view holds only the coarse layer, where a flow's partner is usually missing: it must be fetched.
  await page.press('#trace-search', 'Escape');  // the keys go to the timeline again
  await page.keyboard.press('z');
  await page.waitForTimeout(400);
  const before = dataRequests.length;
  const startText = await detailValue(page, 'Start');
  await page.click('#trace-follow-flow');
  await page.waitForFunction((s) => { const rows = Array.from(document.querySelectorAll('#trace-details table.kv tr'));
    const v = (k) => rows.find((r) => r.querySelector('th')?.textContent === k)?.querySelector('td')?.textContent;
    return v('Flow id') !== undefined && v('Start') !== s; }, startText, { timeout: 60000 })
    .catch(async () => { throw new Error(`following flow ${id} selected nothing (${await page.textContent('#trace-flow-note').catch(() => '')})`); });
  assert(await detailValue(page, 'Flow id') === id, `followed flow ${id} to flow ${await detailValue(page, 'Flow id')}`);
  if (dataRequests.slice(before).some((u) => /[?&]resolution=0(&|$)/.test(u) && /[?&]start_time_ms=/.test(u))) flowFetchSeen.count++;
  const pStart = toUs(await detailValue(page, 'Start')), pName = await detailValue(page, 'Name');
  // The partner is a served event with that flow id, at that time.
  assert((await servedAround(firstUrl, pStart)).some((e) => String(e.bind_id) === id && e.name === pName && Math.abs(e.ts - pStart) < 6e-4),
    `flow ${id}: ${pName}@${pStart} µs is not a served event with that flow id (from ${start} µs)`);
}

// Shift+drag over the timeline: the table counts, per name, the served events of the chosen lanes in the range.
// Shift+drag over 30–60% of the whole view, over every lane on screen; then the range's label and table layout.
export async function checkTraceViewerRange(page, assert) {
  await page.keyboard.press('z');
  await page.waitForTimeout(400);  // the whole view drops any detail window
  const bb = await (await page.$('.trace-canvas')).boundingBox();
  const x0 = bb.x + 230 + (bb.width - 230) * 0.3, x1 = bb.x + 230 + (bb.width - 230) * 0.6;
  await page.keyboard.down('Shift');
  await page.mouse.move(x0, bb.y + 40); await page.mouse.down();
  await page.mouse.move(x1, bb.y + bb.height - 10, { steps: 5 }); await page.mouse.up();
  await page.keyboard.up('Shift');
  await page.waitForSelector('#trace-range-length', { timeout: 10000 });
  await page.waitForTimeout(100);  // the frame that draws the range
  await checkRangeLayout(page, assert);
}

async function checkBoxSelect(page, json, assert) {
  await checkTraceViewerRange(page, assert);
  const agg = await page.$('#trace-aggregate');
  if (!agg) { assert((await page.textContent('#trace-details')).includes('No events'), 'no aggregate table and no "no events"'); return; }
  const lanes = new Set(JSON.parse(await agg.getAttribute('data-lanes')));
  const [t0, t1] = (await agg.getAttribute('data-range')).split(',').map(Number);
  assert(Math.abs(toUs(await page.textContent('#trace-range-length')) - (t1 - t0)) < 6e-4, 'range length differs from the range');
  const rows = await page.$$eval('#trace-aggregate tbody tr', (r) => r.map((x) => ({ name: x.dataset.name, count: Number(x.dataset.count), total: Number(x.dataset.total) })));
  const total = Number((await page.textContent('#trace-range-count')).replace(/,/g, ''));
  assert(total === rows.reduce((s, r) => s + r.count, 0), 'the event total is not the sum of the rows');
  if (await agg.getAttribute('data-layer') !== 'base' || (json.traceEvents ?? []).some((e) => e.ph === 'B')) return;
  // Each served event once (the same lane, start, duration and name twice is one event), and only its time
  // inside the range: an event that starts before the range adds its part after t0, one ending after it its part before t1.
  const want = new Map(), seen = new Set();
  for (const e of json.traceEvents ?? []) {
    if (!['X', 'i', 'I', 'R', 'n'].includes(e.ph) || !lanes.has(`${e.pid}:${e.tid}`)) continue;
    const d = e.ph === 'X' ? Math.max(0, Number(e.dur ?? 0)) : 0;
    if (e.ts > t1 || e.ts + d < t0) continue;
    const id = `${e.pid}:${e.tid}|${e.ts}|${d}|${e.name ?? ''}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const w = want.get(e.name ?? '') ?? { count: 0, total: 0 };
    w.count++; w.total += Math.min(e.ts + d, t1) - Math.max(e.ts, t0); want.set(e.name ?? '', w);
  }
  const rangeLength = t1 - t0;
  for (const r of rows) assert(r.total <= r.count * rangeLength * (1 + 1e-9), `${r.name}: ${r.total} µs in a ${rangeLength} µs range over ${r.count} events`);
  assert(rows.length === want.size, `${rows.length} names in the range table, ${want.size} served`);
  for (const r of rows) {
    const w = want.get(r.name);
    assert(w && w.count === r.count && Math.abs(w.total - r.total) <= 1e-6 * Math.max(1, w.total), `${r.name}: ${r.count} events / ${r.total} µs shown, ${w?.count} / ${w?.total} served`);
  }
}

// A GPU plane's derived timelines ("Steps", "XLA Ops - from #16", …) are threads like any other: an event of
// one, found by the search box, is shown on the lane of that name.
async function checkDerivedLane(page, json, assert) {
  const threadName = new Map(), processName = new Map();
  for (const e of json.traceEvents ?? []) {
    if (e.ph !== 'M') continue;
    if (e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, String(e.args?.name));
    if (e.name === 'process_name') processName.set(String(e.pid), String(e.args?.name));
  }
  const isDerived = (name) => name === 'Steps' || name === 'Launch Stats' || / - from #-?\d+$/.test(name ?? '');
  const slices = (json.traceEvents ?? []).filter((e) => e.ph === 'X' && e.name);
  const laneOf = (e) => `${e.pid}:${e.tid}`;
  // The search box matches names containing the text: pick a name only that derived lane holds. A streamed
  // trace loads more events as it is zoomed, whose names the first response cannot rule out: the longest
  // name is the least likely to be in one of them (a host step shows the name its GPU step has, and a name
  // scope such as "model" is in many op names).
  const pick = slices.filter((e) => isDerived(threadName.get(laneOf(e))) &&
    slices.every((o) => laneOf(o) === laneOf(e) || !searchFinds(e.name, o.name)))
    .sort((a, b) => b.name.length - a.name.length)[0];
  if (!pick) return;
  derivedLaneSeen.count++;
  await page.fill('#trace-search', pick.name);
  await page.press('#trace-search', 'Enter');
  await page.waitForFunction(() => /^match /.test(document.querySelector('#trace-search-info')?.textContent ?? ''), null, { timeout: 60000 });
  const lane = await detailValue(page, 'Lane');
  const want = `${processName.get(String(pick.pid)) ?? pick.pid} / ${threadName.get(laneOf(pick))}`;
  assert(lane === want, `derived event ${pick.name} is shown on lane "${lane}"; the server put it on "${want}"`);
  await page.fill('#trace-search', '');
}

export async function checkTraceViewer({ page, assert, dataRequests, tool }) {
  {
    // Threads that share a name are told apart: no two lanes of one process read the same.
    await page.waitForSelector('canvas[data-lane-titles]', { timeout: 60000 });
    const titles = JSON.parse(await page.getAttribute('canvas[data-lane-titles]', 'data-lane-titles'));
    const seen = new Set(), same = [];
    for (const [pid, title] of titles) { const k = `${pid}\u0000${title}`; if (seen.has(k)) same.push(title); seen.add(k); }
    assert(same.length === 0, `lanes of one process with the same title: ${[...new Set(same)].slice(0, 5).join(', ')}`);
  }
  assert(dataRequests.length >= 1, 'no trace request made');
  const first = dataRequests[0];
  const json = await (await fetch(first)).json();
  const expected = expectedTraceCount(json);
  const status = await page.textContent('#trace-status');
  assert(status.startsWith(`${n(expected)} events loaded`), `status "${status}" but the response has ${expected} events`);
  await page.waitForFunction(() => document.querySelector('.trace-canvas')?.width > 0);
  // Search a name present in the response, jump to it: the details panel shows it. The search box matches
  // names containing the text, so the name must be in no other name (BatchV2 is in BatchV2::Map).
  const names = [...new Set((json.traceEvents ?? []).filter((e) => e.ph === 'X' && e.name).map((e) => e.name))];
  const unique = new Set(names.filter((m) => names.every((o) => o === m || !searchFinds(m, o))));
  const ev = (json.traceEvents ?? []).filter((e) => e.ph === 'X' && unique.has(e.name)).sort((a, b) => b.dur - a.dur)[0];
  if (ev) {
    await page.fill('#trace-search', ev.name);
    await page.press('#trace-search', 'Enter');
    await page.waitForFunction(() => /^match /.test(document.querySelector('#trace-search-info')?.textContent ?? ''), null, { timeout: 60000 });
    const details = await page.textContent('#trace-details');
    assert(details.includes(ev.name), `details panel does not show ${ev.name}`);
    // Click on the highlighted box itself.
    await page.waitForFunction(() => document.querySelector('.trace-canvas')?.dataset.selectedX !== undefined, null, { timeout: 10000 })
      .catch(() => { throw new Error('the selected event is not drawn'); });
    const box = await page.evaluate(() => { const c = document.querySelector('.trace-canvas'); return { x: Number(c.dataset.selectedX), y: Number(c.dataset.selectedY) }; });
    assert(Number.isFinite(box.x) && Number.isFinite(box.y), 'selected event has no position');
    // Start and duration to the nanosecond, in units: the served ts and dur of an event of that name.
    const shownStart = toUs(await detailValue(page, 'Start')), shownDur = toUs(await detailValue(page, 'Duration'));
    const same = (await servedAround(first, shownStart)).filter((e) => e.name === ev.name && e.ph === 'X');
    assert(same.some((e) => Math.abs(e.ts - shownStart) < 6e-4 && Math.abs(e.dur - shownDur) < 6e-4),
      `details show start ${shownStart} µs, duration ${shownDur} µs; no served ${ev.name} has them`);
    await page.fill('#trace-search', '');
    await page.mouse.click(box.x, box.y);
    const again = await page.textContent('#trace-details');
    assert(again.includes('Duration'), 'clicking an event shows no details');
    await checkTraceKeys(page, json, assert, first);
  }
  // Ctrl+wheel over the timeline zooms in around the mouse.
  await page.click('#trace-reset');
  const viewWidth = async () => { const [v0, v1] = await viewMs(page); return v1 - v0; };
  const tl = await (await page.$('.trace-canvas')).boundingBox();
  await page.mouse.move(tl.x + tl.width * 0.5, tl.y + 80);
  const wideView = await viewWidth();
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -600);
  await page.keyboard.up('Control');
  await page.waitForFunction((w) => { const q = new URL(location.href).searchParams; return Number(q.get('view_end')) - Number(q.get('view_start')) < w * 0.9; }, wideView);
  await checkBoxSelect(page, json, assert);
  await checkFollowFlow(page, json, assert, first, dataRequests);
  // Last of the checks on the whole view: jumping to the event loads a window around it.
  await checkDerivedLane(page, json, assert);
  if (!tool.startsWith('trace_viewer@') || json.filteredByVisibility !== true) return;
  streamingSeen.count++;
  // Whole-trace search through the server: the match count is the server's.
  const searched = await (await fetch(`${first.split('?')[0]}?${new URLSearchParams({ ...Object.fromEntries(new URL(first).searchParams), search_prefix: ev.name, resolution: '0', replace_model: 'false' })}`)).json();
  const hits = new Set((searched.traceEvents ?? []).filter((e) => e.ph === 'X' || e.ph === 'i' || e.ph === 'I').map((e) => `${e.pid}:${e.tid}|${e.ts}|${e.name}`));
  await page.fill('#trace-search', ev.name);
  await page.press('#trace-search', 'Enter');
  await page.waitForFunction(() => /^match /.test(document.querySelector('#trace-search-info')?.textContent ?? ''), null, { timeout: 60000 });
  const info = await page.textContent('#trace-search-info');
  assert(info.endsWith(`of ${n(hits.size)}`) || Number(info.split(' of ')[1].replace(/,/g, '')) >= hits.size, `search shows "${info}", server found ${hits.size}`);
  await page.fill('#trace-search', '');
  // Zoom with the keyboard; a narrower window must be fetched and drawn.
  const span = json.fullTimespan[1] - json.fullTimespan[0];
  await page.click('#trace-reset');
  await page.waitForTimeout(400);  // let a fetch started by the search navigation settle
  const before = dataRequests.length;
  const loadedBefore = Number(await page.getAttribute('.page', 'data-windows-loaded') ?? 0);
  const canvas = await page.$('.trace-canvas');
  const bb = await canvas.boundingBox();
  await page.mouse.move(bb.x + bb.width * 0.6, bb.y + 60);
  for (let i = 0; i < 12; i++) await page.keyboard.press('w');
  // Wait until the newest request is a narrow window and nothing is loading any more.
  const windowWidth = (u) => { const q = new URL(u).searchParams; return q.has('end_time_ms') ? Number(q.get('end_time_ms')) - Number(q.get('start_time_ms')) : Infinity; };
  const deadline = Date.now() + 60000;
  for (;;) {
    const last = dataRequests[dataRequests.length - 1];
    const idle = await page.getAttribute('#trace-status', 'data-loading') === 'false';
    if (dataRequests.length > before && windowWidth(last) < span / 4 && idle) break;
    assert(Date.now() < deadline, `no narrow window fetched after zooming (last request: ${last})`);
    await page.waitForTimeout(100);
  }
  assert(Number(await page.getAttribute('.page', 'data-windows-loaded') ?? 0) > loadedBefore, 'no window was loaded');
  const w = new URL(dataRequests[dataRequests.length - 1]).searchParams;
  const width = Number(w.get('end_time_ms')) - Number(w.get('start_time_ms'));
  assert(width > 0, `fetched window ${width} ms`);
  assert(Number(w.get('resolution')) > 0, 'window fetched without a resolution');
  const drawMs = await page.getAttribute('.trace-canvas', 'data-draw-ms');
  console.log(`  trace: zoomed window ${width.toFixed(3)} ms of ${span.toFixed(3)} ms at resolution ${w.get('resolution')}; ` +
    `${await page.textContent('#trace-status')}; last frame drawn in ${drawMs} ms`);
  // Pan with A/D: the view moves (URL keeps it) and the page stays responsive.
  const v0 = new URL(await pageHref(page)).searchParams.get('view_start');
  for (let i = 0; i < 3; i++) await page.keyboard.press('d');
  await page.waitForFunction((old) => new URL(location.href).searchParams.get('view_start') !== old, v0);
  // A deep link to this narrow window loads the window's detail at once, without any input.
  await page.waitForTimeout(300);
  const link = await pageHref(page);
  const fresh = await page.context().newPage();
  const windowRequests = [];
  fresh.on('request', (r) => { if (/[?&]start_time_ms=/.test(r.url())) windowRequests.push(r.url()); });
  await fresh.goto(link, { waitUntil: 'load' });
  await fresh.waitForSelector('.page[data-windows-loaded]', { timeout: 60000 }).catch(() => { throw new Error(`deep link ${link} loaded no window`); });
  const q = new URL(link).searchParams, w0 = new URL(windowRequests[0]).searchParams;
  assert(Number(w0.get('start_time_ms')) <= Number(q.get('view_start')) && Number(w0.get('end_time_ms')) >= Number(q.get('view_end')),
    `deep-link window ${w0.get('start_time_ms')}–${w0.get('end_time_ms')} does not cover the view ${q.get('view_start')}–${q.get('view_end')}`);
  await fresh.close();
}
