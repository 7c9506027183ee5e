// The trace analysis page against its /data answer: one row per rank in the rank table, the served shares in its
// bars ("—" where the server has none), sorting by a column, the charts drawn from the served rows, no "NaN" or
// "undefined" anywhere, the framework's own words; and the critical-path link, which opens the trace viewer with
// the step's path drawn as flows. Expected figures are computed here from the raw JSON, not by the page's code.

const pct = (v) => `${v.toFixed(1)}%`;
// The served ranks, and for each the row of a one-row-per-rank section that is its own: two hosts may state the same
// rank, and the server names every row's host beside its rank.
const ranksOf = (data) => data.ranks ?? [];
const rowOf = (rows, r) => (rows ?? []).find((x) => x.rank === r.rank && x.host === r.host);
// Pages whose operator roofline drew points (the walk must see one: a run with recorded shapes is in the logdir).
export const rooflineSeen = { count: 0, underDatasheetRoofs: 0 };
const WORDS = { PyTorch: /DataLoader/, TensorFlow: /tf\.data/, JAX: /jax\.jit/ };

async function rankCells(page, col) {
  return page.$$eval(`.grid-wrap[data-grid="ta-ranks"] tbody tr`, (trs, c) => trs.map((tr) => ({
    rank: Number(tr.querySelector('td[data-col="rank"]').textContent), host: tr.querySelector('td[data-col="host"]')?.textContent ?? null,
    text: tr.querySelector(`td[data-col="${c}"]`)?.textContent ?? null })), col);
}

async function checkRankTable(page, data, assert) {
  const ranks = ranksOf(data);
  const status = await page.textContent('.grid-wrap[data-grid="ta-ranks"] .grid-status');
  assert(new RegExp(`^${ranks.length} of ${ranks.length} rows`).test(status), `rank table: "${status}" for ${ranks.length} ranks`);
  const several = new Set(ranks.map((r) => r.host)).size > 1;
  const cellOf = (cells, r) => cells.find((c) => c.rank === r.rank && (!several || c.host === r.host));
  // Each rank's idle and compute bars show the served share; a rank without one shows "—".
  for (const [col, key] of [['idle', 'idle_time_pctg'], ['compute', 'compute_time_pctg'], ['non_compute', 'non_compute_time_pctg']]) {
    const cells = await rankCells(page, col);
    for (const r of ranks) {
      const served = rowOf(data.temporal_breakdown?.rows, r)?.[key];
      const cell = cellOf(cells, r);
      const want = typeof served === 'number' ? pct(served) : '—';
      assert(cell && cell.text === want, `rank ${r.rank} (${r.host}) ${col}: shows "${cell?.text}", served ${served} (${want})`);
    }
  }
  const overlap = await rankCells(page, 'overlap');
  for (const r of ranks) {
    const row = rowOf(data.comm_comp_overlap?.rows, r);
    if (!row) continue;
    const v = row.comp_comm_overlap_pctg, cell = cellOf(overlap, r);
    assert(cell && cell.text === (typeof v === 'number' ? pct(v) : '—'), `rank ${r.rank} (${r.host}) overlap: shows "${cell?.text}", served ${v}`);
  }
  // Sorting: a click on the idle column orders the ranks by their served idle share, largest first.
  if (ranks.length > 1) {
    await page.click('.grid-wrap[data-grid="ta-ranks"] th[data-col="idle"]');
    const shown = (await rankCells(page, 'idle')).map((c) => (c.text === '—' ? -Infinity : Number(c.text.replace('%', ''))));
    const want = ranks.map((r) => rowOf(data.temporal_breakdown?.rows, r)?.idle_time_pctg).map((v) => (typeof v === 'number' ? Number(v.toFixed(1)) : -Infinity))
      .sort((a, b) => b - a);
    assert(shown.join() === want.join(), `sorted by idle: ${shown}, want ${want}`);
  }
}

