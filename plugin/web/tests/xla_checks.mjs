// Checks of the XLA op pages (hlo_stats, op_profile, roofline_model) and the
// links between them and from the trace viewer. Expected figures are read from
// the server's own /data responses here; the displayed text is parsed back to
// a number and must equal the served one to the precision shown.

const col = (t, id) => t.cols.findIndex((c) => c.id === id);
const cell = (t, r, id) => { const i = col(t, id); const c = i < 0 ? null : t.rows[r]?.c?.[i]; return c === null || c === undefined ? null : c.v; };
const DASH = '—';

// "1,234.5" / "1.23e-4" / "12.5%" -> number.
function parseShown(text) {
  const m = /^\s*(-?[\d,]*\.?\d+(?:e[-+]?\d+)?)\s*%?\s*$/i.exec(text);
  return m ? Number(m[1].replace(/,/g, '')) : NaN;
}

// The tables print at most 2 decimals, or 3 significant digits in exponent form.
function sameNumber(shown, value, digits = 2) {
  const x = parseShown(shown);
  const abs = Math.abs(value);
  const tol = abs !== 0 && (abs < 1e-3 || abs >= 1e12) ? abs * 0.006 : 0.51 * Math.pow(10, -digits);
  return Number.isFinite(x) && Math.abs(x - value) <= tol;
}

// Utilisations: one decimal from 1%, two significant digits below (never "0.0%" for a measured share).
function sameUtil(shown, pct) {
  const x = parseShown(shown);
  if (pct === 0) return x === 0;
  const tol = Math.abs(pct) >= 1 ? 0.051 : Math.abs(pct) * 0.05;
  return Number.isFinite(x) && Math.abs(x - pct) <= tol;
}

// "12.345 ms" -> µs, and the tolerance of the 3 (1 for ns) printed decimals.
function parseDuration(text) {
  const m = /^\s*(-?[\d.]+)\s*(s|ms|µs|ns)\s*$/.exec(text);
  if (!m) return null;
  const scale = { s: 1e6, ms: 1e3, 'µs': 1, ns: 1e-3 }[m[2]];
  return { us: Number(m[1]) * scale, tol: (m[2] === 'ns' ? 0.051 : 0.00051) * scale };
}

async function gridTotal(page, name) {
  const text = await page.textContent(`.grid-wrap[data-grid="${name}"] .grid-status`);
  const m = /^([\d,]+) of ([\d,]+) rows/.exec(text ?? '');
  if (!m) throw new Error(`grid ${name} has no row status (${text})`);
  return { shown: Number(m[1].replace(/,/g, '')), total: Number(m[2].replace(/,/g, '')) };
}

// The cells of the first `n` body rows of a grid, by column id.
async function gridCells(page, name, n) {
  return page.evaluate(({ name, n }) => {
    const wrap = document.querySelector(`.grid-wrap[data-grid="${name}"]`);
    const ids = Array.from(wrap.querySelectorAll('thead th')).map((th) => th.getAttribute('data-col'));
    return Array.from(wrap.querySelectorAll('tbody tr')).slice(0, n).map((tr) => {
      const row = {};
      Array.from(tr.children).forEach((td, i) => { row[ids[i]] = td.textContent; });
      return row;
    });
  }, { name, n });
}

function checkRowCells(t, r, shown, ids, assert, fractions = new Set()) {
  for (const id of ids) {
    if (col(t, id) < 0) continue;
    const v = cell(t, r, id), text = shown[id];
    const what = `${id} of row ${r} (${cell(t, r, 'hlo_op_name') ?? cell(t, r, 'operation')})`;
    if (v === null || v === '') { assert(text === DASH, `${what}: server left it empty, page shows "${text}" instead of ${DASH}`); continue; }
    if (typeof v === 'number') {
      const value = fractions.has(id) ? v * 100 : v;
      assert(sameNumber(text, value), `${what}: page shows "${text}", server ${value}`);
    } else {
      assert(text === String(v), `${what}: page shows "${text}", server "${v}"`);
    }
  }
}

