// Browser tests for the tbprof UI: drives Debian's chromium (headless, via
// playwright-core) against a running server and checks every tool page against
// the numbers the server's own API returns.
// Usage: node tests/browser_test.mjs --base http://127.0.0.1:PORT --artifacts DIR [--chromium /usr/bin/chromium]
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { checks } from './tool_checks.mjs';
import { streamingSeen, flowFetchSeen, derivedLaneSeen } from './trace_checks.mjs';
import { xlaChecks, runXlaLinkTests } from './xla_checks.mjs';
import { checkJsonAgreement } from './json_checks.mjs';
import { traceAnalysisChecks, runCriticalPathLinkTest } from './trace_analysis_checks.mjs';
Object.assign(checks, xlaChecks, traceAnalysisChecks);

const args = process.argv.slice(2);
const arg = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const base = arg('--base');
const artifacts = path.resolve(arg('--artifacts', 'web-artifacts'));
const executablePath = arg('--chromium', '/usr/bin/chromium');
const maxRuns = Number(arg('--max-runs', '60'));
const onlyRuns = new RegExp(arg('--only-runs', '.*'));  // a regex over run names, to walk a part while working on it
const captureAddr = arg('--capture-addr');  // a running job's ProfilerService, when test.sh started one
// --only REGEX: run just the tests whose names match (a quick check of one page while working on it).
const only = arg('--only') ? new RegExp(arg('--only')) : null;
if (!base) { console.error('usage: browser_test.mjs --base URL'); process.exit(2); }
fs.mkdirSync(artifacts, { recursive: true });
const origin = new URL(base).origin;
const API = `${base}/data/plugin/profile`;

let passed = 0, failed = 0;
const results = [];
async function test(name, fn) {
  if (only && !only.test(name)) return;
  const t0 = Date.now();
  try {
    await fn();
    passed++; results.push(`PASS ${name} (${Date.now() - t0} ms)`); console.log(`PASS ${name}`);
  } catch (e) {
    failed++; results.push(`FAIL ${name}: ${e.message}`); console.log(`FAIL ${name}: ${e.stack ?? e.message}`);
  }
}
export function assert(cond, msg) { if (!cond) throw new Error(msg); }

async function api(route, params) {
  const res = await fetch(`${API}/${route}?${new URLSearchParams(params)}`);
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, text, json };
}

const launchOptions = { executablePath, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update',
    '--no-first-run', '--disable-default-apps', '--disable-sync', '--disable-extensions'] };
let browser = await chromium.launch(launchOptions);
let context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
let relaunches = 0;
const foreignRequests = [];

// A page with its console errors, uncaught errors and every request it makes recorded.
async function openPage(url) {
  // On a shared 2-core machine chromium is sometimes ended from outside mid-walk: start it again rather than fail
  // every later page (the relaunch count is printed, so a browser that keeps dying is seen).
  let page;
  try { page = await context.newPage(); } catch {
    relaunches++;
    await browser.close().catch(() => {});
    browser = await chromium.launch(launchOptions);
    context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
  }
  const errors = [];
  const dataRequests = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    const u = r.url();
    if (u.startsWith(`${API}/data?`)) dataRequests.push(u);
    if (!u.startsWith(origin + '/') && !u.startsWith('data:') && !u.startsWith('blob:') && u !== 'about:blank') foreignRequests.push(u);
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, errors, dataRequests };
}

async function waitReady(page, timeout = 60000) {
  await page.waitForSelector('.page[data-ready]', { timeout });
  return page.getAttribute('.page', 'data-ready');
}

