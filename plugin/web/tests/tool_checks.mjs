// Per-tool checks: each page must show the figures in the server's own /data
// response. Expected strings are derived here from the raw JSON, independently
// of the UI code.
const table = (data, i) => (Array.isArray(data) ? data[i] : i === 0 ? data : null);
const isTable = (t) => t && Array.isArray(t.cols) && Array.isArray(t.rows);
const col = (t, id) => t.cols.findIndex((c) => c.id === id);
const n = (x) => x.toLocaleString('en-US');

async function gridRows(page, name) {
  const text = await page.textContent(`.grid-wrap[data-grid="${name}"] .grid-status`);
  const m = /^([\d,]+) of ([\d,]+) rows/.exec(text ?? '');
  if (!m) throw new Error(`grid ${name} has no row status (${text})`);
  return Number(m[2].replace(/,/g, ''));
}
const pageText = (page) => page.evaluate(() => document.body.innerText);

function findTable(data, test) { return (Array.isArray(data) ? data : [data]).find((t) => isTable(t) && test(t)) ?? null; }

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

export const checks = {
  async overview_page({ page, data, assert }) {
    const text = await pageText(page);
    const sp = table(data, 1)?.p ?? {};
    if (sp.steptime_ms_average !== undefined) assert(text.includes(`${sp.steptime_ms_average} ms`), `average step time ${sp.steptime_ms_average} not shown`);
    const ap = table(data, 0)?.p ?? {};
    for (const k of ['device_duty_cycle_percent', 'host_idle_time_percent', 'mxu_utilization_percent']) {
      if (ap[k] !== undefined) assert(text.includes(ap[k]), `${k}=${ap[k]} not shown`);
    }
    const env = (Array.isArray(data) ? data[2] : null)?.p ?? {};
    if (env.device_type) assert(text.includes(env.device_type), `device type ${env.device_type} not shown`);
    const ops = table(data, 0);
    if (isTable(ops) && ops.rows.length) assert(await gridRows(page, 'top-ops') === ops.rows.length, 'top-ops row count differs');
    const steps = table(data, 1);
    if (isTable(steps) && steps.rows.length) {
      const bars = await page.$$eval('[data-chart="overview-steps"] rect.bar', (r) => r.length);
      assert(bars > 0, 'step-time chart has no bars');
      const inputCols = steps.cols.filter((c) => /infeed|input/i.test(c.id) && !/percent/i.test(c.id) && c.type === 'number');
      const hasInput = inputCols.some((c) => steps.rows.some((r) => Number(r.c[col(steps, c.id)]?.v) > 0));
      if (hasInput) {
        const red = await page.$$eval('[data-chart="overview-steps"] rect.bar', (r) => r.filter((x) => x.getAttribute('fill') === '#d62728').length);
        assert(red > 0, 'input share is not drawn in red');
      }
    }
    const reco = table(data, 3)?.p ?? {};
    if (reco.bottleneck) assert(text.includes(reco.bottleneck), 'bottleneck not shown');
  },

  async input_pipeline_analyzer({ page, data, assert }) {
    const text = await pageText(page);
    const steps = findTable(data, (t) => t.cols.some((c) => c.id === 'stepnum' || c.id === 'stepname'));
    if (steps?.p?.steptime_ms_average) assert(text.includes(`${steps.p.steptime_ms_average} ms`), 'average step time not shown');
    if (steps?.p?.steptime_ms_maximum) assert(text.includes(`${steps.p.steptime_ms_maximum} ms`), 'max step time not shown');
    const ops = findTable(data, (t) => t.cols.some((c) => c.id === 'opName'));
    if (ops && ops.rows.length) {
      assert(await gridRows(page, 'input-ops') === ops.rows.length, 'input-op row count differs');
      await page.click('.grid-wrap[data-grid="input-ops"] th[data-col="count"]');
      const first = await page.textContent('.grid-wrap[data-grid="input-ops"] tbody tr td.num');
      const counts = ops.rows.map((r) => Number(r.c[col(ops, 'count')]?.v));
      assert(Number(first.replace(/,/g, '')) === Math.max(...counts), `sorting by count: first ${first}, max ${Math.max(...counts)}`);
    }
  },

  async framework_op_stats({ page, data, assert, api, run, tool, host }) {
    const withIdle = table(data, 0), withoutIdle = table(data, 1) ?? withIdle;
    if (!isTable(withIdle)) return;
    if (withIdle.rows.length) assert(await gridRows(page, 'op-stats') === withIdle.rows.length, 'op rows (with idle) differ');
    await page.click('#include-idle');
    if (withoutIdle.rows.length) assert(await gridRows(page, 'op-stats') === withoutIdle.rows.length, 'op rows (without idle) differ');
    const slices = await page.$$eval('[data-chart] .slice, [data-chart] circle', (s) => s.length);
    if (withIdle.rows.length) assert(slices > 0, 'no pie slices drawn');
    // Filter on an op name; every remaining row must contain it.
    const opCol = col(withIdle, 'operation');
    const name = String(withoutIdle.rows[0]?.c[opCol]?.v ?? '');
    if (name) {
      await page.fill('.grid-wrap[data-grid="op-stats"] .grid-filter', name);
      const rows = await gridRows(page, 'op-stats');
      const shown = Number((await page.textContent('.grid-wrap[data-grid="op-stats"] .grid-status')).split(' ')[0].replace(/,/g, ''));
      assert(shown >= 1 && shown <= rows, `filter on ${name} shows ${shown} rows`);
    }
    const href = await page.getAttribute('#csv-export', 'href');
    assert(href && href.includes('data_csv') && href.includes(`tag=${encodeURIComponent(tool)}`), `CSV link wrong: ${href}`);
    const csv = await api('data_csv', { run, tag: tool, host });
    assert(csv.status === 200 && csv.text.split('\n')[0].includes(withIdle.cols[0].label), `data_csv answered ${csv.status}`);
  },

  async kernel_stats({ page, data, assert }) {
    const t = isTable(data) ? data : table(data, 0);
    if (!isTable(t) || t.rows.length === 0) return;
    assert(await gridRows(page, 'kernels') === t.rows.length, 'kernel row count differs');
    const ki = col(t, 'kernel_name'), di = col(t, 'total_duration_us');
    const top = t.rows.slice().sort((a, b) => Number(b.c[di]?.v) - Number(a.c[di]?.v))[0];
    const chartText = await page.textContent('[data-chart="top-kernels"]');
    assert(chartText.includes(String(top.c[ki].v).slice(0, 40)), 'top kernel missing from chart');
    const headers = await page.$$eval('.grid-wrap[data-grid="kernels"] th', (h) => h.map((x) => x.getAttribute('data-col')));
    for (const id of ['is_op_tensor_core_eligible', 'is_kernel_using_tensor_core']) {
      if (col(t, id) >= 0) assert(headers.includes(id), `TensorCore column ${id} missing`);
    }
  },

  async memory_profile({ page, data, assert }) {
    const ids = data.memoryIds?.length ? data.memoryIds : Object.keys(data.memoryProfilePerAllocator ?? {});
    const a = data.memoryProfilePerAllocator?.[ids[0]];
    if (!a) return;
    const text = await pageText(page);
    const gib = (b) => `${(Number(b) / 1024 ** 3).toFixed(2)} GiB`;
    const peak = a.profileSummary?.peakBytesUsageLifetime;
    if (peak !== undefined && Number(peak) >= 1024 ** 3) assert(text.includes(gib(peak)), `peak heap ${gib(peak)} not shown`);
    const snaps = a.sampledTimelineSnapshots?.length ? a.sampledTimelineSnapshots : a.memoryProfileSnapshots ?? [];
    if (snaps.length) assert(await page.$('[data-chart="memory-timeline"] path.line') !== null, 'no timeline lines');
    const live = (a.activeAllocations ?? []).filter((x) => (Number(x.snapshotIndex) >= 0 && a.memoryProfileSnapshots?.[Number(x.snapshotIndex)])
      || (Number(x.snapshotIndex) < 0 && Number(x.specialIndex) >= 0 && a.specialAllocations?.[Number(x.specialIndex)]));
    if (live.length) assert(await gridRows(page, 'memory-breakdown') === live.length, 'breakdown row count differs');
  },

  async tf_data_bottleneck_analysis({ page, data, assert }) {
    const graph = table(data, 0), summary = table(data, 1), bottleneck = table(data, 2);
    if (!isTable(summary) || summary.rows.length === 0) return;
    assert(await gridRows(page, 'pipelines') === summary.rows.length, 'pipeline row count differs');
    if (bottleneck?.p?.summary_message) assert((await pageText(page)).includes(bottleneck.p.summary_message.replace(/<[^>]*>/g, '').slice(0, 40)), 'summary message missing');
    if (isTable(graph) && graph.rows.length) {
      const h = col(graph, 'host'), p = col(graph, 'input_pipeline'), r = col(graph, 'rank'), ty = col(graph, 'type');
      const first = graph.rows[0].c;
      const ranks = graph.rows.filter((x) => x.c[h].v === first[h].v && x.c[p].v === first[p].v).map((x) => Number(x.c[r].v));
      const minRank = Math.min(...ranks);
      const mine = graph.rows.filter((x) => x.c[h].v === first[h].v && x.c[p].v === first[p].v && Number(x.c[r].v) === minRank);
      assert(await page.$$eval('[data-chart="pipeline-graph"] g.node', (g) => g.length) === mine.length, 'graph node count differs');
      const red = mine.filter((x) => Number(x.c[ty].v) === 2).length;
      assert(await page.$$eval('[data-chart="pipeline-graph"] g.node.bottleneck', (g) => g.length) === red, 'bottleneck highlighting differs');
    }
  },

  async pod_viewer({ page, data, assert }) {
    const steps = data.podStatsSequence?.podStatsMap ?? [];
    if (!steps.length) return;
    const cores = Object.keys(steps[0].podStatsPerCore ?? {});
    assert(await gridRows(page, 'pod-cores') === cores.length, 'core row count differs');
    const hosts = new Set(Object.values(steps[0].podStatsPerCore ?? {}).map((c) => c.hostName ?? 'unknown'));
    const labels = await page.$$eval('[data-chart="pod-hosts"] text.axis', (t) => t.map((x) => x.textContent));
    for (const h of hosts) assert(labels.includes(h), `host ${h} missing from chart`);
  },

  async trace_viewer({ page, assert, dataRequests, tool }) {
    assert(dataRequests.length >= 1, 'no trace request made');
    const first = dataRequests[0];
    const json = await (await fetch(first)).json();
    const expected = expectedTraceCount(json);
    const status = await page.textContent('#trace-status');
    assert(status.startsWith(`${n(expected)} events loaded`), `status "${status}" but the response has ${expected} events`);
    await page.waitForFunction(() => document.querySelector('.trace-canvas')?.width > 0);
    // Search a name present in the response, jump to it: the details panel shows it.
    const ev = (json.traceEvents ?? []).filter((e) => e.ph === 'X' && e.name).sort((a, b) => b.dur - a.dur)[0];
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
      await page.fill('#trace-search', '');
      await page.mouse.click(box.x, box.y);
      const again = await page.textContent('#trace-details');
      assert(again.includes('Duration'), 'clicking an event shows no details');
    }
    // Ctrl+wheel over the timeline zooms in around the mouse.
    await page.click('#trace-reset');
    const viewWidth = () => { const q = new URL(page.url()).searchParams; return Number(q.get('view_end')) - Number(q.get('view_start')); };
    const tl = await (await page.$('.trace-canvas')).boundingBox();
    await page.mouse.move(tl.x + tl.width * 0.5, tl.y + 80);
    const wideView = viewWidth();
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -600);
    await page.keyboard.up('Control');
    await page.waitForFunction((w) => { const q = new URL(location.href).searchParams; return Number(q.get('view_end')) - Number(q.get('view_start')) < w * 0.9; }, wideView);
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
    const v0 = new URL(page.url()).searchParams.get('view_start');
    for (let i = 0; i < 3; i++) await page.keyboard.press('d');
    await page.waitForFunction((old) => new URL(location.href).searchParams.get('view_start') !== old, v0);
  },
};
