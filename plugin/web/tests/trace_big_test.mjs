// The trace viewer on a large profile (test.sh serves a one-host synthetic run of about 2M events): "Go to the
// linked event" from the whole view, where the partner is not loaded, must zoom to the partner and draw it selected
// within a second; the ruler counts from the profile's start; a range's label and table keep their places.
// Usage: node tests/trace_big_test.mjs --base http://127.0.0.1:PORT [--artifacts DIR] [--chromium /usr/bin/chromium]
import { chromium } from 'playwright-core';
import path from 'node:path';
import fs from 'node:fs';
import { checkRuler, checkTraceViewerRange } from './trace_checks.mjs';

const args = process.argv.slice(2);
const arg = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const base = arg('--base');
const artifacts = path.resolve(arg('--artifacts', 'web-artifacts'));
const executablePath = arg('--chromium', '/usr/bin/chromium');
const LIMIT_MS = 1000;
if (!base) { console.error('usage: trace_big_test.mjs --base URL'); process.exit(2); }
fs.mkdirSync(artifacts, { recursive: true });
const API = `${base}/data/plugin/profile`;
const assert = (cond, msg) => { if (!cond) throw new Error(msg); };
const getJson = async (route, params) => (await fetch(`${API}/${route}?${new URLSearchParams(params)}`)).json();

const run = (await getJson('runs', {}))[0];
const host = (await getJson('hosts', { run, tag: 'trace_viewer@' }))[0]?.hostname;
const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
const errors = [];
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
const traceRequests = [];
page.on('request', (r) => { if (r.url().startsWith(`${API}/data?`)) traceRequests.push(r.url()); });