function shot(page, name) {
  return page.screenshot({ path: path.join(artifacts, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.png`), fullPage: name.indexOf('trace') < 0 });
}

// An ALL_HOSTS answer combined without a host whose file could not be read ("hosts_left_out", on the answer's
// object or its first table's): the page names each such host with the server's reason, and no page names others.
function hostsLeftOut(data) {
  const holder = Array.isArray(data) ? data[0] : data;
  return Array.isArray(holder?.hosts_left_out) ? holder.hosts_left_out : [];
}
async function checkHostsLeftOut(page, data, assert) {
  const want = hostsLeftOut(data);
  const shown = await page.$$eval('#hosts-left-out li', (li) => li.map((x) => ({ host: x.getAttribute('data-host'), text: x.textContent })));
  assert(shown.length === want.length, `page names ${shown.length} hosts left out, the server ${want.length}`);
  want.forEach((x, i) => assert(shown[i].host === x.host && shown[i].text.includes(x.reason),
    `host left out ${i}: page "${shown[i].host}: ${shown[i].text}", server "${x.host}: ${x.reason}"`));
}

const runs = ((await api('runs', {})).json ?? []).filter((r) => onlyRuns.test(r));
const base_ = (t) => t.replace(/[\^@#]+$/, '');
// The tool menu: run_tools with tensorflow_stats folded into framework_op_stats (one tool, two names), plus
// pod_viewer, which xprof leaves out of run_tools, when its hosts route answers a host.
async function menuTools(run) {
  const tools = (await api('run_tools', { run })).json ?? [];
  const out = tools.filter((t, i) => {
    const alias = { tensorflow_stats: 'framework_op_stats', framework_op_stats: 'tensorflow_stats' }[base_(t)];
    return !alias || !tools.slice(0, i).some((u) => base_(u) === alias);
  });
  if (tools.length && !tools.some((t) => base_(t) === 'pod_viewer')) {
    const hosts = (await api('hosts', { run, tag: 'pod_viewer' })).json;
    if (Array.isArray(hosts) && hosts.length) out.push('pod_viewer');
  }
  return out;
}

await test('shell: run selector lists the runs from /runs', async () => {
  const { page, errors } = await openPage(`${base}/`);
  await page.waitForFunction(() => document.querySelectorAll('#run-select option').length > 0 || document.querySelector('.msg'), null, { timeout: 30000 });
  const shown = await page.$$eval('#run-select option', (o) => o.map((x) => x.value));
  assert(JSON.stringify(shown) === JSON.stringify(runs), `runs shown ${JSON.stringify(shown)} != /runs ${JSON.stringify(runs)}`);
  if (runs.length) {
    await page.waitForFunction(() => new URL(location.href).searchParams.has('tool') || document.querySelector('.msg'), null, { timeout: 30000 });
    const tools = await menuTools(runs[0]);
    const shownTools = await page.$$eval('#tool-select option', (o) => o.map((x) => x.value));
    assert(JSON.stringify(shownTools) === JSON.stringify(tools), `tools shown ${JSON.stringify(shownTools)} != ${JSON.stringify(tools)}`);
    const url = new URL(page.url());
    assert(url.searchParams.get('run') === runs[0] && url.searchParams.get('tool') === tools[0], `deep link not kept in URL: ${page.url()}`);
  }
  await shot(page, 'shell');
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

for (const run of runs.slice(0, maxRuns)) {
  const listed = (await api('run_tools', { run })).json ?? [];
  const menu = await menuTools(run);
  const tools = [...new Set([...listed, ...menu])];
  if (tools.length === 0) {
    await test(`${run}: a run without tools says so`, async () => {
      const { page, errors } = await openPage(`${base}/?run=${encodeURIComponent(run)}`);
      await page.waitForSelector('.msg-empty', { timeout: 30000 });
      const text = await page.textContent('.msg-empty');
      assert(/no profile data/i.test(text), `unexpected message: ${text}`);
      await shot(page, `${run}-empty`);
      assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
      await page.close();
    });
    continue;
  }
  for (const tool of tools) {
    // The graph is drawn around a node the page picks; tests/xla_viewers_test.mjs checks it.
    if (tool === 'graph_viewer') continue;
    const hosts = ((await api('hosts', { run, tag: tool })).json ?? []).map((h) => (typeof h === 'string' ? h : h.hostname));
    const host = hosts[0] ?? '';
    await test(`${run}/${tool}/${host || 'default'}`, async () => {
      const q = new URLSearchParams({ run, tool, host });
      const { page, errors, dataRequests } = await openPage(`${base}/?${q}`);
      // A failed page is closed too: pages left open pile up until the browser runs out of memory.
      try {
      const streaming = tool.startsWith('trace_viewer@');
      const data = await api('data', { run, tag: tool, host, ...(streaming ? { resolution: '100' } : {}) });
      const state = await waitReady(page, 120000);
      const url = new URL(page.url());
      // A link with a tool's second name opens the menu's name for it.
      const opened = menu.includes(tool) ? tool : menu.find((t) => base_(t) === 'framework_op_stats' || base_(t) === 'tensorflow_stats');
      assert(url.searchParams.get('run') === run && url.searchParams.get('tool') === opened, `deep link lost: ${page.url()} (wanted tool ${opened})`);
      let allowedErrors = 0;
      if (data.status !== 200 || data.json === null) {
        // The server could not produce this tool: the page must say why, not break.
        assert(state === 'error', `API answered ${data.status} but the page state is ${state}`);
        const msg = await page.textContent('.msg-error');
        assert(msg && msg.includes(String(data.status)), `error message lacks the HTTP status: ${msg}`);
        allowedErrors = errors.filter((e) => /Failed to load resource/.test(e)).length;
      } else {
        assert(state === 'true', `page state ${state} for a 200 response`);
        const check = checks[tool.replace(/[\^@#]+$/, '')];
        try {
          if (check) await check({ page, data: data.json, api, run, tool, host, base, assert, dataRequests, artifacts });
          // Every page: its marked numbers say what /data says, and no card reads 0 for an unknown.
          // memory_viewer shows the module it chose: compare with that module's answer.
          const shownData = tool === 'memory_viewer' ? (await api('data', { run, tag: tool, host, module_name: await page.inputValue('#mv-module'),
            memory_space: await page.inputValue('#mv-space') })).json : data.json;
          if (!tool.startsWith('trace_viewer')) await checkJsonAgreement({ page, data: shownData, assert, where: `${run}/${tool}` });
          await checkHostsLeftOut(page, data.json, assert);
        } catch (e) {
          await shot(page, `${run}-${tool}-FAILED`);
          throw e;
        }
      }
      await shot(page, `${run}-${tool}`);
      assert(errors.length === allowedErrors, `console errors: ${errors.join(' | ')}`);
      } finally { await page.close(); }
    });
  }
}

// test.sh's damaged_host run: a good GPU profile and a copy cut short. The walk above saw each page agree with
// /data; this makes sure the case is there to see, on the page that combines hosts only.
await test('a run with a damaged host: ALL_HOSTS combines the good host and the page names the one left out', async () => {
  const run = runs.find((r) => r === 'damaged_host');
  assert(run, 'test.sh wrote no damaged_host run');
  const menu = await menuTools(run);
  assert(menu.includes('kernel_stats') && menu.includes('hlo_stats'), `the cut host took tools off the menu: ${menu}`);
  const data = await api('data', { run, tag: 'overview_page', host: 'ALL_HOSTS' });
  assert(data.status === 200, `ALL_HOSTS overview answered ${data.status}: ${data.text.slice(0, 200)}`);
  const left = hostsLeftOut(data.json);
  assert(left.length === 1 && left[0].host === 'cut' && /damaged or incomplete/.test(left[0].reason), `hosts_left_out: ${JSON.stringify(left)}`);
  const { page, errors } = await openPage(`${base}/?${new URLSearchParams({ run, tool: 'overview_page', host: 'ALL_HOSTS' })}`);
  try {
    assert(await waitReady(page, 120000) === 'true', 'overview page did not render');
    await checkHostsLeftOut(page, data.json, assert);
    assert(/Combined without host/.test(await page.textContent('#hosts-left-out')), 'the note does not say what it is');
    await shot(page, 'damaged_host-overview-left-out');
    assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  } finally { await page.close(); }
});

const withTools = [];
for (const run of runs.slice(0, maxRuns)) if ((await menuTools(run)).length) withTools.push(run);

await test('navigation: a deep link to a tool the run lacks says so and lists the run\'s tools', async () => {
  const run = withTools[0];
  assert(run, 'no run with tools');
  const { page, errors } = await openPage(`${base}/?${new URLSearchParams({ run, tool: 'memory_viewer' })}`);
  await page.waitForSelector('.page[data-ready="missing-tool"]', { timeout: 30000 });
  const msg = await page.textContent('.page .msg');
  assert(msg.includes('memory_viewer') && msg.includes(run), `message: ${msg}`);
  const listed = await page.$$eval('#available-tools a', (a) => a.map((x) => x.dataset.toolLink));
  assert(JSON.stringify(listed) === JSON.stringify(await menuTools(run)), `listed ${JSON.stringify(listed)}`);
  await page.click('#available-tools a');
  assert(await waitReady(page) === 'true', 'the listed tool does not open');
  await shot(page, 'navigation-missing-tool-followed');
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

await test('navigation: a deep link to a run that does not exist says so and lists the runs', async () => {
  const { page, errors } = await openPage(`${base}/?run=no-such-run&tool=overview_page`);
  await page.waitForSelector('.page[data-ready="missing-run"]', { timeout: 30000 });
  const listed = await page.$$eval('#available-runs a', (a) => a.map((x) => x.textContent));
  assert(JSON.stringify(listed) === JSON.stringify(runs), `listed ${JSON.stringify(listed)}`);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

// The two-host run (test.sh writes one with synth --hosts 2).
const multiHostRun = await (async () => {
  for (const r of runs) {
    const hosts = (await api('hosts', { run: r, tag: 'trace_viewer@' })).json ?? [];
    if (hosts.length > 1) return { run: r, hosts: hosts.map((h) => h.hostname) };
  }
  return null;
})();

await test('navigation: a deep link to a host the tool cannot show says so and lists the hosts', async () => {
  assert(multiHostRun, 'no run with two hosts');
  const { run, hosts } = multiHostRun;
  for (const host of ['no-such-host', 'ALL_HOSTS']) {
    assert((await api('data', { run, tag: 'trace_viewer@', host })).status === 404, `/data answers for host ${host}`);
    const { page, errors } = await openPage(`${base}/?${new URLSearchParams({ run, tool: 'trace_viewer@', host })}`);
    await page.waitForSelector('.page[data-ready="missing-host"]', { timeout: 30000 });
    const msg = await page.textContent('.page .msg');
    assert(msg.includes(host === 'ALL_HOSTS' ? 'one host at a time' : host), `message: ${msg}`);
    const listed = await page.$$eval('#available-hosts a', (a) => a.map((x) => new URL(x.href).searchParams.get('host')));
    assert(JSON.stringify(listed) === JSON.stringify(hosts), `listed ${JSON.stringify(listed)} != ${JSON.stringify(hosts)}`);
    assert(new URL(page.url()).searchParams.get('host') === host, `the URL was rewritten: ${page.url()}`);
    await shot(page, `navigation-missing-host-${host}`);
    assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
    await page.close();
  }
});

await test('navigation: switching run keeps the tool when the new run has it', async () => {
  const withKernels = [];
  for (const r of runs) if ((await menuTools(r)).includes('framework_op_stats')) withKernels.push(r);
  assert(withKernels.length >= 2, 'fewer than two runs with framework_op_stats');
  const { page, errors } = await openPage(`${base}/?${new URLSearchParams({ run: withKernels[0], tool: 'framework_op_stats' })}`);
  await waitReady(page);
  await page.selectOption('#run-select', withKernels[1]);
  await page.waitForFunction((r) => new URL(location.href).searchParams.get('run') === r, withKernels[1], { timeout: 30000 });
  await waitReady(page);
  const tool = new URL(page.url()).searchParams.get('tool');
  assert(tool === 'framework_op_stats', `tool after switching run: ${tool}`);
  assert(errors.filter((e) => !/Failed to load resource/.test(e)).length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

await test('navigation: one menu entry per tool; pod_viewer listed where servable', async () => {
  let podSeen = false;
  for (const run of withTools) {
    const { page, errors } = await openPage(`${base}/?${new URLSearchParams({ run })}`);
    // A run whose profile does not parse shows the server's error on its first page.
    if (await waitReady(page) === 'error') errors.splice(0, errors.length, ...errors.filter((e) => !/Failed to load resource/.test(e)));
    const shown = await page.$$eval('#tool-select option', (o) => o.map((x) => x.value));
    assert(!(shown.some((t) => base_(t) === 'framework_op_stats') && shown.some((t) => base_(t) === 'tensorflow_stats')), `${run}: both op-stats names listed`);
    assert(JSON.stringify(shown) === JSON.stringify(await menuTools(run)), `${run}: menu ${JSON.stringify(shown)}`);
    podSeen ||= shown.includes('pod_viewer');
    assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
    await page.close();
  }
  assert(podSeen, 'no run lists pod_viewer although the logdir has xplane runs');
});

// Without a link, graph_viewer and memory_viewer open on the program with the most device time (hlo_stats' self time
// summed per program, computed here from /data), graph_viewer centred on that program's op with the most self time.
for (const run of withTools) {
  if (!(await menuTools(run)).includes('graph_viewer')) continue;
  await test(`${run}: graph_viewer and memory_viewer open on the busiest program`, async () => {
    // The page opens on the first host whose profile can be read (a damaged one is listed, marked, not chosen).
    const host = ((await api('hosts', { run, tag: 'hlo_stats' })).json ?? []).find((h) => !h.problem)?.hostname ?? '';
    const stats = (await api('data', { run, tag: 'hlo_stats', host })).json;
    const t = Array.isArray(stats) ? stats[0] : stats;
    const ci = (id) => t.cols.findIndex((c) => c.id === id);
    const time = new Map(), top = new Map();
    for (const r of t.rows) {
      const id = String(r.c[ci('program_id')]?.v ?? ''), self = Number(r.c[ci('total_self_time')]?.v ?? 0);
      if (!id || !(self > 0)) continue;
      time.set(id, (time.get(id) ?? 0) + self);
      if (!top.has(id) || self > top.get(id).self) top.set(id, { self, op: String(r.c[ci('hlo_op_name')]?.v) });
    }
    const program = [...time].sort((a, b) => b[1] - a[1])[0]?.[0];
    assert(program !== undefined, 'hlo_stats has no timed op');
    const graph = await openPage(`${base}/?${new URLSearchParams({ run, tool: 'graph_viewer' })}`);
    try {
      await graph.page.waitForSelector('#gv-status[data-program]', { timeout: 60000 });
      const shown = await graph.page.$eval('#gv-status', (e) => ({ program: e.dataset.program, center: e.dataset.center }));
      assert(shown.program === program && shown.center === top.get(program).op,
        `graph opened on ${JSON.stringify(shown)}, busiest program ${program} (op ${top.get(program).op})`);
    } finally { await graph.page.close(); }
    const memory = await openPage(`${base}/?${new URLSearchParams({ run, tool: 'memory_viewer', host })}`);
    try {
      await waitReady(memory.page);
      const module = await memory.page.inputValue('#mv-module');
      assert(module.endsWith(`(${program})`), `memory_viewer opened on ${module}, busiest program ${program}`);
    } finally { await memory.page.close(); }
  });
}

await runXlaLinkTests({ test, openPage, waitReady, api, base, shot, assert, runs: runs.slice(0, maxRuns) });
await runCriticalPathLinkTest({ test, openPage, waitReady, api, base, shot, assert, runs: runs.slice(0, maxRuns) });

await test('a streamed trace fetched a narrower window on zoom', async () => {
  assert(streamingSeen.count > 0, 'no trace_viewer@ page was large enough to stream (filteredByVisibility was never true)');
});

await test('a GPU run shows its derived timelines (Steps, XLA Ops, …) as lanes', async () => {
  assert(derivedLaneSeen.count > 0, 'no trace page served an event on a derived line (Steps, "… - from #<stream>") that search could reach');
});

await test('a flow partner outside the loaded events was fetched and followed', async () => {
  assert(flowFetchSeen.count > 0, 'no trace page had to fetch a flow partner (every partner was already loaded)');
});
if (captureAddr) {
  await test('a page of another origin (another loopback port) cannot make the server capture', async () => {
    // Every way a foreign page can send a request without reading the answer:
    // an image (GET), no-cors fetches (GET and POST), a form POST, and a CORS
    // fetch with the token header (its preflight is never granted).
    const target = `${API}/capture_profile?${new URLSearchParams({ service_addr: captureAddr, duration: '300', num_retry: '0' })}`;
    const html = `<!DOCTYPE html><body><img src="${target}&via=img">
<form id="f" method="POST" action="${target}&via=form" target="sink"></form><iframe name="sink"></iframe>
<script>
fetch(${JSON.stringify(target + '&via=get')}, { mode: 'no-cors', credentials: 'include' }).catch(() => {});
fetch(${JSON.stringify(target + '&via=post')}, { method: 'POST', mode: 'no-cors', credentials: 'include' }).catch(() => {});
fetch(${JSON.stringify(target + '&via=cors')}, { method: 'POST', headers: { 'X-Tbprof-Token': 'guess' } }).catch(() => {});
document.getElementById('f').submit();
</script></body>`;
    const http = await import('node:http');
    const foreign = http.createServer((req, res) => { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end(html); });
    await new Promise((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    const foreignUrl = `http://127.0.0.1:${foreign.address().port}/`;
    const before = (await api('runs', {})).json ?? [];
    const page = await context.newPage();
    const sent = [];
    page.on('request', (r) => { if (r.url().includes('capture_profile')) sent.push(r.url()); });
    try {
      await page.goto(foreignUrl, { waitUntil: 'load' });
      // A capture of 300 ms answers within a few seconds; give every request time to arrive and finish.
      await page.waitForTimeout(4000);
    } finally {
      await page.close();
      foreign.close();
    }
    assert(sent.length >= 4, `the foreign page sent ${sent.length} capture requests, expected at least 4`);
    await new Promise((resolve) => setTimeout(resolve, 1200));  // past the run list's 1 s reuse
    const after = (await api('runs', {})).json ?? [];
    const added = after.filter((r) => !before.includes(r));
    assert(added.length === 0, `a foreign page captured new runs: ${JSON.stringify(added)}`);
  });

  await test('capture dialog: an unreachable job fails clearly, a live job becomes a new run', async () => {
    const config = await api('config', {});
    assert(config.json?.hideCaptureProfileButton === false, `config: ${config.text}`);
    const before = (await api('runs', {})).json ?? [];
    const { page, errors } = await openPage(`${base}/`);
    await page.click('#capture-button');
    await page.waitForSelector('#capture-dialog[open]');
    await page.fill('#capture-dialog input[name=service_addr]', '127.0.0.1:1');
    await page.fill('#capture-dialog input[name=duration]', '200');
    await page.fill('#capture-dialog input[name=num_retry]', '0');
    await page.click('#capture-dialog .capture-submit');
    await page.waitForSelector('.capture-status.capture-error', { timeout: 30000 });
    const failure = await page.textContent('.capture-status');
    assert(/^Failed to capture profile: .*unreachable/.test(failure), `unexpected failure text: ${failure}`);

    await page.fill('#capture-dialog input[name=service_addr]', captureAddr);
    await page.fill('#capture-dialog input[name=duration]', '1500');
    await page.click('#capture-dialog .capture-submit');
    // The progress indicator shows while the server traces.
    await page.waitForSelector('#capture-dialog .capture-progress:not([hidden])', { timeout: 5000 });
    assert(/Capturing…/.test(await page.textContent('.capture-status')), 'no progress text while capturing');
    await page.waitForSelector('.capture-status.capture-ok', { timeout: 60000 });
    assert((await page.textContent('.capture-status')) === 'Capture profile successfully. Please refresh.', 'success text');
    assert(await page.isHidden('#capture-dialog .capture-progress'), 'progress still shown after the answer');
    await shot(page, 'capture_dialog');
    const after = (await api('runs', {})).json ?? [];
    const added = after.filter((r) => !before.includes(r));
    assert(added.length === 1, `expected one new run, got ${JSON.stringify(added)}`);
    // The run list refreshed by itself.
    await page.waitForSelector(`#run-select option[value="${added[0]}"]`, { state: 'attached', timeout: 30000 });
    const host = `${captureAddr.replace(':', '_')}`;
    const hosts = (await api('hosts', { run: added[0], tag: 'trace_viewer' })).json ?? [];
    assert(hosts.some((h) => (typeof h === 'string' ? h : h.hostname) === host), `hosts: ${JSON.stringify(hosts)}`);
    const overview = await api('data', { run: added[0], tag: 'overview_page', host });
    assert(overview.status === 200, `overview_page of the capture: HTTP ${overview.status}`);
    const real = errors.filter((e) => !/Failed to load resource/.test(e));
    assert(real.length === 0, `console errors: ${real.join(' | ')}`);
    await page.close();
  });
}

// The compare page on the demo's pipeline variants (the real server only: the mock has no compare tool).
if (runs.includes('naive') && runs.includes('cache')) {
  await test('compare: reached from a run, paired step bars, sortable and filterable op deltas', async () => {
    const { page, errors } = await openPage(`${base}/?run=cache`);
    await waitReady(page);
    const href = await page.getAttribute('#compare-link', 'href');
    assert(new URLSearchParams(href.slice(1)).get('run') === 'cache', `compare link keeps the run: ${href}`);
    const toolBefore = await page.inputValue('#tool-select'), hostBefore = await page.inputValue('#host-select');
    await page.click('#compare-link');
    await page.waitForSelector('#compare-base-run', { timeout: 30000 });
    await page.selectOption('#compare-base-run', 'naive');
    assert((await waitReady(page, 120000)) === 'true', 'compare page not ready');
    await page.waitForSelector('[data-chart="paired-steps"]', { timeout: 60000 });
    // The top bar keeps showing run B and the tool and host the user came from.
    await page.waitForFunction(() => document.querySelector('#run-select').value !== '' && document.querySelector('#tool-select').value !== '', null, { timeout: 10000 })
      .catch(() => {});
    const bar = await page.evaluate(() => ['#run-select', '#tool-select', '#host-select'].map((id) => {
      const s = document.querySelector(id);
      return { value: s.value, text: s.selectedOptions[0]?.textContent ?? '' };
    }));
    assert(bar[0].value === 'cache' && bar[1].value === toolBefore && bar[1].text !== '' && bar[2].text !== '',
      `the top bar on the compare page shows run "${bar[0].value}", tool "${bar[1].text}" (${bar[1].value}, came from ${toolBefore}), host "${bar[2].text}" (came from ${hostBefore})`);
    const c = (await api('data', { tag: 'compare', run: 'cache', base_run: 'naive' })).json;
    const bars = await page.$$eval('[data-chart="paired-steps"] rect.bar', (r) => r.length);
    assert(bars === 2 * c.steps.filter((m) => m.name !== 'steps').length, `paired bars: ${bars}`);
    // The legend's squares are drawn in A's and B's bar colours (not the axis grey of its text).
    const legend = await page.evaluate(() => {
      const fill = (el) => (el ? getComputedStyle(el).fill : null);
      const chart = document.querySelector('[data-chart="paired-steps"]');
      return ['A', 'B'].map((side) => ({ swatch: fill(chart.querySelector(`.legend-swatch[data-side="${side}"]`)),
        bar: fill(chart.querySelector(`rect.bar[data-side="${side}"]`)) }));
    });
    assert(legend.every((l) => l.swatch && l.swatch === l.bar) && legend[0].swatch !== legend[1].swatch,
      `legend squares ${legend.map((l) => `${l.swatch} (bars ${l.bar})`).join(', ')}`);
    // The demo's harness runs have no device (CPU_ONLY): their device categories are unknown ("—"), not 0 → 0.
    for (const name of ['device_compute_ms', 'device_to_device_ms', 'device_collectives_ms', 'kernel_launch_ms']) {
      const m = c.steps.find((x) => x.name === name);
      assert(m && m.a === null && m.b === null && m.delta === null, `${name} of two CPU-only runs served as ${JSON.stringify(m)}`);
    }
    const deviceRow = await page.$$eval('[data-grid="compare-steps"] tbody tr', (rows) =>
      rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent)).find((cells) => cells[0] === 'Device compute'));
    assert(deviceRow && deviceRow.slice(1).every((cell) => cell === '—'), `Device compute shown as ${JSON.stringify(deviceRow)}`);
    // At 1400 px every column of each table fits: the page does not scroll sideways, and a table wider than its
    // box scrolls within it (its Δ columns reachable there).
    const fit = await page.evaluate(() => ({ page: document.documentElement.scrollWidth - window.innerWidth,
      grids: Array.from(document.querySelectorAll('[data-grid^="compare-"]')).map((g) => {
        const box = g.querySelector('.grid-scroll'), r = box.getBoundingClientRect();
        const ths = Array.from(g.querySelectorAll('th')).map((th) => th.getBoundingClientRect().right - r.left + box.scrollLeft);
        return { name: g.dataset.grid, right: r.right, scrolls: box.scrollWidth > box.clientWidth, lastTh: Math.max(...ths), width: box.scrollWidth };
      }) }));
    assert(fit.page <= 0, `the compare page is ${fit.page} px wider than the 1400 px window`);
    for (const g of fit.grids) {
      assert(g.right <= 1400 && g.lastTh <= g.width + 1, `${g.name}: its box ends at ${g.right} px, its last column at ${g.lastTh} of ${g.width} px`);
    }
    // The step-time delta shown is the server's B − A.
    const stepRow = await page.$$eval('[data-grid="compare-steps"] tbody tr', (rows) =>
      rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent)).find((cells) => cells[0] === 'Step time'));
    const step = c.steps.find((m) => m.name === 'step_time_ms');
    const shownDelta = Number(stepRow[3].replace(/[,+]/g, ''));
    assert(Math.abs(shownDelta - step.delta) < 0.001, `step time delta ${stepRow[3]} != ${step.delta}`);
    assert(await page.$('[data-chart="top-movers"]'), 'no top-movers chart');
    const ops = c.framework_ops.length;
    assert(ops > 0, 'no framework op rows');
    const added = c.framework_ops.filter((r) => r.presence === 'added').length;
    await page.fill('[data-grid="compare-framework-ops"] [data-filter-col="presence"]', 'added');
    await page.waitForFunction(([n]) => document.querySelectorAll('[data-grid="compare-framework-ops"] tbody tr').length === n, [added], { timeout: 10000 });
    await shot(page, 'compare');
    assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
    await page.close();
  });
}

