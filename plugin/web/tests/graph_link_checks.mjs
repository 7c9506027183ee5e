// Links into the Graph Viewer from an hlo_stats row, an op_profile node (by
// program and by category) and a trace event's details, on the real TPU v6e
// and ROCm runs. Each check clicks the link and reads the graph page: the
// centre must be the linked op, in the program the source names. Expected
// programs come from other answers than the graph's: hlo_stats rows (which
// program each op ran in), the module list and the trace's XLA Modules line.

const HLO_EVENT = (e) => e.ph === 'X' && (typeof e.args?.hlo_op === 'string' || typeof e.args?.hlo_category === 'string');

export async function runGraphLinkChecks({ browser, base, check }) {
  const API = `${base}/data/plugin/profile`;
  const get = async (route, params) => {
    const r = await fetch(`${API}/${route}?${new URLSearchParams(params)}`);
    return r.headers.get('content-type')?.includes('json') ? r.json() : r.text();
  };
  const cell = (t, r, id) => r.c[t.cols.findIndex((c) => c.id === id)]?.v;
  // Where the graph page stands once a graph is drawn: what it says is the centre, module and program.
  const graphState = async (page) => {
    await page.waitForSelector('.page[data-ready="true"][data-tool="graph_viewer"]', { timeout: 60000 });
    await page.waitForFunction(() => document.querySelector('#gv-status')?.dataset.center || document.querySelector('#gv-error, #gv-candidates'), null, { timeout: 60000 });
    return page.evaluate(() => {
      const s = document.querySelector('#gv-status');
      const c = document.querySelector('#gv-svg .gv-center');
      const canvas = document.querySelector('#gv-canvas');
      let visible = false;
      if (c && canvas) {
        const a = c.getBoundingClientRect(), b = canvas.getBoundingClientRect();
        visible = a.right > b.left && a.left < b.right && a.bottom > b.top && a.top < b.bottom;
      }
      return { center: s?.dataset.center ?? '', module: s?.dataset.module ?? '', program: s?.dataset.program ?? '', picker: document.querySelector('#gv-module')?.value ?? '',
        drawnCenter: c?.getAttribute('data-name') ?? '', centreVisible: visible, error: document.querySelector('#gv-error')?.textContent ?? '',
        candidates: [...document.querySelectorAll('#gv-candidates a')].map((a) => a.getAttribute('data-program')) };
    });
  };
  const expectCentred = (st, op, program, module, what) => {
    check(st.center === op && st.drawnCenter === op && st.centreVisible, `${what}: graph centred on ${op} (status ${st.center}, drawn ${st.drawnCenter}, in view ${st.centreVisible})`);
    check(st.program === program && st.module === module && st.picker === module, `${what}: module ${st.module} / picker ${st.picker} / program ${st.program}, wanted ${module} (${program})`);
  };

  for (const run of ['jax_tpu_v6e', 'jax_rocm_mi300_gemm']) {
    const modules = (await get('module_list', { run })).split(',').filter(Boolean);
    // The module list names each program "<module>(<program id>)" in these runs.
    const moduleOf = (program) => modules.find((m) => m.endsWith(`(${program})`));
    const hlo = await get('data', { run, tag: 'hlo_stats' });
    const t = Array.isArray(hlo) ? hlo[0] : hlo;
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));

    // hlo_stats: the top row's graph link.
    await page.goto(`${base}/?${new URLSearchParams({ run, tool: 'hlo_stats' })}`);
    await page.waitForSelector('.page[data-ready="true"][data-tool="hlo_stats"]', { timeout: 60000 });
    const first = t.rows.find((r) => cell(t, r, 'rank') === 1);
    const op = cell(t, first, 'hlo_op_name'), program = cell(t, first, 'program_id');
    await Promise.all([page.waitForNavigation(), page.click(`.grid-wrap[data-grid="hlo-stats"] a.graph-link[data-graph-op="${op}"][data-graph-program="${program}"]`)]);
    expectCentred(await graphState(page), op, program, moduleOf(program), `${run} hlo_stats row ${op}`);

    // op_profile by program: expand the first program and category, follow the first op's link;
    // its program is the program node above it.
    for (const grouping of ['program', 'category']) {
      await page.goto(`${base}/?${new URLSearchParams({ run, tool: 'op_profile' })}`);
      await page.waitForSelector('.page[data-ready="true"][data-tool="op_profile"]', { timeout: 60000 });
      await page.selectOption('#op-profile-grouping', grouping);
      await page.waitForSelector(`#op-profile-tree[data-grouping="${grouping}"]`, { timeout: 60000 });
      const profile = await get('data', { run, tag: 'op_profile', group_by: grouping });
      const root = grouping === 'program' ? profile.byProgram : profile.byCategory;
      // The path to the first op node (a node with xla info that is not IDLE), by child index.
      const path = [];
      const find = (n, p) => {
        if (p.length && n.xla && n.name !== 'IDLE') { path.push(...p); return n; }
        for (let i = 0; i < Math.min((n.children ?? []).length, 10); i++) { const f = find(n.children[i], [...p, i]); if (f) return f; }
        return null;
      };
      const node = find(root, []);
      for (let d = 1; d < path.length; d++) {
        await page.click(`#op-profile-tree tr[data-path="${path.slice(0, d).join('/')}"] .tree-toggle`);
      }
      const opName = node.name.replace(/ and its duplicate\(s\)$/, '');
      const wantedModule = grouping === 'program' ? root.children[path[0]].name : moduleOf(node.xla.programId);
      await Promise.all([page.waitForNavigation(), page.click(`#op-profile-tree tr[data-path="${path.join('/')}"] a.graph-link`)]);
      expectCentred(await graphState(page), opName, node.xla.programId, wantedModule, `${run} op_profile by ${grouping} ${node.name}`);
    }

    // A trace event: its details link to the graph. TPU ops take their module
    // from the XLA Modules line; GPU kernels name theirs in hlo_module.
    const tools = await get('run_tools', { run });
    const traceTool = tools.find((x) => x.startsWith('trace_viewer'));
    const trace = await get('data', { run, tag: traceTool, ...(traceTool.startsWith('trace_viewer@') ? { resolution: '0' } : {}) });
    const threadNames = new Map(trace.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
    const modulesAround = (e) => trace.traceEvents.filter((m) => m.ph === 'X' && m.pid === e.pid && threadNames.get(`${m.pid}:${m.tid}`) === 'XLA Modules' &&
      m.ts <= e.ts && e.ts <= m.ts + m.dur).map((m) => m.name);
    const searches = run === 'jax_tpu_v6e' ? ['broadcast_add_fusion'] : ['Cijk_Ailk_Bljk_BBS_BH_MT128x32x64', 'gemm_fusion_dot_general_1.kd'];
    for (const text of searches) {
      await page.goto(`${base}/?${new URLSearchParams({ run, tool: traceTool })}`);
      await page.waitForSelector(`.page[data-ready="true"]`, { timeout: 120000 });
      await page.fill('#trace-search', text);
      // The search steps through the events whose name matches (host events too): on to the first with HLO links.
      for (let i = 0; i < 30 && !(await page.$('[data-xla-link="graph_viewer"]')); i++) {
        const before = await page.textContent('#trace-search-info');
        await page.press('#trace-search', 'Enter');
        await page.waitForFunction((b) => document.querySelector('#trace-search-info')?.textContent !== b || document.querySelector('[data-xla-link="graph_viewer"]'), before, { timeout: 60000 });
      }
      const href = new URL(await page.getAttribute('[data-xla-link="graph_viewer"]', 'href'), base);
      const node = href.searchParams.get('node_name'), module = href.searchParams.get('module_name');
      const events = trace.traceEvents.filter((e) => HLO_EVENT(e) && (e.args.hlo_op ?? e.name) === node && e.name.includes(text));
      check(events.length > 0, `${run} trace: the link names op ${node} of an event matching '${text}'`);
      const expectedModules = new Set(events.flatMap((e) => (typeof e.args.hlo_module === 'string' ? [e.args.hlo_module] : modulesAround(e))));
      check(expectedModules.has(module), `${run} trace: link module ${module} is the event's (${[...expectedModules].join(', ')})`);
      await Promise.all([page.waitForNavigation(), page.click('[data-xla-link="graph_viewer"]')]);
      let st = await graphState(page);
      // The programs the op ran in, by hlo_stats; those whose module is the event's are the candidates.
      const ran = [...new Set(t.rows.filter((r) => cell(t, r, 'hlo_op_name') === node).map((r) => cell(t, r, 'program_id')))]
        .filter((p) => moduleOf(p) === module || moduleOf(p)?.startsWith(`${module}(`)).sort();
      if (ran.length > 1) {
        check(JSON.stringify([...st.candidates].sort()) === JSON.stringify(ran), `${run} trace ${node} in ${module}: candidates ${st.candidates.join(', ')}, ran in programs ${ran.join(', ')}`);
        check(st.center === '', `${run} trace ${node}: no graph drawn while the program is unknown`);
        await Promise.all([page.waitForNavigation(), page.click(`#gv-candidates a[data-program="${ran[0]}"]`)]);
        st = await graphState(page);
      }
      expectCentred(st, node, ran[0], moduleOf(ran[0]), `${run} trace event ${text} (${node})`);
    }

    // A link to a node the program does not have says so.
    await page.goto(`${base}/?${new URLSearchParams({ run, tool: 'graph_viewer', node_name: 'no-such-node.7', program_id: program })}`);
    const bad = await graphState(page);
    check(bad.error.includes('no-such-node.7') && bad.error.includes('not a node of') && bad.drawnCenter === '', `${run}: a bad link says so: "${bad.error}"`);
    check(errors.length === 0, `${run}: no page errors (${errors.join(' | ')})`);
    await page.close();
  }
}