let failed = 0;
const t0 = Date.now();
try {
  // The first load builds the server's trace index of the whole profile: minutes on a busy 2-core machine.
  await page.goto(`${base}/?${new URLSearchParams({ run, tool: 'trace_viewer@', host })}`, { waitUntil: 'load' });
  await page.waitForSelector('.page[data-ready="true"]', { timeout: 300000 });
  const first = await (await fetch(traceRequests[0])).json();
  assert(first.filteredByVisibility === true, 'the large profile was not streamed');

  // A flow end whose partner the first (coarse) answer lacks: following it needs a fetch. The earliest such
  // event is reached in the fewest steps of the whole-trace search (its matches are stepped in time order).
  const inFirst = new Map();
  for (const e of first.traceEvents) if (e.bind_id !== undefined) inFirst.set(e.bind_id, (inFirst.get(e.bind_id) ?? 0) + 1);
  const from = first.traceEvents.filter((e) => e.ph === 'X' && e.bind_id !== undefined && inFirst.get(e.bind_id) === 1)
    .sort((a, b) => a.ts - b.ts)[0];
  assert(from, 'no flow event in the first answer');
  const span = first.fullTimespan;
  const found = await getJson('data', { run, tag: 'trace_viewer@', host, search_prefix: from.name, resolution: '0', replace_model: 'false' });
  const hits = new Map();
  for (const e of found.traceEvents ?? []) if (e.ph === 'X' && e.name.toLowerCase().includes(from.name.toLowerCase())) hits.set(`${e.pid}:${e.tid}|${e.ts}|${e.name}`, e.ts);
  const steps = [...hits.values()].filter((ts) => ts < from.ts).length + 1;
  await page.fill('#trace-search', from.name);
  await page.press('#trace-search', 'Enter');
  await page.waitForFunction(() => /^match /.test(document.querySelector('#trace-search-info')?.textContent ?? ''), null, { timeout: 120000 });
  const detail = (k) => page.$$eval('#trace-details table.kv tr', (rows, key) => rows.find((r) => r.querySelector('th')?.textContent === key)?.querySelector('td')?.textContent ?? '', k);
  for (let i = 1; i < steps; i++) {
    await page.press('#trace-search', 'Enter');
    await page.waitForFunction((k) => (document.querySelector('#trace-search-info')?.textContent ?? '').startsWith(`match ${k} `), i + 1, { timeout: 60000 });
  }
  assert(await detail('Flow id') === String(from.bind_id), `${steps} search steps reached flow id ${await detail('Flow id')}, not ${from.bind_id}`);
  await page.fill('#trace-search', '');
  await page.press('#trace-search', 'Escape');
  await page.keyboard.press('z');  // the whole view: only the coarse layer is loaded
  await page.waitForTimeout(600);
  const keyBefore = await page.getAttribute('.trace-canvas', 'data-selected-key');

  // Time from the click to the frame that draws the partner selected.
  const elapsed = await page.evaluate((before) => new Promise((resolve) => {
    const start = performance.now();
    document.querySelector('#trace-follow-flow').click();
    const tick = () => {
      const key = document.querySelector('.trace-canvas').dataset.selectedKey;
      if (key && key !== before) resolve(performance.now() - start);
      else if (performance.now() - start > 60000) resolve(Infinity);
      else requestAnimationFrame(tick);
    };
    tick();
  }), keyBefore);
  console.log(`  linked event: selected and drawn ${elapsed.toFixed(0)} ms after the click (limit ${LIMIT_MS} ms); ` +
    `page's own measure ${await page.getAttribute('.page', 'data-flow-ms')} ms; note "${await page.textContent('#trace-flow-note')}"`);
  await page.screenshot({ path: path.join(artifacts, 'trace-big-linked-event.png') });
  assert(elapsed < LIMIT_MS, `going to the linked event took ${elapsed.toFixed(0)} ms on a profile of about 2M events`);
  assert(await detail('Flow id') === String(from.bind_id), `followed flow ${from.bind_id} to flow ${await detail('Flow id')}`);

  // The partner is in view, a readable part of it, and drawn highlighted (its orange halo is on the canvas).
  const u = new URL(await page.evaluate(() => location.href)).searchParams;
  const v0 = Number(u.get('view_start')) * 1000, v1 = Number(u.get('view_end')) * 1000;
  const startText = await detail('Start'), durText = await detail('Duration');
  const us = (t) => { const m = /(-?[\d.,]+)\s*(s|ms|µs|ns)/.exec(t); return Number(m[1].replace(/,/g, '')) * { s: 1e6, ms: 1e3, 'µs': 1, ns: 1e-3 }[m[2]]; };
  const pStart = us(startText), pDur = us(durText);
  assert(pStart >= v0 && pStart + pDur <= v1, `the partner ${startText}+${durText} is outside the view ${v0}–${v1} µs`);
  assert(pDur === 0 || pDur / (v1 - v0) >= 0.1, `the partner fills ${((100 * pDur) / (v1 - v0)).toFixed(2)}% of the view`);
  const box = await page.evaluate(() => {
    const c = document.querySelector('.trace-canvas'), r = c.getBoundingClientRect(), d = c.dataset;
    const x = Number(d.selectedX) - r.left, y = Number(d.selectedY) - r.top, w = Number(d.selectedW);
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height), dpr = c.width / r.width;
    let halo = 0;
    for (let yy = y - 13; yy <= y + 12; yy++) for (let xx = x - w / 2 - 4; xx <= x + w / 2 + 4; xx++) {
      const i = (Math.round(yy * dpr) * c.width + Math.round(xx * dpr)) * 4;
      if (Math.abs(px.data[i] - 255) < 20 && Math.abs(px.data[i + 1] - 140) < 25 && px.data[i + 2] < 40) halo++;
    }
    return { x, y, w, width: r.width, height: r.height, halo, ruler: JSON.parse(d.ruler) };
  });
  assert(box.x >= box.ruler.plotLeft && box.x <= box.width && box.y >= box.ruler.height && box.y <= box.height,
    `the partner is drawn at (${box.x}, ${box.y}), outside the timeline`);
  assert(box.w >= 4, `the partner is drawn ${box.w} px wide`);
  assert(box.halo > 10, `the partner has no highlight (${box.halo} highlight pixels)`);
  await checkRuler(page, first, assert);
  // A range over the whole view: its label and table.
  await checkTraceViewerRange(page, assert);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  console.log(`PASS trace viewer on a large profile (${span[1] - span[0]} ms traced) (${Date.now() - t0} ms)`);
} catch (e) {
  failed = 1;
  await page.screenshot({ path: path.join(artifacts, 'trace-big-FAILED.png') }).catch(() => {});
  console.log(`FAIL trace viewer on a large profile: ${e.stack ?? e.message}`);
}
await browser.close();
console.log(`${1 - failed} passed, ${failed} failed`);
process.exit(failed);