async function checkCharts(page, data, assert) {
  const types = (data.kernel_breakdown?.kernel_types ?? []).filter((k) => typeof k.sum_us === 'number' && k.sum_us > 0);
  const bars = await page.$$eval('[data-chart="ta-kernel-types"] rect.bar', (r) => r.length);
  assert(bars === types.length, `kernel types chart: ${bars} bars, ${types.length} served types with time`);
  const idle = (data.idle_time_breakdown?.rows ?? []).filter((r) => typeof r.idle_time_us === 'number' && r.idle_time_us > 0);
  assert(await page.$$eval('[data-chart="ta-idle-breakdown"] rect.bar', (r) => r.length) === idle.length, 'idle breakdown bars differ from the served rows');
  const series = data.queue_length?.series ?? [];
  if (series.length) {
    // The chart opens on the first rank the series name (its first block of rows).
    const mine = [];
    for (const s of series) { if (s.rank !== series[0].rank || mine.some((m) => m.stream === s.stream && m.device === s.device)) break; mine.push(s); }
    const first = series[0].rank;
    const paths = await page.$$eval('[data-chart="ta-queue"] path.line', (p) => p.map((x) => Number(x.getAttribute('data-points'))));
    assert(paths.length === mine.length && paths.every((n, i) => n === mine[i].points.length), `queue curves ${JSON.stringify(paths)} for rank ${first}'s ${mine.length} streams`);
  }
  const hist = data.kernel_launch?.delay_histogram ?? [];
  if (hist.length) {
    const bins = hist[0].bins.filter((b) => b.count > 0);
    const drawn = await page.$$eval('[data-chart="ta-launch-delay"] rect.bar', (r) => r.map((x) => Number(x.getAttribute('data-value'))));
    assert(drawn.join() === bins.map((b) => b.count).join(), `launch-delay histogram ${drawn} for counts ${bins.map((b) => b.count)}`);
  }
  const rows = data.op_roofline?.rows ?? [];
  const plotted = rows.filter((r) => r.arithmetic_intensity > 0 && r.tflops_per_s > 0).length;
  assert(await page.$$eval('[data-chart="ta-roofline"] circle.point', (c) => c.length) === plotted, `roofline points differ from the ${plotted} served operators with known figures`);
  if (plotted) rooflineSeen.count++;
  const roofs = data.op_roofline?.peaks ?? {};
  if (plotted && typeof roofs.tflops === 'number') assert(await page.$('[data-chart="ta-roofline"] [data-roof="compute"]'), 'no compute roof drawn');
  // Every precision's served peak is a flat roof at that height; the memory roof is drawn where the bandwidth is served.
  const peaks = ['fp32_tflops', 'tf32_tflops', 'fp16_tflops', 'bf16_tflops'].map((k) => roofs[k]).filter((v) => typeof v === 'number');
  if (plotted && peaks.length) {
    const drawn = await page.$$eval('[data-chart="ta-roofline"] [data-roof="compute"]', (p) => p.map((x) => Number(x.getAttribute('data-tflops'))));
    assert([...new Set(peaks)].sort((a, b) => a - b).join() === drawn.sort((a, b) => a - b).join(), `compute roofs drawn at ${drawn}, served peaks ${peaks}`);
    if (typeof roofs.memory_gbps === 'number') assert(await page.$('[data-chart="ta-roofline"] [data-roof="memory"]'), 'no memory roof drawn');
    const text = await page.textContent('#ta-roofs');
    if (roofs.datasheet) assert(text.includes(roofs.datasheet), `the roofs line "${text}" does not name the datasheet ${roofs.datasheet}`);
    // Each drawn operator's colour class is its served bound.
    const bounds = await page.$$eval('[data-chart="ta-roofline"] circle.point', (c) => c.map((x) => x.getAttribute('data-bound')).sort());
    const served = rows.filter((r) => r.arithmetic_intensity > 0 && r.tflops_per_s > 0).map((r) => r.bound ?? '').sort();
    assert(bounds.join() === served.join(), 'roofline points\' bounds differ from the served ones');
    if (roofs.datasheet && served.some((b) => b)) rooflineSeen.underDatasheetRoofs++;
  }
  // A row's host is the server's: every row names one.
  for (const section of ['temporal_breakdown', 'comm_comp_overlap', 'stragglers', 'op_roofline']) {
    for (const r of data[section]?.rows ?? []) assert(typeof r.host === 'string', `${section} row of rank ${r.rank} names no host`);
  }
  const drawnSomething = await page.$$eval('[data-chart^="ta-"]', (cs) => cs.some((c) => c.querySelector('rect.bar, path.line, circle.point')));
  if (types.length) assert(drawnSomething, 'no chart of the page is drawn');
}

export const traceAnalysisChecks = {
  async trace_analysis({ page, data, assert, api, run }) {
    const text = await page.evaluate(() => document.querySelector('.page').innerText);
    const bad = /\bNaN\b|undefined|Infinity/.exec(text);
    assert(!bad, `the page shows "${bad?.[0]}": …${text.slice(Math.max(0, (bad?.index ?? 0) - 60), (bad?.index ?? 0) + 60)}…`);
    const fw = data.framework ?? 'PyTorch';
    assert(await page.getAttribute('.page', 'data-framework') === fw, `framework ${await page.getAttribute('.page', 'data-framework')}, served ${fw}`);
    assert(WORDS[fw].test(text), `the advice is not in ${fw}'s words`);
    await checkRankTable(page, data, assert);
    await checkCharts(page, data, assert);
    const cp = data.critical_path ?? {};
    const tools = (await api('run_tools', { run })).json ?? [];
    // A profile that marks no steps has the whole profile's path: the link names no step.
    if ((typeof cp.step === 'number' || cp.whole_profile === true) && (cp.segments ?? []).length && tools.some((t) => /^trace_viewer/.test(t))) {
      const href = await page.getAttribute('#ta-critical-path-link', 'href');
      const q = new URLSearchParams(href?.slice(1) ?? '');
      const want = typeof cp.step === 'number' ? String(cp.step) : '';
      assert(q.get('critical_path') === want && /^trace_viewer/.test(q.get('tool') ?? ''), `critical path link: ${href}`);
      assert(await page.getAttribute('#ta-critical-path', 'data-segments') === String(cp.segments.length), 'critical path segment count differs');
    }
  },
};

