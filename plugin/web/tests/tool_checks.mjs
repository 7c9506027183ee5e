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

// A summary card by the server property it shows: its value, note and the tooltip of an unknown value.
async function statCard(page, key) {
  return page.$eval(`.stat-card[data-key="${key}"]`, (c) => ({ value: c.querySelector('.stat-value').textContent,
    why: c.querySelector('.stat-value').getAttribute('title'), note: c.querySelector('.stat-note')?.textContent ?? '' })).catch(() => null);
}

// The table draws its first rows only, and says so: the drawn rows are the rows in its body.
async function checkDrawnRows(page, name, total, assert) {
  const drawn = await page.$$eval(`.grid-wrap[data-grid="${name}"] tbody tr`, (r) => r.length);
  const status = await page.textContent(`.grid-wrap[data-grid="${name}"] .grid-status`);
  if (drawn < total) assert(status.includes(`first ${n(drawn)} drawn`), `${drawn} of ${total} rows drawn but the status says "${status}"`);
  else assert(!/drawn/.test(status), `all rows drawn but the status says "${status}"`);
}

// A column the server fills with 0 for every row (nothing measured) reads "—" with a reason; otherwise numbers.
async function checkAllZeroColumn(page, grid, t, id, assert) {
  const i = col(t, id);
  if (i < 0) return;
  const cells = await page.$$eval(`.grid-wrap[data-grid="${grid}"] td[data-col="${id}"]`, (c) => c.map((x) => ({ text: x.textContent, why: x.querySelector('.unknown')?.title ?? '' })));
  const allZero = t.rows.every((r) => Number(r.c[i]?.v ?? 0) === 0);
  if (allZero) assert(cells.length > 0 && cells.every((c) => c.text === '—' && /unknown/i.test(c.why)), `${grid}.${id}: all served values are 0 but cells show ${cells[0]?.text}`);
  else assert(cells.every((c) => c.text !== '—'), `${grid}.${id}: measured values shown as —`);
}

const RECORDS_SESSION = /^(jax_tpu_v6e|jax_rocm_mi300_gemm|synthetic|naive|prefetch|cache)$/;

function findTable(data, test) { return (Array.isArray(data) ? data : [data]).find((t) => isTable(t) && test(t)) ?? null; }


import { checkTraceViewer } from './trace_checks.mjs';

// tfprof's op view answers a chain whose totals run down the rows (a row plus every row below it); the page shows
// each op type's own figures, as tfprof's text does: the flame graph draws each row at its own share of the root,
// and the table's first row is not the root's total again.
async function tfprofOpView(page, assert) {
  await page.selectOption('#tfprof-options select[name="view"]', 'op');
  const answered = page.waitForResponse((r) => r.url().includes('tag=tfprof') && r.url().includes('view=op'));
  await page.click('#tfprof-options button[type="submit"]');
  const answer = await (await answered).json();
  await page.waitForSelector('#tfprof-output .tfprof-table, #tfprof-output .msg', { timeout: 30000 });
  if (answer.note || !answer.root) return;
  const root = answer.root;
  const total = root.total_exec_micros;
  const timed = root.children.filter((c) => c.exec_micros > 0);
  if (!(total > 0) || timed.length < 2) return;
  const drawn = await page.$$eval('svg.flame-graph g.flame-node', (gs) => gs.map((g) => ({
    name: g.querySelector('title').textContent.replace(/: [^:]*$/, ''),
    y: Number(g.querySelector('rect').getAttribute('y')),
    width: Number(g.querySelector('rect').getAttribute('width')),
  })).filter((r) => r.y > 0));
  for (const row of timed) {
    const share = (1000 * row.exec_micros) / total;
    if (share < 0.5) continue;
    const rect = drawn.find((r) => r.name === row.name);
    assert(rect, `the op view's flame graph lacks ${row.name}`);
    assert(Math.abs(rect.width - Math.max(share - 1, 0.5)) < 1.01,
      `${row.name} is drawn ${rect.width.toFixed(1)} wide; its own ${row.exec_micros} us of ${total} us is ${share.toFixed(1)}`);
  }
  const largest = Math.max(...timed.map((c) => c.exec_micros));
  if (largest < 0.9 * total) {
    const cells = await page.$$eval('.tfprof-table tbody tr', (trs) => trs.slice(0, 2).map((tr) => tr.children[1].textContent));
    assert(cells[0] !== cells[1], `the op view's first row shows the root's total (${cells[0]}) as its own`);
  }
}