async function checkOpProfileRow(page, node, rootTime, path, assert) {
  const sel = `#op-profile-tree tr[data-path="${path}"]`;
  await page.waitForSelector(sel, { timeout: 10000 });
  const shown = await page.$eval(sel, (tr) => {
    const out = { name: tr.getAttribute('data-name') };
    for (const td of tr.querySelectorAll('td[data-col]')) out[td.getAttribute('data-col')] = td.textContent.trim();
    return out;
  });
  assert(shown.name === node.name, `row ${path} is "${shown.name}", server node "${node.name}"`);
  const m = node.metrics ?? {};
  const d = parseDuration(shown.time);
  const us = (m.rawTime ?? 0) / 1e6;
  assert(d && Math.abs(d.us - us) <= d.tol, `time of ${node.name}: page "${shown.time}", server ${m.rawTime} ps`);
  if (rootTime > 0) assert(sameUtil(shown.share, (100 * (m.rawTime ?? 0)) / rootTime), `share of ${node.name}: "${shown.share}"`);
  const bw = m.bandwidthUtils ?? [];
  if (bw.length === 0) assert(shown.hbm === DASH, `HBM utilisation of ${node.name} is unknown on the server, page "${shown.hbm}"`);
  else assert(sameUtil(shown.hbm, bw[0] * 100), `HBM utilisation of ${node.name}: page "${shown.hbm}", server ${bw[0]}`);
  // The server leaves `flops` out where the FLOPs or the peak are unknown.
  if (typeof m.flops !== 'number' || !(m.rawTime > 0)) assert(shown.flops === DASH, `FLOP utilisation of ${node.name} is unknown on the server, page "${shown.flops}"`);
  else assert(sameUtil(shown.flops, (100 * m.flops) / (m.rawTime / rootTime)), `FLOP utilisation of ${node.name}: "${shown.flops}"`);
  // Grouping nodes (root, program, framework-op path) do not run: blank, not 0.
  if (!m.occurrences && !node.xla && !node.category) assert(shown.occurrences === DASH, `occurrences of grouping node ${node.name}: "${shown.occurrences}"`);
  else assert(sameNumber(shown.occurrences, m.occurrences ?? 0, 0), `occurrences of ${node.name}: "${shown.occurrences}"`);
  return shown;
}