// Flows of one category in a trace answer, joined as the viewer joins them: one arrow per consecutive pair of an id.
export function servedArrows(trace, cat) {
  const byId = new Map();
  for (const e of trace.traceEvents ?? []) if (['s', 't', 'f'].includes(e.ph) && e.cat === cat) byId.set(String(e.id), (byId.get(String(e.id)) ?? 0) + 1);
  let n = 0;
  for (const count of byId.values()) n += count - 1;
  return n;
}

// From the page of the first run whose critical path has segments: the link opens the trace viewer, which asks for
// the step's path and draws it as arrows on screen. Required of every server whose tool table has trace_analysis
// (the dev mock's has no such tool and no critical-path flows in its trace).
export async function runCriticalPathLinkTest({ test, openPage, waitReady, api, base, shot, assert, runs }) {
  const table = (await api('tool_table', {})).json;
  if (!Array.isArray(table) || !table.some((t) => t.name === 'trace_analysis')) return;
  let found = null;
  for (const run of runs) {
    const tools = (await api('run_tools', { run })).json ?? [];
    if (!tools.includes('trace_analysis')) continue;
    const host = ((await api('hosts', { run, tag: 'trace_analysis' })).json ?? []).map((h) => h.hostname).find((h) => h !== 'ALL_HOSTS');
    const d = (await api('data', { run, tag: 'trace_analysis', host })).json;
    if (typeof d?.critical_path?.step === 'number' && (d.critical_path.segments ?? []).length) {
      found = { run, host, step: d.critical_path.step, other: (d.critical_path.steps ?? []).find((s) => s !== d.critical_path.step) };
      break;
    }
  }
  await test('trace_analysis: a page drew its operator roofline', async () => {
    assert(rooflineSeen.count > 0, 'no trace_analysis page had an operator with known FLOPs and bytes to draw');
  });
  await test('trace_analysis: a page drew its operators under a GPU datasheet\'s roofs, each with its bound', async () => {
    assert(rooflineSeen.underDatasheetRoofs > 0, 'no trace_analysis page drew operators under roofs from a datasheet');
  });
  await test('trace_analysis: the critical-path link opens the trace viewer with the step\'s path as flows', async () => {
    assert(found, 'no run has a trace_analysis critical path with segments');
    const { run, host, other } = found;
    let { step } = found;
    const { page, errors } = await openPage(`${base}/?${new URLSearchParams({ run, tool: 'trace_analysis', host })}`);
    try {
      assert(await waitReady(page, 120000) === 'true', 'trace_analysis page not ready');
      // Another step chosen: its path (the server's answer for step=N) and a link to it.
      if (other !== undefined) {
        await page.selectOption('#ta-step', String(other));
        await page.waitForSelector(`#ta-critical-path[data-step="${other}"]`, { timeout: 60000 });
        const served = (await api('data', { run, tag: 'trace_analysis', host, step: String(other) })).json.critical_path;
        assert(await page.getAttribute('#ta-critical-path', 'data-segments') === String(served.segments.length), `step ${other}: segment count differs from the server's`);
        step = other;
      }
      await page.click('#ta-critical-path-link');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('tool')?.startsWith('trace_viewer'), null, { timeout: 30000 });
      assert(await waitReady(page, 120000) === 'true', 'trace viewer not ready');
      const url = new URL(page.url());
      assert(url.searchParams.get('critical_path') === String(step), `the trace viewer lost the step: ${page.url()}`);
      const trace = (await api('data', { run, tag: url.searchParams.get('tool'), host: url.searchParams.get('host'), critical_path: String(step), resolution: '100' })).json;
      const want = servedArrows(trace, 'critical_path');
      assert(want > 0, `the server's trace for critical_path=${step} has no critical_path flows`);
      const shown = Number(await page.getAttribute('#trace-critical-path', 'data-arrows'));
      assert(shown >= want, `the viewer knows ${shown} critical-path arrows, the first answer has ${want}`);
      await page.waitForFunction(() => Number(document.querySelector('.trace-canvas')?.dataset.pathArrowsDrawn ?? 0) > 0, null, { timeout: 30000 });
      await shot(page, 'trace_viewer-critical-path');
      assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
    } finally { await page.close(); }
  });
}