export const checks = {
  trace_viewer: checkTraceViewer,
  async overview_page({ page, data, assert, api, run }) {
    const text = await pageText(page);
    const sp = table(data, 1)?.p ?? {}, ap = table(data, 0)?.p ?? {};
    const steps = table(data, 1);
    const noSteps = isTable(steps) && steps.rows.length === 0;
    const isTpu = sp.hardware_type === 'TPU', cpuOnly = sp.hardware_type === 'CPU_ONLY';
    const pytorch = (Array.isArray(data) ? data : [data]).some((t) => t?.p?.framework === 'PyTorch');
    // Average step time and, off TPU, xprof's nine generic breakdown figures (keys *_ms_avg with σ in *_ms_sdv).
    const stepFigures = [['steptime_ms_average', 'steptime_ms_standard_deviation']];
    const generic = ['other_time', 'compile_time', 'outfeed_time', 'infeed_time', 'kernel_launch_time', 'host_compute_time',
      'device_collectives_time', 'device_to_device_time', 'device_compute_time'].map((k) => [`${k}_ms_avg`, `${k}_ms_sdv`]);
    for (const [key, sdv] of [...stepFigures, ...generic]) {
      if (sp[key] === undefined) continue;
      const c = await statCard(page, key);
      if (isTpu && key !== 'steptime_ms_average') { assert(c === null, `${key} shown on a TPU run`); continue; }
      if (cpuOnly && /^(device_|kernel_launch_)/.test(key)) { assert(c === null, `${key} shown on a CPU-only run`); continue; }
      assert(c !== null, `no card for ${key}=${sp[key]}`);
      if (noSteps) {
        assert(c.value === '—' && /no step/i.test(c.why ?? ''), `${key}: no steps but the card shows "${c.value}" (tooltip ${c.why})`);
      } else {
        assert(c.value === `${sp[key]} ms`, `${key}: shown "${c.value}", served "${sp[key]} ms"`);
        assert(c.note.includes(`σ = ${sp[sdv]} ms`), `${key}: σ shown "${c.note}", served ${sp[sdv]}`);
      }
    }
    // TPU hardware figures only on TPU runs, as served.
    for (const key of ['mxu_utilization_percent', 'flop_rate_utilization_relative_to_roofline', 'device_duty_cycle_percent',
      'memory_bw_utilization_relative_to_hw_limit']) {
      const c = await statCard(page, key);
      if (!isTpu) assert(c === null, `TPU-only ${key} shown on a ${sp.hardware_type ?? 'non-TPU'} run`);
      else if (ap[key] !== undefined) {
        // 0.0% utilization of a device that was busy is "not measured": "—", with the served value in the tooltip.
        const busy = 100 - parseFloat(ap.device_idle_time_percent ?? '100');
        if (parseFloat(ap[key]) === 0 && busy > 0) assert(c && c.value === '—' && c.why.includes(ap[key]), `${key}: unmeasured 0.0% shown as ${c?.value}`);
        else assert(c && c.value === ap[key], `${key}: shown ${c?.value}, served ${ap[key]}`);
      }
    }
    for (const key of ['host_idle_time_percent', 'device_idle_time_percent', 'host_tf_op_percent', 'device_tf_op_percent',
      'host_op_time_eager_percent', 'device_op_time_eager_percent']) {
      if (ap[key] === undefined) continue;
      const c = await statCard(page, key);
      if (cpuOnly && key.startsWith('device_')) { assert(c === null, `${key} shown on a CPU-only run`); continue; }
      // PyTorch runs every op eagerly: a PyTorch run's page shows no eager-mode share (TensorFlow's split).
      if (pytorch && key.includes('_eager_')) { assert(c === null, `${key} shown on a PyTorch run`); continue; }
      // xprof's "unknown" (a share of nothing) reads "—" with the reason, never a number.
      if (ap[key] === 'unknown') assert(c && c.value === '—' && /unknown/i.test(c.why ?? ''), `${key}: served unknown, shown ${c?.value}`);
      else assert(c && c.value === ap[key], `${key}: shown ${c?.value}, served ${ap[key]}`);
    }
    // A PyTorch run's GPU summary (torch-tb-profiler's figures, extra analysis properties): served figures verbatim,
    // "unknown" as "—" with the reason; never shown for other runs.
    for (const key of ['gpu_utilization_percent', 'sm_efficiency_percent', 'achieved_occupancy_percent']) {
      const c = await statCard(page, key);
      if (ap[key] === undefined) { assert(c === null, `${key} shown although not served`); continue; }
      if (ap[key] === 'unknown') assert(c && c.value === '—' && /unknown/i.test(c.why ?? ''), `${key}: served unknown, shown ${c?.value}`);
      else assert(c && c.value === ap[key], `${key}: shown ${c?.value}, served ${ap[key]}`);
    }
    if (/^pytorch/.test(run)) {
      assert(ap.gpu_utilization_percent !== undefined, `PyTorch run ${run} serves no gpu_utilization_percent`);
      assert(!((await api('run_tools', { run })).json ?? []).includes('tf_data_bottleneck_analysis'), `PyTorch run ${run} lists tf_data_bottleneck_analysis`);
    }
    const p16 = parseFloat(ap.device_compute_16bit_percent ?? ''), p32 = parseFloat(ap.device_compute_32bit_percent ?? '');
    const c16 = await statCard(page, 'device_compute_16bit_percent');
    // A CPU-only run says device figures are left out, and then shows no device panel (no precision pie, no device op table).
    if (cpuOnly) {
      assert(text.includes('device figures are left out'), 'CPU-only run without the note that device figures are left out');
      const panels = await page.$$eval('section h2', (h) => h.map((x) => x.textContent));
      assert(!panels.some((h) => /Device compute precision|Top operations on the device/.test(h)), `CPU-only run shows device panels: ${panels.join(', ')}`);
    } else if (p16 > 0 || p32 > 0) assert(c16 && c16.value === ap.device_compute_16bit_percent, `16-bit: shown ${c16?.value}, served ${ap.device_compute_16bit_percent}`);
    else assert(c16 === null && /unknown/i.test(text), 'precision shares shown although no compute was classified');
    if (noSteps) assert(!/\b0\.0 ms\b/.test(text), 'a run without steps shows "0.0 ms"');
    const env = (Array.isArray(data) ? data[2] : null)?.p ?? {};
    if (env.device_type) assert((await statCard(page, 'device_type'))?.value === env.device_type, `device type ${env.device_type} not shown`);
    // Training flag: the served "true"/"false" verbatim; "" (no HLO module to tell by) is unknown: "—" with a reason.
    if (env.is_training !== undefined) {
      const c = await statCard(page, 'is_training');
      if (env.is_training === '') assert(c && c.value === '—' && /unknown/i.test(c.why ?? ''), `is_training unknown but shown "${c?.value}"`);
      else assert(c && c.value === env.is_training, `is_training: shown ${c?.value}, served ${env.is_training}`);
    }
    // Profiling session: start time verbatim (UTC), duration with its unit; absent when the profile does not record it.
    const start = await statCard(page, 'profile_start_time');
    if (env.profile_start_time !== undefined) assert(start && start.value === env.profile_start_time, `profile_start_time: shown ${start?.value}, served ${env.profile_start_time}`);
    else assert(start === null, 'a profile start time is shown though none was served');
    const dur = await statCard(page, 'profile_duration_ms');
    if (env.profile_start_time !== undefined) assert(dur && dur.value === `${env.profile_duration_ms} ms`, `profile_duration_ms: shown ${dur?.value}, served ${env.profile_duration_ms}`);
    // These runs' profiles carry the Task Environment plane's session stats (the real ones by a second reading of
    // their bytes, the demo's because our writers put them there): the figures must be served, not left out.
    if (RECORDS_SESSION.test(run)) {
      assert(env.profile_start_time !== undefined && env.profile_duration_ms !== undefined, `run ${run} records its session but none was served`);
    }
    const ops = table(data, 0);
    if (isTable(ops) && ops.rows.length) {
      assert(await gridRows(page, 'top-ops') === ops.rows.length, 'top-ops row count differs');
      await checkAllZeroColumn(page, 'top-ops', ops, 'flopRate', assert);
    }
    if (isTable(steps) && steps.rows.length) {
      // Every stacked segment is the server's per-step number for that column.
      // The stacked columns are those the server lists in step_time_graph_column_ids, else every per-step ms column.
      const listed = (steps.p?.step_time_graph_column_ids ?? '').split(',').filter(Boolean);
      const ids = (listed.length ? listed : steps.cols.map((c) => c.id))
        .filter((id) => col(steps, id) >= 0 && steps.cols[col(steps, id)].type === 'number' && !/percent|^stepTimeMs$/i.test(id));
      const stepCol = Math.max(0, steps.cols.findIndex((c) => /^step(num|name)$/.test(c.id)));
      const bars = await page.$$eval('[data-chart="overview-steps"] rect.bar', (r) => r.map((x) => `${x.dataset.category}|${x.dataset.series}|${x.dataset.value}`));
      let expected = 0;
      for (const r of steps.rows) for (const id of ids) {
        const v = Number(r.c[col(steps, id)]?.v);
        if (!(v > 0)) continue;
        expected++;
        const cat = String(r.c[stepCol]?.f ?? r.c[stepCol]?.v);
        assert(bars.includes(`${cat}|${id}|${v}`), `step ${cat} ${id}=${v} is not drawn`);
      }
      assert(bars.length === expected, `${bars.length} segments drawn, ${expected} positive values served`);
      const inputCols = steps.cols.filter((c) => /infeed|input/i.test(c.id) && !/percent/i.test(c.id) && c.type === 'number');
      const hasInput = inputCols.some((c) => steps.rows.some((r) => Number(r.c[col(steps, c.id)]?.v) > 0));
      if (hasInput) {
        const red = await page.$$eval('[data-chart="overview-steps"] rect.bar', (r) => r.filter((x) => x.getAttribute('fill') === '#d62728').length);
        assert(red > 0, 'input share is not drawn in red');
      }
    }
    const reco = table(data, 3);
    if (reco?.p?.bottleneck) assert(text.includes(reco.p.bottleneck), 'bottleneck not shown');
    // Tips name only tools the run has; each such tool is a link to it; the rest are said to be left out.
    const tools = ((await api('run_tools', { run })).json ?? []).map((t) => t.replace(/[\^@#]+$/, ''));
    const canon = (t) => (t === 'tensorflow_stats' ? 'framework_op_stats' : t);
    const linked = await page.$$eval('.recommendation a.tool-link', (a) => a.map((x) => x.dataset.toolLink.replace(/[\^@#]+$/, '')));
    for (const t of linked) assert(tools.map(canon).includes(canon(t)), `tip links to ${t}, which the run lacks`);
    if (isTable(reco)) {
      const named = reco.rows.map((r) => /^([a-z][a-z0-9_]*_[a-z0-9_]+) \(/.exec(String(r.c[1]?.v))?.[1]).filter(Boolean);
      const kept = named.filter((t) => tools.map(canon).includes(canon(t)));
      assert(linked.length === kept.length, `${linked.length} tool tips linked, ${kept.length} expected`);
      const dropped = named.filter((t) => !tools.map(canon).includes(canon(t)));
      if (dropped.length) assert((await page.textContent('#tips-left-out')).includes(dropped[0]), 'left-out tips not said');
      const tips = await page.$$eval('.recommendation li.tip', (l) => l.length);
      assert(tips === reco.rows.length - dropped.length, `${tips} tips shown, ${reco.rows.length - dropped.length} expected`);
    }
    if (isTpu) assert(!text.includes('executed on the GPU'), 'a TPU run is told about the GPU');
  },

  async input_pipeline_analyzer({ page, data, assert }) {
    const text = await pageText(page);
    const steps = findTable(data, (t) => t.cols.some((c) => c.id === 'stepnum' || c.id === 'stepname'));
    for (const key of ['steptime_ms_average', 'steptime_ms_standard_deviation', 'steptime_ms_minimum', 'steptime_ms_maximum']) {
      if (steps?.p?.[key] === undefined) continue;
      const c = await statCard(page, key);
      if (steps.rows.length === 0) assert(c && c.value === '—' && /no step/i.test(c.why ?? ''), `${key}: no steps but shown "${c?.value}"`);
      else assert(c && c.value === `${steps.p[key]} ms`, `${key}: shown ${c?.value}, served ${steps.p[key]} ms`);
    }
    for (const key of ['kernel_launch_statement', 'device_collectives_statement', 'all_other_statement']) {
      const said = String(steps?.p?.[key] ?? '').replace(/<[^>]*>/g, '').slice(0, 60);
      if (said) assert(text.includes(said), `${key} served but not shown: "${said}"`);
    }
    const ops = findTable(data, (t) => t.cols.some((c) => c.id === 'opName'));
    if (ops && ops.rows.length) {
      assert(await gridRows(page, 'input-ops') === ops.rows.length, 'input-op row count differs');
      await page.click('.grid-wrap[data-grid="input-ops"] th[data-col="count"]');
      const first = await page.textContent('.grid-wrap[data-grid="input-ops"] tbody tr td[data-col="count"]');
      const counts = ops.rows.map((r) => Number(r.c[col(ops, 'count')]?.v));
      assert(Number(first.replace(/,/g, '')) === Math.max(...counts), `sorting by count: first ${first}, max ${Math.max(...counts)}`);
    }
  },

  async framework_op_stats({ page, data, assert, api, run, tool, host }) {
    const withIdle = table(data, 0), withoutIdle = table(data, 1) ?? withIdle;
    if (!isTable(withIdle)) return;
    if (withIdle.rows.length) {
      assert(await gridRows(page, 'op-stats') === withIdle.rows.length, 'op rows (with idle) differ');
      await checkDrawnRows(page, 'op-stats', withIdle.rows.length, assert);
    }
    // The pie and the table agree: the device IDLE slice is the IDLE row's "Total self-time on Device (%)".
    const ty = col(withIdle, 'type'), hd = col(withIdle, 'host_or_device'), dev = col(withIdle, 'device_total_self_time_percent');
    const idle = withIdle.rows.find((r) => r.c[ty]?.v === 'IDLE' && /device/i.test(String(r.c[hd]?.v)));
    if (idle && Number(idle.c[dev].v) > 0) {
      const titles = await page.$$eval('[data-chart="device-type"] title', (t) => t.map((x) => x.textContent));
      const slice = titles.find((x) => x.startsWith('IDLE:'));
      const want = `${(Number(idle.c[dev].v) * 100).toFixed(1)}%`;
      // A share too small for the ten largest slices is inside "Other".
      if (slice || Number(idle.c[dev].v) >= 0.05) assert(slice && slice.endsWith(`(${want})`), `device IDLE slice "${slice}", table says ${want}`);
      else assert(titles.some((x) => x.startsWith('Other:')), `device IDLE (${want}) is neither a slice nor in "Other"`);
    }
    for (const id of ['measured_flop_rate', 'model_flop_rate', 'measured_memory_bw', 'operational_intensity']) await checkAllZeroColumn(page, 'op-stats', withIdle, id, assert);
    // Each side's share column: the served fraction as a percentage, except a 0 on a row of the other side ("—", not applicable).
    const cellsOf = (id) => page.$$eval(`.grid-wrap[data-grid="op-stats"] tbody td[data-col="${id}"]`, (c) => c.map((x) => x.textContent));
    for (const [id, other] of [['device_total_self_time_percent', /host/i], ['host_total_self_time_percent', /device/i]]) {
      const ci = col(withIdle, id);
      if (ci < 0) continue;
      const shown = await cellsOf(id);
      shown.forEach((text, i) => {
        const r = withIdle.rows[i], v = Number(r.c[ci]?.v ?? 0);
        const want = other.test(String(r.c[hd]?.v)) && v === 0 ? '—' : `${(v * 100).toFixed(2)}%`;
        assert(text === want, `${id} row ${i + 1}: shown "${text}", served ${v} (${want})`);
      });
    }
    const perSide = (side) => withIdle.rows.filter((r) => new RegExp(side, 'i').test(String(r.c[hd]?.v))).length;
    const capShown = await page.$('#op-cap') !== null;
    assert(capShown === (perSide('device') >= 500 || perSide('host') >= 500), `op cap note shown=${capShown} with ${perSide('device')} device / ${perSide('host')} host rows`);
    const header = (await page.$('#op-stats-header')) ? await page.textContent('#op-stats-header') : '';
    assert(!/Architecture: Unknown/.test(header), `header says "${header}"`);
    if (withIdle.p?.task_type) assert(header.includes(withIdle.p.task_type), 'task type not shown');
    // Filtering "Conv2D" keeps exactly the rows whose text (type, name, …) contains it.
    const textCols = withIdle.cols.map((c, i) => (c.type === 'number' ? -1 : i)).filter((i) => i >= 0);
    const matching = (needle) => withIdle.rows.filter((r) => textCols.some((i) => String(r.c[i]?.f ?? r.c[i]?.v ?? '').toLowerCase().includes(needle.toLowerCase()))).length;
    for (const needle of ['Conv2D', String(withIdle.rows[0]?.c[col(withIdle, 'operation')]?.v ?? '')]) {
      if (!needle) continue;
      await page.fill('.grid-wrap[data-grid="op-stats"] .grid-filter', needle);
      const shown = Number(await page.getAttribute('.grid-wrap[data-grid="op-stats"] .grid-status', 'data-matching'));
      assert(shown === matching(needle), `filter "${needle}" shows ${shown} rows, ${matching(needle)} match`);
    }
    await page.fill('.grid-wrap[data-grid="op-stats"] .grid-filter', '');
    await page.click('#include-idle');
    if (withoutIdle.rows.length) assert(await gridRows(page, 'op-stats') === withoutIdle.rows.length, 'op rows (without idle) differ');
    const slices = await page.$$eval('[data-chart] .slice, [data-chart] circle', (s) => s.length);
    if (withIdle.rows.length) assert(slices > 0, 'no pie slices drawn');
    const href = await page.getAttribute('#csv-export', 'href');
    assert(href && href.includes('data_csv') && href.includes(`tag=${encodeURIComponent(tool)}`), `CSV link wrong: ${href}`);
    const csv = await api('data_csv', { run, tag: tool, host });
    assert(csv.status === 200 && csv.text.split('\n')[0].includes(withIdle.cols[0].label), `data_csv answered ${csv.status}`);
  },

  // tfprof: the tree table starts at the root the server answered, unknown figures read "—", and the flame graph
  // draws the view when it has time to draw.
  async tfprof({ page, data, assert, dataRequests }) {
    assert(data.root && data.root.name === '_TFProfRoot', 'the tfprof answer has no _TFProfRoot');
    await page.waitForSelector('.tfprof-table');
    const first = await page.textContent('.tfprof-table tbody tr td.tree-name');
    assert(first.includes('_TFProfRoot'), `the first row is ${first}`);
    if (data.root.total_requested_bytes === null) {
      const unknown = await page.$$eval('.tfprof-table tbody tr:first-child td.unknown', (c) => c.map((x) => x.textContent));
      assert(unknown.length > 0 && unknown.every((t) => t === '—'), `unknown bytes shown as ${unknown.join(',')}`);
    }
    const rects = await page.$$eval('svg.flame-graph rect', (r) => r.length);
    assert(!(data.root.total_exec_micros > 0) || rects > 0, 'the flame graph is empty');
    assert((await page.$$('#tfprof-options select[name="view"]')).length === 1, 'no view selector');
    // The root's children: at most 100 drawn at first, the rest one click away, and the count in the button is right.
    const kids = data.root.children.length;
    const drawnKids = async () => page.$$eval('.tfprof-table tbody tr td.depth-1', (c) => c.filter((x) => !x.closest('tr.more')).length);
    assert(await drawnKids() === Math.min(kids, 100), `root has ${kids} children, ${await drawnKids()} drawn`);
    if (kids > 100) {
      const label = await page.textContent('.more-rows');
      assert(label.includes(`show ${kids - 100} more`), `more button says ${label}`);
      await page.click('.more-rows');
      assert(await drawnKids() === kids, `after "show more" ${await drawnKids()} of ${kids} children drawn`);
    }
    // tfprof's text is folded and filled on opening, with the server's text.
    assert(await page.textContent('#tfprof-text') === '', 'the text was laid out before it was opened');
    await page.click('details.tfprof-text summary');
    // The details element's toggle event, which fills the text, comes a task after the click.
    await page.waitForFunction(() => document.querySelector('#tfprof-text')?.textContent !== '', null, { timeout: 10000 }).catch(() => {});
    // The page asks with its form's options (order_by, max_depth, …): its text is the answer to that request.
    const asked = dataRequests.filter((u) => new URL(u).searchParams.get('tag') === 'tfprof').pop();
    const answered = asked ? (await (await fetch(asked)).json()).text : data.text;
    assert((await page.textContent('#tfprof-text')) === answered, 'the opened text differs from the answer');
    // The tree opens only a few levels: a big model's page is a screen or two, not thousands of rows.
    const rows = await page.$$eval('.tfprof-table tbody tr', (r) => r.length);
    assert(rows <= Math.max(60, 2 + Math.min(kids, 100)), `the tree opened with ${rows} rows`);
    await tfprofOpView(page, assert);
  },

  async kernel_stats({ page, data, assert, api, run, tool, host }) {
    const t = isTable(data) ? data : table(data, 0);
    if (!isTable(t) || t.rows.length === 0) return;
    assert(await gridRows(page, 'kernels') === t.rows.length, 'kernel row count differs');
    // Kernels past the table's rows: the page says how many, their time and launches, as served.
    const hidden = Number(t.p?.hidden_kernels ?? 0);
    const line = await page.$('#hidden-kernels');
    assert(Boolean(line) === hidden > 0, `server hides ${hidden} kernels, page ${line ? 'says some' : 'says none'}`);
    if (line) {
      const text = await line.textContent();
      assert(await line.getAttribute('data-hidden-us') === t.p.hidden_total_duration_us && await line.getAttribute('data-hidden-occurrences') === t.p.hidden_occurrences,
        `hidden-kernels line marks other figures than ${JSON.stringify(t.p)}`);
      const n = (v) => Number(v).toLocaleString('en-US', { maximumFractionDigits: 2 });
      for (const v of [t.p.hidden_kernels, t.p.hidden_total_duration_us, t.p.hidden_occurrences]) {
        assert(text.includes(n(v)), `hidden-kernels line "${text}" lacks ${n(v)}`);
      }
    }
    await checkDrawnRows(page, 'kernels', t.rows.length, assert);
    const ki = col(t, 'kernel_name'), oi = col(t, 'op_name'), di = col(t, 'total_duration_us');
    const top = t.rows.slice().sort((a, b) => Number(b.c[di]?.v) - Number(a.c[di]?.v))[0];
    const chartText = await page.textContent('[data-chart="top-kernels"]');
    assert(chartText.includes(String(top.c[ki].v)), 'top kernel missing from chart');
    const headers = await page.$$eval('.grid-wrap[data-grid="kernels"] th', (h) => h.map((x) => x.getAttribute('data-col')));
    for (const id of ['is_op_tensor_core_eligible', 'is_kernel_using_tensor_core']) {
      if (col(t, id) >= 0) assert(headers.includes(id), `TensorCore column ${id} missing`);
    }
    // Launch figures the tracer did not write (ROCm: registers, occupancy) are empty cells: shown as —, not 0 or blank.
    const firstShown = await page.evaluate(() => {
      const wrap = document.querySelector('.grid-wrap[data-grid="kernels"]');
      const ids = Array.from(wrap.querySelectorAll('thead th')).map((th) => th.getAttribute('data-col'));
      const row = {};
      Array.from(wrap.querySelector('tbody tr').children).forEach((td, i) => { row[ids[i]] = td.textContent; });
      return row;
    });
    for (const id of ['registers_per_thread', 'shmem_bytes', 'occupancy_pct']) {
      const v = top.c[col(t, id)]?.v;
      if (v === null || v === undefined) assert(firstShown[id] === '—', `${id} of the top kernel is unknown on the server, page shows "${firstShown[id]}"`);
      else assert(firstShown[id] !== '—' && firstShown[id] !== '', `${id} of the top kernel is ${v}, page shows "${firstShown[id]}"`);
    }
    // xprof's two filters: kernel name and op name, each over its own column.
    for (const [id, ci] of [['kernel_name', ki], ['op_name', oi]]) {
      const needle = String(top.c[ci]?.v ?? '').slice(-12);
      if (!needle) continue;
      await page.fill(`.grid-wrap[data-grid="kernels"] [data-filter-col="${id}"]`, needle);
      const shown = Number(await page.getAttribute('.grid-wrap[data-grid="kernels"] .grid-status', 'data-matching'));
      const want = t.rows.filter((r) => String(r.c[ci]?.v ?? '').toLowerCase().includes(needle.toLowerCase())).length;
      assert(shown === want, `${id} filter "${needle}": ${shown} rows shown, ${want} match`);
      await page.fill(`.grid-wrap[data-grid="kernels"] [data-filter-col="${id}"]`, '');
    }
    // A long name is cut in the middle, whole on hover and in its copy action.
    const long = t.rows.map((r) => String(r.c[ki]?.v ?? '')).find((x) => x.length > 64);
    if (long) {
      const cell = await page.$eval(`.grid-wrap[data-grid="kernels"] .long-text[title="${long}"]`, (e) => ({ text: e.textContent,
        copy: e.parentElement.querySelector('.copy-button')?.dataset.copy })).catch(() => null);
      assert(cell && cell.text.includes('…') && cell.text.length <= 64 && cell.copy === long, `long kernel name cell: ${JSON.stringify(cell)}`);
      // Head and tail, and where two names would read the same, the part where they differ: pieces of the name, in order.
      const pieces = cell.text.split('…');
      let at = 0;
      for (const piece of pieces) { const i = long.indexOf(piece, at); assert(i >= at, `the shortened name "${cell.text}" is not made of pieces of the name`); at = i + piece.length; }
      assert(long.startsWith(pieces[0]) && long.endsWith(pieces[pieces.length - 1]), 'the shortened name does not keep the head and tail of the name');
    }
    const href = await page.getAttribute('#csv-export', 'href');
    assert(href && href.includes('data_csv') && href.includes(`tag=${encodeURIComponent(tool)}`), `CSV link wrong: ${href}`);
    const csv = await api('data_csv', { run, tag: tool, host });
    assert(csv.status === 200 && csv.text.split('\n').length - 1 >= t.rows.length, `data_csv answered ${csv.status}`);
  },

  async memory_profile({ page, data, assert }) {
    const ids = data.memoryIds?.length ? data.memoryIds : Object.keys(data.memoryProfilePerAllocator ?? {});
    // The page opens on the busiest allocator: most allocations, then highest peak in use (the memory id order says nothing).
    const per = data.memoryProfilePerAllocator ?? {};
    const listed = ids.filter((id) => per[id]);
    const allocs = (id) => Number(per[id].profileSummary?.numAllocations ?? 0), peakOf = (id) => Number(per[id].profileSummary?.peakStats?.peakBytesInUse ?? 0);
    const busiest = [...listed].sort((x, y) => allocs(y) - allocs(x) || peakOf(y) - peakOf(x))[0];
    if (busiest !== undefined) assert(await page.inputValue('#memory-id') === busiest, `opened on ${await page.inputValue('#memory-id')}, busiest is ${busiest} (${allocs(busiest)} allocations)`);
    const a = per[busiest];
    if (!a) return;
    // Sizes in binary units with two decimals, bytes below 1 KiB.
    const bytes = (v) => { let x = Number(v), i = 0; const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB']; while (Math.abs(x) >= 1024 && i < 4) { x /= 1024; i++; } return `${x.toFixed(i ? 2 : 0)} ${u[i]}`; };
    const summary = a.profileSummary ?? {};
    for (const [key, v] of [['peakBytesUsageLifetime', summary.peakBytesUsageLifetime], ['peakBytesInUse', summary.peakStats?.peakBytesInUse],
      ['heapAllocatedBytes', summary.peakStats?.heapAllocatedBytes], ['memoryCapacity', summary.memoryCapacity]]) {
      if (v === undefined) continue;
      const c = await statCard(page, key);
      assert(c && c.value === bytes(v), `${key}: shown ${c?.value}, served ${v} (${bytes(v)})`);
    }
    // Allocation counts: the served integers, grouped by thousands.
    for (const key of ['numAllocations', 'numDeallocations']) {
      const c = await statCard(page, key);
      if (summary[key] === undefined) assert(c && c.value === '—', `${key} not served but shown as ${c?.value}`);
      else assert(c && c.value === n(Number(summary[key])), `${key}: shown ${c?.value}, served ${summary[key]}`);
    }
    const snaps = a.sampledTimelineSnapshots?.length ? a.sampledTimelineSnapshots : a.memoryProfileSnapshots ?? [];
    if (snaps.length) {
      const box = '.memory-timeline';
      assert(Number(await page.getAttribute(box, 'data-points')) === snaps.length, 'timeline point count differs');
      // The axis fits heap + stack in use, not the capacity.
      const used = snaps.map((x) => Number(x.aggregationStats?.heapAllocatedBytes ?? 0) + Number(x.aggregationStats?.stackReservedBytes ?? 0));
      const maxUsed = Math.max(...used);
      const unit = maxUsed >= 1024 ** 3 ? 1024 ** 3 : 1024 ** 2;
      assert(await page.getAttribute(box, 'data-unit') === (unit === 1024 ** 3 ? 'GiB' : 'MiB'), 'timeline unit');
      const ticks = await page.$$eval('[data-chart="memory-timeline"] text.axis', (t) => t.map((x) => ({ x: Number(x.getAttribute('x')), v: Number(x.textContent.replace(/,/g, '')) })));
      const leftTop = Math.max(...ticks.filter((t) => t.x < 70 && Number.isFinite(t.v)).map((t) => t.v));
      if (maxUsed > 0) assert(leftTop >= maxUsed / unit - 1e-9 && leftTop <= 1.5 * maxUsed / unit, `axis top ${leftTop} for data max ${maxUsed / unit}`);
      // Drag across the middle half zooms in; a click shows the nearest snapshot's numbers.
      const r = await (await page.$('[data-chart="memory-timeline"] .drag-area')).boundingBox();
      if (snaps.length > 4) {
        await page.mouse.move(r.x + r.width * 0.25, r.y + r.height / 2); await page.mouse.down();
        await page.mouse.move(r.x + r.width * 0.75, r.y + r.height / 2, { steps: 4 }); await page.mouse.up();
        const zoomed = Number(await page.getAttribute(box, 'data-points'));
        assert(zoomed > 0 && zoomed < snaps.length, `drag zoom kept ${zoomed} of ${snaps.length} points`);
        await page.click('#memory-zoom-reset');
        assert(Number(await page.getAttribute(box, 'data-points')) === snaps.length, 'reset zoom');
      }
      const r2 = await (await page.$('[data-chart="memory-timeline"] .drag-area')).boundingBox();
      await page.mouse.click(r2.x + r2.width * 0.5, r2.y + r2.height / 2);
      const title = await page.textContent('#snapshot-details h3');
      const t = Number(/at ([\d.,]+) ms/.exec(title)?.[1].replace(/,/g, ''));
      const snap = snaps.find((x) => Math.abs(Number(x.timeOffsetPs) / 1e9 - t) < 1e-6);
      assert(snap, `clicked snapshot at ${t} ms is not a served snapshot`);
      const details = await page.textContent('#snapshot-details');
      assert(details.includes(bytes(snap.aggregationStats.heapAllocatedBytes)), `snapshot heap ${bytes(snap.aggregationStats.heapAllocatedBytes)} not shown`);
      // An activity size of 0 was not recorded: "—", never "0 B".
      const alloc = Number(snap.activityMetadata?.allocationBytes ?? 0);
      assert(details.includes(`Allocation size${alloc > 0 ? bytes(alloc) : '—'}`), `snapshot allocation size (served ${alloc}) not shown as such`);
    }
    const live = (a.activeAllocations ?? []).map((x) => (Number(x.snapshotIndex) >= 0 ? a.memoryProfileSnapshots?.[Number(x.snapshotIndex)]?.activityMetadata
      : Number(x.specialIndex) >= 0 ? a.specialAllocations?.[Number(x.specialIndex)] : null))
      .filter((m) => m && (Number(m.allocationBytes) > 0 || Number(m.requestedBytes) > 0));
    if (live.length) {
      assert(await gridRows(page, 'memory-breakdown') === live.length, 'breakdown row count differs');
      const cells = await page.$$eval('.grid-wrap[data-grid="memory-breakdown"] td', (t) => t.map((x) => x.textContent));
      assert(!cells.some((c) => /INVALID|^0\.0000/.test(c)), 'breakdown shows INVALID or 0.0000 cells');
      const biggest = live.map((m) => Number(m.allocationBytes)).sort((x, y) => y - x)[0];
      assert(cells.includes(bytes(biggest)), `largest allocation ${bytes(biggest)} not shown`);
    }
    if (data.hloModules?.length) assert(await gridRows(page, 'hlo-modules') === data.hloModules.length, 'HLO module row count differs');
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
    const last = steps.length - 1;
    // The slider picks the step; every figure below is that step's.
    await page.$eval('#step-slider', (e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }, last);
    const step = steps[last];
    assert((await page.textContent('#step-label')).startsWith(`step ${step.stepNum ?? last}`), 'step label does not follow the slider');
    const cores = Object.values(step.podStatsPerCore ?? {});
    assert(await gridRows(page, 'pod-cores') === cores.length, 'core row count differs');
    const hosts = [...new Set(cores.map((c) => c.hostName ?? 'unknown'))];
    const labels = await page.$$eval('[data-chart="pod-hosts"] text.axis', (t) => t.map((x) => x.textContent));
    for (const h of hosts) assert(labels.includes(h), `host ${h} missing from chart`);
    // Each host's column is its cores' mean step time (or the breakdown, where that is larger).
    const bars = await page.$$eval('[data-chart="pod-hosts"] rect.bar', (r) => r.map((x) => ({ host: x.dataset.category, v: Number(x.dataset.value) })));
    const parts = (c) => Object.entries(c).filter(([k, v]) => k === 'stepBreakdownUs' || (/Us$/.test(k) && k !== 'totalDurationUs' && typeof v === 'number'))
      .reduce((acc, [k, v]) => acc + (k === 'stepBreakdownUs' ? Object.values(v).reduce((x, y) => x + Number(y), 0) : Number(v)), 0);
    for (const h of hosts) {
      const mine = cores.filter((c) => (c.hostName ?? 'unknown') === h);
      const total = mine.reduce((acc, c) => acc + Number(c.totalDurationUs ?? 0), 0) / mine.length / 1000;
      const breakdown = (data.stepBreakdownEvents?.length ? mine.reduce((acc, c) => acc + Object.values(c.stepBreakdownUs ?? {}).reduce((x, y) => x + Number(y), 0), 0)
        : mine.reduce((acc, c) => acc + parts(c), 0)) / mine.length / 1000;
      const drawn = bars.filter((b) => b.host === h).reduce((acc, b) => acc + b.v, 0);
      const want = Math.max(total, breakdown);
      assert(Math.abs(drawn - want) <= 1e-6 * Math.max(1, want), `host ${h}: column ${drawn} ms, step ${want} ms`);
    }
    if (step.allReduceOpDb?.length) assert(await gridRows(page, 'pod-all-reduce') === step.allReduceOpDb.length, 'all-reduce row count differs');
    if (step.channelDb?.length) assert(await gridRows(page, 'pod-channels') === step.channelDb.length, 'channel row count differs');
    else assert((await pageText(page)).includes('no send/recv channels'), 'no channels, not said');
    const t = data.runEnvironment?.topology;
    if (Number(t?.xDimension) > 0 && Number(t?.yDimension) > 0) {
      const chips = await page.$$eval('[data-chart="pod-topology"] g.chip', (g) => g.map((x) => ({ chip: Number(x.dataset.chip), us: x.dataset.stepUs })));
      assert(chips.length === Number(t.xDimension) * Number(t.yDimension), `${chips.length} chips drawn for a ${t.xDimension}×${t.yDimension} topology`);
      for (const c of chips) {
        const mine = cores.filter((x) => Number(x.chipId) === c.chip);
        if (!mine.length) { assert(c.us === '', `chip ${c.chip} has no cores but shows ${c.us}`); continue; }
        const want = mine.reduce((acc, x) => acc + Number(x.totalDurationUs), 0) / mine.length;
        assert(Math.abs(Number(c.us) - want) < 1e-6 * want, `chip ${c.chip}: ${c.us} µs shown, ${want} served`);
      }
    }
  },

};
