// Browser checks of the Memory Viewer and Graph Viewer pages against a running
// `tbprof serve` whose logdir has the JAX TPU run (`jax_tpu_v6e`), plus the
// layout time of a 500-node neighbourhood (the graph_viewer answer is replaced
// by a generated 500-node graph, so the page's real layout and drawing run on it),
// and the links into the graph page from the op tables and the trace
// (tests/graph_link_checks.mjs; the logdir also needs jax_rocm_mi300_gemm).
// Usage: node tests/xla_viewers_test.mjs --base http://127.0.0.1:PORT [--chromium /usr/bin/chromium] [--run jax_tpu_v6e]
import { chromium } from 'playwright-core';
import { runGraphLinkChecks } from './graph_link_checks.mjs';

const args = process.argv.slice(2);
const arg = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const base = arg('--base');
const run = arg('--run', 'jax_tpu_v6e');
const API = `${base}/data/plugin/profile`;
let failed = 0;
const check = (cond, msg) => { if (!cond) { failed++; console.log(`FAIL ${msg}`); } else console.log(`PASS ${msg}`); };

// A layered graph: 50 ranks of 10 nodes, each node using two nodes of the previous rank.
function bigGraph() {
  const nodes = [], edges = [];
  const cats = ['elementwise', 'contraction', 'fusion', 'reduction', 'data_movement'];
  for (let r = 0; r < 50; r++) {
    for (let c = 0; c < 10; c++) {
      const name = `n${r}_${c}`;
      nodes.push({ name, opcode: r === 0 ? 'parameter' : 'add', shape: 'f32[8]', category: r === 0 ? 'parameter' : cats[(r + c) % 5], fusionKind: '', parent: '',
        opName: '', source: '', hops: r, center: r === 25 && c === 5, hiddenOperands: 0, hiddenUsers: 0, parameterNumber: -1, fusedRoot: false });
      if (r > 0) {
        edges.push({ from: `n${r - 1}_${c}`, to: name, operand: 0 });
        edges.push({ from: `n${r - 1}_${(c + 3) % 10}`, to: name, operand: 1 });
      }
    }
  }
  return { moduleName: 'synthetic', computation: 'main', center: 'n25_5', nodes, edges };
}

const browser = await chromium.launch({ executablePath: arg('--chromium', '/usr/bin/chromium'), args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  const modules = (await (await fetch(`${API}/module_list?run=${run}`)).text()).split(',').filter(Boolean);
  check(modules.length > 0, `module_list lists the run's modules (${modules.join(', ')})`);
  const mv = await (await fetch(`${API}/data?run=${run}&tag=memory_viewer&module_name=${encodeURIComponent(modules[0])}`)).json();

  await page.goto(`${base}/?run=${run}&tool=memory_viewer&module_name=${encodeURIComponent(modules[0])}`);
  await page.waitForSelector('#mv-module');
  await page.waitForFunction(() => document.querySelectorAll('.card').length > 0, null, { timeout: 30000 });
  // The peak card says the served MiB in the unit it picks (10240 MiB reads "10.00 GiB"), to its printed digits.
  const peakText = await page.textContent('.stat-card[data-stat="Peak heap"] .stat-value');
  const m = /([\d,.]+)\s*(B|KiB|MiB|GiB|TiB)/.exec(peakText ?? '');
  const shownMib = m ? (Number(m[1].replace(/,/g, '')) * { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 }[m[2]]) / 1024 ** 2 : NaN;
  const digitsTol = m ? (0.5 * 10 ** -((m[1].split('.')[1] ?? '').length) * { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 }[m[2]]) / 1024 ** 2 : 0;
  check(Math.abs(shownMib - mv.peakHeapMib) <= digitsTol + 1e-9, `memory viewer shows the peak ${mv.peakHeapMib} MiB (page: "${peakText}")`);
  const bars = await page.$$('#mv-bars .mv-bar');
  check(bars.length === mv.maxHeapBySize.length, `one bar per buffer at the peak (${bars.length} of ${mv.maxHeapBySize.length})`);
  if (mv.maxHeapBySize.length > 0) {
    const first = mv.maxHeapBySize[0].instructionName || mv.maxHeapBySize[0].label;
    await page.fill('#mv-search', first);
    const shown = await page.$$eval('#mv-bars .mv-bar-label', (els) => els.map((e) => e.textContent));
    check(shown.length >= 1 && shown.every((s) => s.includes(first)), `search narrows the bars to '${first}'`);
    await page.fill('#mv-search', 'no-such-buffer-zzz');
    check((await page.$$('#mv-bars .mv-bar')).length === 0, 'a search without match shows no bar');
  }

  // Graph viewer on a real node: the centre and its neighbours are drawn; clicking re-centres.
  const text = await (await fetch(`${API}/data?run=${run}&tag=graph_viewer&type=short_txt&module_name=${encodeURIComponent(modules[0])}`)).text();
  const entry = text.slice(text.indexOf('ENTRY'));
  const names = [...entry.matchAll(/^\s+(?:ROOT )?%([^ ]+) =/gm)].map((m) => m[1]);
  check(names.length >= 2, `the entry computation has instructions (${names.slice(0, 4).join(', ')})`);
  const center = names[Math.min(1, names.length - 1)];
  await page.goto(`${base}/?run=${run}&tool=graph_viewer&module_name=${encodeURIComponent(modules[0])}&node_name=${encodeURIComponent(center)}&graph_width=2`);
  await page.waitForSelector('#gv-svg .gv-node', { timeout: 30000 });
  const drawn = await page.$$eval('#gv-svg .gv-node', (els) => els.map((e) => e.getAttribute('data-name')));
  check(drawn.includes(center) && drawn.length >= 2, `graph around ${center} drawn: ${drawn.join(', ')}`);
  const other = drawn.find((n) => n !== center);
  await page.click(`#gv-svg .gv-node[data-name="${other}"]`);
  await page.waitForFunction((n) => document.querySelector('#gv-node')?.value === n && document.querySelector(`#gv-svg .gv-node[data-name="${n}"] rect`)?.getAttribute('stroke-width') === '3', other, { timeout: 30000 });
  check(true, `clicking ${other} re-centres the graph on it`);

  // 500 nodes: the page's own layout (dagre) and drawing, timed by the page.
  await page.route('**/data?*tag=graph_viewer*', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify(bigGraph()) }));
  await page.goto(`${base}/?run=${run}&tool=graph_viewer&module_name=${encodeURIComponent(modules[0])}&node_name=n25_5&program_id=1`);  // a program id: the page asks for the graph directly
  await page.waitForFunction(() => document.querySelector('#gv-status')?.dataset.layoutMs, null, { timeout: 60000 });
  const ms = Number(await page.$eval('#gv-status', (e) => e.dataset.layoutMs));
  const count = (await page.$$('#gv-svg .gv-node')).length;
  console.log(`layout of a ${count}-node graph in Chromium: ${ms} ms`);
  check(count === 500, `500 nodes drawn (${count})`);
  await page.close();

  // Links into the graph from hlo_stats, op_profile and the trace (the TPU and ROCm runs).
  await runGraphLinkChecks({ browser, base, check });
} finally {
  await browser.close();
}
console.log(failed ? `${failed} failed` : 'all passed');
process.exit(failed ? 1 : 0);