export const xlaChecks = {
  async hlo_stats({ page, data, assert, run, host, api, artifacts }) {
    const t = Array.isArray(data) ? data[0] : data;
    if (!t?.rows?.length) return;
    const { total } = await gridTotal(page, 'hlo-stats');
    assert(total === t.rows.length, `hlo_stats grid has ${total} rows, server ${t.rows.length}`);
    // Headers carry the server's labels (and so their units).
    const labels = await page.$$eval('.grid-wrap[data-grid="hlo-stats"] thead th', (ths) => ths.map((th) => th.textContent.replace(/ [▲▼]$/, '')));
    for (const id of ['total_time', 'normalized_flop_rate', 'hbm_bw', 'operational_intensity']) {
      assert(labels.includes(t.cols[col(t, id)].label), `column label ${t.cols[col(t, id)].label} not shown`);
    }
    // Rows are shown by rank: the first rows are the server's first rows.
    const byRank = t.rows.map((_, r) => r).sort((a, b) => cell(t, a, 'rank') - cell(t, b, 'rank'));
    const shown = await gridCells(page, 'hlo-stats', 3);
    const ids = ['rank', 'program_id', 'category', 'hlo_op_name', 'occurrences', 'total_time', 'avg_time', 'total_self_time', 'total_self_time_percent',
      'dma_stall_percent', 'model_flop_rate', 'normalized_flop_rate', 'measured_memory_bw', 'hbm_bw', 'cmem_read_bw', 'operational_intensity', 'bound_by'];
    shown.forEach((row, i) => checkRowCells(t, byRank[i], row, ids, assert));
    // CSV export is the server's data_csv.
    const href = await page.getAttribute('#csv-export', 'href');
    assert(/\/data_csv\?/.test(href), `CSV link is ${href}`);
    const csv = await page.evaluate(async (u) => { const r = await fetch(u); return { ok: r.ok, text: await r.text() }; }, href);
    assert(csv.ok && /hlo_op_name|HLO op name/.test(csv.text.split('\n')[0]), `CSV export: ${csv.text.slice(0, 80)}`);
    // Category filter: rows and top-ops bars follow it.
    const categories = [...new Set(t.rows.map((_, r) => cell(t, r, 'category')))];
    const category = categories[0];
    await page.selectOption('#hlo-category', category);
    const inCategory = t.rows.filter((_, r) => cell(t, r, 'category') === category).length;
    const after = await gridTotal(page, 'hlo-stats');
    assert(after.shown === inCategory, `category ${category}: ${after.shown} rows shown, server has ${inCategory}`);
    const bars = await page.$$eval('[data-chart="top-hlo-ops"] rect.bar', (r) => r.length);
    assert(bars === Math.min(10, inCategory), `top-ops chart has ${bars} bars for ${inCategory} rows`);
    await page.selectOption('#hlo-category', '');
    // Program filter.
    const program = cell(t, byRank[0], 'program_id');
    await page.selectOption('#hlo-program', program);
    const inProgram = t.rows.filter((_, r) => cell(t, r, 'program_id') === program).length;
    assert((await gridTotal(page, 'hlo-stats')).shown === inProgram, `program ${program}: row count differs`);
    await page.selectOption('#hlo-program', '');
    // The top op links to its op_profile row, which shows the op's time.
    const op = cell(t, byRank[0], 'hlo_op_name');
    const link = await page.$(`.grid-wrap[data-grid="hlo-stats"] a.xla-link[data-op="${op}"]`);
    assert(link, `no op_profile link for ${op}`);
    const url = new URL(await link.getAttribute('href'), page.url());
    assert(url.searchParams.get('tool') === 'op_profile' && url.searchParams.get('op') === op, `link to op_profile is ${url}`);
    // The page opens by category; the server answers one grouping per request.
    const profile = (await api('data', { run, tag: 'op_profile', host, group_by: 'category' })).json;
    // Opened beside this page, which the caller still photographs.
    const linked = await page.context().newPage();
    await linked.goto(url.toString());
    await linked.waitForSelector('.page[data-ready="true"][data-tool="op_profile"]', { timeout: 60000 });
    const selected = await linked.$('#op-profile-tree tr.selected');
    assert(selected, `op_profile opened from hlo_stats selects no row for ${op}`);
    const path = await selected.getAttribute('data-path');
    let node = profile.byCategory;
    for (const i of path.split('/').filter(Boolean)) node = node.children[Number(i)];
    assert(node.name === op || node.name === `${op} and its duplicate(s)`, `linked row is ${node.name}, wanted ${op}`);
    assert(node.xla?.programId === program, `linked row is in program ${node.xla?.programId}, wanted ${program}`);
    await checkOpProfileRow(linked, node, profile.byCategory.metrics.rawTime, path, assert);
    await linked.screenshot({ path: `${artifacts}/${run}-op_profile-linked-from-hlo_stats.png`.replace(/[^A-Za-z0-9_./-]/g, '_'), fullPage: true });
    await linked.close();
  },

  async op_profile({ page, data, api, run, host, assert }) {
    // Without group_by the server answers by program, as xprof's does; the
    // page opens by category and fetches each grouping when it is chosen.
    // (A run with a ready-made op_profile file gets that file whatever it asks.)
    if (data.byProgram) assert(!data.byCategory, 'op_profile without group_by is not by program alone');
    const grouped = async (g) => (await api('data', { run, tag: 'op_profile', host, group_by: g })).json;
    const byCategory = await grouped('category');
    const root = byCategory.byCategory;
    if (!root) return;
    const rootTime = root.metrics.rawTime;
    await checkOpProfileRow(page, root, rootTime, '', assert);
    const kids = root.children ?? [];
    if (!kids.length) return;
    await checkOpProfileRow(page, kids[0], rootTime, '0', assert);
    const visible = await page.$$eval('#op-profile-tree tbody tr[data-path]', (trs) => trs.filter((tr) => !tr.getAttribute('data-path').includes('/')).length);
    assert(visible - 1 === Math.min(10, kids.length), `top level shows ${visible - 1} nodes, server ${kids.length} (top 10)`);
    // Expand the first category that has children, down to its first op.
    const open = kids.findIndex((k) => k.children?.length);
    if (open >= 0 && open < 10) {
      await checkOpProfileRow(page, kids[open], rootTime, String(open), assert);
      await page.click(`#op-profile-tree tr[data-path="${open}"] .tree-toggle`);
      await checkOpProfileRow(page, kids[open].children[0], rootTime, `${open}/0`, assert);
    }
    // Top N.
    await page.selectOption('#op-profile-top', '5');
    const top5 = await page.$$eval('#op-profile-tree tbody tr[data-path]', (trs) => trs.filter((tr) => !tr.getAttribute('data-path').includes('/')).length);
    assert(top5 - 1 === Math.min(5, kids.length), `top 5 shows ${top5 - 1} nodes`);
    await page.selectOption('#op-profile-top', '10');
    // Without IDLE: the ExcludeIdle tree.
    await page.click('#op-profile-idle');
    const noIdle = byCategory.byCategoryExcludeIdle;
    await checkOpProfileRow(page, noIdle, noIdle.metrics.rawTime, '', assert);
    const names = await page.$$eval('#op-profile-tree tbody tr[data-path]', (trs) => trs.map((tr) => tr.getAttribute('data-name')));
    assert(!names.includes('IDLE'), 'IDLE shown although excluded');
    if (noIdle.children?.length) await checkOpProfileRow(page, noIdle.children[0], noIdle.metrics.rawTime, '0', assert);
    await page.click('#op-profile-idle');
    // By framework op: programs, then the framework-op path of their ops.
    await page.selectOption('#op-profile-grouping', 'provenance');
    await page.waitForSelector('#op-profile-tree[data-grouping="provenance"]', { timeout: 60000 });
    const byProvenance = (await grouped('provenance')).byProvenance;
    if (byProvenance?.children?.length) {
      await checkOpProfileRow(page, byProvenance, byProvenance.metrics.rawTime, '', assert);
      await checkOpProfileRow(page, byProvenance.children[0], byProvenance.metrics.rawTime, '0', assert);
    }
    // By program.
    await page.selectOption('#op-profile-grouping', 'program');
    await page.waitForSelector('#op-profile-tree[data-grouping="program"]', { timeout: 60000 });
    const byProgram = (await grouped('program')).byProgram;
    if (!byProgram) return;
    if (byProgram.children?.length) await checkOpProfileRow(page, byProgram.children[0], byProgram.metrics.rawTime, '0', assert);
    // Details of an op link back to hlo_stats (program -> category -> op).
    const pi = (byProgram.children ?? []).findIndex((k) => k.children?.length);
    const prog = byProgram.children?.[pi];
    if (pi >= 0 && pi < 10 && prog.children[0].children?.length) {
      await page.click(`#op-profile-tree tr[data-path="${pi}"] .tree-toggle`);
      await page.click(`#op-profile-tree tr[data-path="${pi}/0"] .tree-toggle`);
      const first = prog.children[0].children[0];
      await checkOpProfileRow(page, first, byProgram.metrics.rawTime, `${pi}/0/0`, assert);
      if (first.xla) {
        await page.click(`#op-profile-tree tr[data-path="${pi}/0/0"] .tree-name`);
        // FLOPs: the server's count, or unknown where it wrote none.
        const flopsShown = await page.$eval('#op-profile-details', (d) =>
          [...d.querySelectorAll('tr')].find((tr) => tr.querySelector('th')?.textContent === 'FLOPs')?.querySelector('td')?.textContent ?? null);
        const rawFlops = first.metrics?.rawFlops;
        if (typeof rawFlops !== 'number') assert(flopsShown === DASH, `FLOPs of ${first.name} are unknown on the server, details show "${flopsShown}"`);
        else assert(flopsShown !== null && sameNumber(flopsShown, rawFlops), `FLOPs of ${first.name}: details "${flopsShown}", server ${rawFlops}`);
        const href = await page.getAttribute('#op-profile-to-hlo-stats', 'href');
        const u = new URL(href, page.url());
        assert(u.searchParams.get('tool') === 'hlo_stats' && u.searchParams.get('program') === first.xla.programId, `details link ${href}`);
      }
    }
  },

  async roofline_model({ page, data, assert }) {
    const t = (Array.isArray(data) ? data : [data]).find((x) => x?.cols?.some((c) => c.id === 'operation'));
    if (!t) return;
    const p = t.p ?? {};
    const text = await page.evaluate(() => document.body.innerText);
    for (const [key, unit] of [['peak_flop_rate', 'GFLOP/s'], ['peak_hbm_bw', 'GiB/s']]) {
      if (p[key]) {
        const m = new RegExp(`([\\d,.]+) ${unit.replace('/', '\\/')}`).exec(text);
        assert(m && Math.abs(parseShown(m[1]) - Number(p[key])) <= 0.01, `${key}=${p[key]} not shown (${m?.[0]})`);
      } else {
        assert(text.includes(DASH), `${key} unknown but no ${DASH} shown`);
      }
    }
    if (p.peak_flop_rate && p.peak_hbm_bw) {
      const roofs = await page.$$eval('[data-chart="roofline"] [data-roof]', (r) => r.map((x) => x.getAttribute('data-roof')));
      assert(roofs.includes('hbm') && roofs.includes('compute'), `roofs drawn: ${roofs}`);
    }
    const rows = t.rows.map((_, r) => r).filter((r) => cell(t, r, 'include_infeed_outfeed') === true);
    const plotted = rows.filter((r) => cell(t, r, 'hbm_operational_intensity') > 0 && cell(t, r, 'measured_flop_rate') > 0);
    const points = await page.$$eval('[data-chart="roofline"] circle.point', (cs) => cs.map((c) => ({
      op: c.getAttribute('data-op'), rank: c.getAttribute('data-rank'), x: Number(c.getAttribute('data-x')), y: Number(c.getAttribute('data-y')),
      cx: Number(c.getAttribute('cx')), cy: Number(c.getAttribute('cy')) })));
    assert(points.length === plotted.length, `${points.length} points drawn, ${plotted.length} rows have a known intensity and FLOP rate`);
    const axes = await page.$eval('[data-chart="roofline"]', (s) => ({ x0: Number(s.dataset.xMin), x1: Number(s.dataset.xMax), y0: Number(s.dataset.yMin), y1: Number(s.dataset.yMax),
      plot: s.dataset.plot.split(',').map(Number) }));
    const [left, top, w, h] = axes.plot;
    for (const r of plotted.slice(0, 5)) {
      const op = cell(t, r, 'operation'), rank = String(cell(t, r, 'rank'));
      const pt = points.find((q) => q.op === op && q.rank === rank);
      assert(pt, `no point for ${op}`);
      const x = cell(t, r, 'hbm_operational_intensity'), y = cell(t, r, 'measured_flop_rate');
      assert(pt.x === x && pt.y === y, `point ${op} at (${pt.x}, ${pt.y}), server (${x}, ${y})`);
      const cx = left + ((Math.log10(x) - Math.log10(axes.x0)) / (Math.log10(axes.x1) - Math.log10(axes.x0))) * w;
      const cy = top + h - ((Math.log10(y) - Math.log10(axes.y0)) / (Math.log10(axes.y1) - Math.log10(axes.y0))) * h;
      assert(Math.abs(pt.cx - cx) < 0.5 && Math.abs(pt.cy - cy) < 0.5, `point ${op} drawn at (${pt.cx}, ${pt.cy}), log-log position (${cx}, ${cy})`);
    }
    if (plotted.length) {
      // Hover names the op with its coordinates.
      const r = plotted[plotted.length > 1 ? 1 : 0];
      const op = cell(t, r, 'operation');
      // Points may lie on top of each other, so the event goes to this one's element.
      await page.dispatchEvent(`[data-chart="roofline"] circle.point[data-op="${op}"][data-rank="${cell(t, r, 'rank')}"]`, 'mouseenter');
      await page.waitForSelector('#roofline-tooltip:not([hidden])', { timeout: 5000 });
      const tip = await page.textContent('#roofline-tooltip');
      assert(tip.includes(op), `tooltip "${tip}" does not name ${op}`);
      const m = /operational intensity: ([^ ]+) FLOP\/Byte/.exec(tip);
      assert(m && sameNumber(m[1], cell(t, r, 'hbm_operational_intensity'), 4), `tooltip intensity ${m?.[1]}`);
      const f = /FLOP rate: ([^ ]+) GFLOP\/s/.exec(tip);
      assert(f && sameNumber(f[1], cell(t, r, 'measured_flop_rate'), 4), `tooltip FLOP rate ${f?.[1]}`);
      // Category filter.
      const category = cell(t, r, 'category');
      await page.selectOption('#roofline-category', category);
      const cats = await page.$$eval('[data-chart="roofline"] circle.point', (cs) => cs.map((c) => c.getAttribute('data-category')));
      assert(cats.length === plotted.filter((q) => cell(t, q, 'category') === category).length && cats.every((c) => c === category), `category filter: ${cats.length} points`);
      await page.selectOption('#roofline-category', '');
    }
    // xprof's HTML source cells show as their text (file:line), never as markup.
    assert(!(await page.evaluate(() => document.body.innerText.includes('source-info-cell'))), 'a source cell shows its HTML');
    // The table's unknown cells read "—" and fractions are shown as percentages.
    const shown = await gridCells(page, 'roofline', 3);
    const fractions = new Set(['total_self_time_percent', 'cumulative_total_self_time_percent', 'total_time_in_percentage', 'roofline_efficiency', 'compute_efficiency', 'max_mem_bw_utilization']);
    shown.forEach((row, i) => checkRowCells(t, rows[i], row, ['operation', 'category', 'total_time', 'measured_flop_rate', 'hbm_bw', 'vmem_write_bw',
      'hbm_operational_intensity', 'bound_by', 'roofline_efficiency', 'total_self_time_percent'], assert, fractions));
    // Sub-µs times keep their significant digits (within 0.6%), in every row drawn.
    const timeIds = t.cols.filter((c) => c.type === 'number' && /time/.test(c.id) && !/percent/.test(c.id)).map((c) => c.id);
    const byKey = new Map(rows.map((r) => [`${cell(t, r, 'operation')}|${cell(t, r, 'rank')}`, r]));
    for (const row of await gridCells(page, 'roofline', 1000)) {
      const r = byKey.get(`${row.operation}|${row.rank}`);
      if (r === undefined) continue;
      for (const id of timeIds) {
        const v = cell(t, r, id);
        if (typeof v !== 'number' || !(v > 0 && v < 1)) continue;
        const x = parseShown(row[id]);
        assert(Math.abs(x - v) <= v * 0.006, `${id} of ${row.operation}: ${v} µs shown as "${row[id]}"`);
      }
    }
  },
};

