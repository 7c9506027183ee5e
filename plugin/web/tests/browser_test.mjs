// Browser tests for the tbprof UI: drives Debian's chromium (headless, via
// playwright-core) against a running server and checks every tool page against
// the numbers the server's own API returns.
// Usage: node tests/browser_test.mjs --base http://127.0.0.1:PORT --artifacts DIR [--chromium /usr/bin/chromium]
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { checks, streamingSeen } from './tool_checks.mjs';
import { xlaChecks, runXlaLinkTests } from './xla_checks.mjs';
Object.assign(checks, xlaChecks);

const args = process.argv.slice(2);
const arg = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const base = arg('--base');
const artifacts = path.resolve(arg('--artifacts', 'web-artifacts'));
const executablePath = arg('--chromium', '/usr/bin/chromium');
const maxRuns = Number(arg('--max-runs', '20'));
if (!base) { console.error('usage: browser_test.mjs --base URL'); process.exit(2); }
fs.mkdirSync(artifacts, { recursive: true });
const origin = new URL(base).origin;
const API = `${base}/data/plugin/profile`;

let passed = 0, failed = 0;
const results = [];
async function test(name, fn) {
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

const browser = await chromium.launch({ executablePath, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update',
    '--no-first-run', '--disable-default-apps', '--disable-sync', '--disable-extensions'] });
const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
const foreignRequests = [];

// A page with its console errors, uncaught errors and every request it makes recorded.
async function openPage(url) {
  const page = await context.newPage();
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

const runs = (await api('runs', {})).json ?? [];

await test('shell: run selector lists the runs from /runs', async () => {
  const { page, errors } = await openPage(`${base}/`);
  await page.waitForFunction(() => document.querySelectorAll('#run-select option').length > 0 || document.querySelector('.msg'), null, { timeout: 30000 });
  const shown = await page.$$eval('#run-select option', (o) => o.map((x) => x.value));
  assert(JSON.stringify(shown) === JSON.stringify(runs), `runs shown ${JSON.stringify(shown)} != /runs ${JSON.stringify(runs)}`);
  if (runs.length) {
    await page.waitForFunction(() => new URL(location.href).searchParams.has('tool') || document.querySelector('.msg'), null, { timeout: 30000 });
    const tools = (await api('run_tools', { run: runs[0] })).json;
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
  const tools = (await api('run_tools', { run })).json ?? [];
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
    const hosts = ((await api('hosts', { run, tag: tool })).json ?? []).map((h) => (typeof h === 'string' ? h : h.hostname));
    const host = hosts[0] ?? '';
    await test(`${run}/${tool}/${host || 'default'}`, async () => {
      const q = new URLSearchParams({ run, tool, host });
      const { page, errors, dataRequests } = await openPage(`${base}/?${q}`);
      const streaming = tool.startsWith('trace_viewer@');
      const data = await api('data', { run, tag: tool, host, ...(streaming ? { resolution: '100' } : {}) });
      const state = await waitReady(page, 120000);
      const url = new URL(page.url());
      assert(url.searchParams.get('run') === run && url.searchParams.get('tool') === tool, `deep link lost: ${page.url()}`);
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
        } catch (e) {
          await shot(page, `${run}-${tool}-FAILED`);
          throw e;
        }
      }
      await shot(page, `${run}-${tool}`);
      assert(errors.length === allowedErrors, `console errors: ${errors.join(' | ')}`);
      await page.close();
    });
  }
}

// pod_viewer is servable for xplane runs although run_tools leaves it out: a deep link opens it.
for (const run of runs.slice(0, maxRuns)) {
  const tools = (await api('run_tools', { run })).json ?? [];
  if (!tools.includes('overview_page') || tools.includes('pod_viewer')) continue;
  const hosts = ((await api('hosts', { run, tag: 'pod_viewer' })).json ?? []).map((h) => h.hostname ?? h);
  if (!hosts.includes('ALL_HOSTS')) continue;
  await test(`${run}/pod_viewer/ALL_HOSTS (deep link to an unlisted tool)`, async () => {
    const data = await api('data', { run, tag: 'pod_viewer', host: 'ALL_HOSTS' });
    const { page, errors, dataRequests } = await openPage(`${base}/?${new URLSearchParams({ run, tool: 'pod_viewer', host: 'ALL_HOSTS' })}`);
    const state = await waitReady(page, 120000);
    assert(data.status === 200 ? state === 'true' : state === 'error', `page state ${state} for HTTP ${data.status}`);
    if (data.status === 200) await checks.pod_viewer({ page, data: data.json, assert, dataRequests });
    await shot(page, `${run}-pod_viewer`);
    assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
    await page.close();
  });
  break;
}

await runXlaLinkTests({ test, openPage, waitReady, api, base, shot, assert, runs: runs.slice(0, maxRuns) });

await test('a streamed trace fetched a narrower window on zoom', async () => {
  assert(streamingSeen.count > 0, 'no trace_viewer@ page was large enough to stream (filteredByVisibility was never true)');
});

await test('every request went to the server itself', async () => {
  assert(foreignRequests.length === 0, `requests to other origins: ${foreignRequests.slice(0, 5).join(', ')}`);
});

await browser.close();
fs.writeFileSync(path.join(artifacts, 'results.txt'), results.join('\n') + '\n');
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