// The compare page over an imported PyTorch run: two of its trace files (hosts, or one worker's spans)
// picked on the page, and one step's host events (HTA's trace diff of iteration 1010).
if (runs.includes('pytorch_hta_pair')) {
  await test('compare: two traces of a PyTorch run, host pickers, one step\'s host events', async () => {
    const q = { view: 'compare', run: 'pytorch_hta_pair', host: 'test', base_run: 'pytorch_hta_pair', base_host: 'base', step: '1010' };
    const { page, errors } = await openPage(`${base}/?${new URLSearchParams(q)}`);
    assert((await waitReady(page, 120000)) === 'true', 'compare page not ready');
    assert((await page.inputValue('#compare-host')) === 'test' && (await page.inputValue('#compare-base-host')) === 'base', 'host pickers do not show the hosts asked');
    const c = (await api('data', { tag: 'compare', run: 'pytorch_hta_pair', host: 'test', base_run: 'pytorch_hta_pair', base_host: 'base', step: '1010' })).json;
    const grid = '[data-grid="compare-step-events"] tbody tr';
    await page.waitForSelector(grid, { timeout: 30000 });
    const shown = await page.$$eval(grid, (rows) => rows.length);
    assert(shown === c.step_events.length && shown === 9, `step events shown ${shown}, served ${c.step_events.length}`);
    await page.fill('[data-grid="compare-step-events"] [data-filter-col="presence"]', 'added');
    await page.waitForFunction((sel) => document.querySelectorAll(sel).length === 3, grid, { timeout: 10000 });
    const added = (await page.$$eval(grid, (rows) => rows.map((r) => r.querySelector('td').textContent))).sort();
    assert(JSON.stringify(added) === JSON.stringify(['AddmmBackward0', 'All2All_Pooled_Req', 'CatBackward0']), `added: ${added}`);
    await shot(page, 'compare_pytorch_step');
    // Picking the same trace as B: nothing added or removed, every delta 0.
    await page.selectOption('#compare-host', 'base');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('host') === 'base' &&
      document.querySelector('.page[data-ready="true"] [data-grid="compare-step-events"]') !== null, null, { timeout: 60000 });
    const presences = await page.$$eval('[data-grid="compare-step-events"] tbody tr', (rows) => rows.map((r) => r.querySelectorAll('td')[2].textContent));
    assert(presences.length === 6 && presences.every((p) => p === 'both'), `self-comparison presences: ${presences}`);
    assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
    await page.close();
  });
}

// A /data tag that is no tool: the answer names it and lists the run's tools (not a bare "No Data").
if (runs.length) {
  await test('data: an unknown tag names the tool and lists what the run offers', async () => {
    const run = runs[0];
    const offered = (await api('run_tools', { run })).json ?? [];
    const { page } = await openPage(`${API}/data?${new URLSearchParams({ run, tag: 'nosuchtool' })}`);
    const text = await page.textContent('body');
    await page.close();
    assert(text.includes('"nosuchtool"'), `the answer does not name the tool: ${text.slice(0, 200)}`);
    const missing = offered.filter((t) => !text.includes(t));
    assert(offered.length > 0 && missing.length === 0, `the answer does not list ${missing.join(', ')} (run ${run} offers ${offered.join(', ')}): ${text.slice(0, 300)}`);
  });
}

await test('every request went to the server itself', async () => {
  assert(foreignRequests.length === 0, `requests to other origins: ${foreignRequests.slice(0, 5).join(', ')}`);
});

await browser.close();
fs.writeFileSync(path.join(artifacts, 'results.txt'), results.join('\n') + '\n');
if (relaunches) console.log(`chromium was started again ${relaunches} time(s) after it ended mid-walk`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