// From a trace event whose args name an HLO op to that op in hlo_stats.
export async function runXlaLinkTests({ test, openPage, waitReady, api, base, shot, assert, runs }) {
  for (const run of runs) {
    const tools = (await api('run_tools', { run })).json ?? [];
    const traceTool = tools.find((x) => x.startsWith('trace_viewer'));
    if (!traceTool || !tools.includes('hlo_stats')) continue;
    const hosts = ((await api('hosts', { run, tag: traceTool })).json ?? []).map((h) => h.hostname ?? h);
    const host = hosts[0] ?? '';
    const trace = (await api('data', { run, tag: traceTool, host, ...(traceTool.startsWith('trace_viewer@') ? { resolution: '0' } : {}) })).json;
    const ev = (trace?.traceEvents ?? []).filter((e) => e.ph === 'X' && (typeof e.args?.hlo_op === 'string' || typeof e.args?.hlo_category === 'string'))
      .sort((a, b) => b.dur - a.dur)[0];
    if (!ev) continue;
    const op = ev.args.hlo_op ?? ev.name;
    await test(`${run}: a trace event naming HLO op ${op} links to its hlo_stats row`, async () => {
      const { page, errors } = await openPage(`${base}/?${new URLSearchParams({ run, tool: traceTool, host })}`);
      await waitReady(page, 120000);
      await page.waitForFunction(() => document.querySelector('.trace-canvas')?.width > 0);
      await page.fill('#trace-search', ev.name);
      await page.press('#trace-search', 'Enter');
      await page.waitForSelector('[data-xla-link="hlo_stats"]', { timeout: 60000 });
      await shot(page, `${run}-trace-hlo-link`);
      const href = await page.getAttribute('[data-xla-link="hlo_stats"]', 'href');
      const u = new URL(href, base);
      // The search selects the first event matching the text, which may be
      // another op whose name starts the same way: the link must name the op
      // of a served HLO event, and hlo_stats must then list exactly that op.
      const linked = u.searchParams.get('op');
      const hloOps = new Set((trace?.traceEvents ?? []).filter((e) => e.ph === 'X' && (typeof e.args?.hlo_op === 'string' || typeof e.args?.hlo_category === 'string'))
        .map((e) => e.args.hlo_op ?? e.name));
      assert(linked && linked.startsWith(op.replace(/\.\d+$/, '')) && hloOps.has(linked), `link names op ${linked}, no served HLO event is named so (searched ${op})`);
      const opShown = linked;
      await Promise.all([page.waitForNavigation(), page.click('[data-xla-link="hlo_stats"]')]);
      await page.waitForSelector('.page[data-ready="true"][data-tool="hlo_stats"]', { timeout: 60000 });
      const t = (await api('data', { run, tag: 'hlo_stats', host: new URL(page.url()).searchParams.get('host') ?? '' })).json;
      const expected = t.rows.filter((r) => r.c[col(t, 'hlo_op_name')]?.v === opShown).length;
      const names = await page.$$eval('.grid-wrap[data-grid="hlo-stats"] a.xla-link', (as) => as.map((a) => a.getAttribute('data-op')));
      assert(expected > 0 && names.length === expected && names.every((x) => x === opShown), `hlo_stats shows ${JSON.stringify(names)} for op ${opShown} (${expected} rows on the server)`);
      await shot(page, `${run}-hlo_stats-linked`);
      assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
      await page.close();
    });
  }
}
