// The trace viewer's first picture of a 50–100k-event trace (test.sh's PyTorch run, ResNet-50's worker0: about
// 50k events, 30 MB of trace JSON): the time from the navigation's start to the first canvas frame with events,
// read from the page's own mark (data-first-paint-ms). The first load meets the server cold (listing and
// conversion); the second finds its answer cached, so it measures the page: that one fails past the guard.
// Usage: node tests/trace_first_paint_test.mjs --base http://127.0.0.1:PORT [--chromium /usr/bin/chromium]
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const arg = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const base = arg('--base');
const executablePath = arg('--chromium', '/usr/bin/chromium');
const run = arg('--run', 'pytorch_resnet50');
const TARGET_MS = 1500, GUARD_MS = 3000;
if (!base) { console.error('usage: trace_first_paint_test.mjs --base URL'); process.exit(2); }
const API = `${base}/data/plugin/profile`;
const getJson = async (route, params) => (await fetch(`${API}/${route}?${new URLSearchParams(params)}`)).json();

let failed = 0;
const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  const tool = (await getJson('run_tools', { run })).find((t) => t.startsWith('trace_viewer'));
  if (!tool) throw new Error(`run ${run} offers no trace viewer`);
  const host = (await getJson('hosts', { run, tag: tool }))[0]?.hostname;
  // One load in a fresh browser context (no cache): ms from navigation start to the first frame with events.
  const firstPaint = async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    let served = null;
    page.on('request', (r) => { if (r.url().startsWith(`${API}/data?`)) served = r.url(); });
    await page.goto(`${base}/?${new URLSearchParams({ run, tool, host })}`, { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelector('.trace-canvas')?.dataset.firstPaintMs, null, { timeout: 120000 });
    const ms = Number(await page.getAttribute('.trace-canvas', 'data-first-paint-ms'));
    const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime)])));
    // The events of the answer drawn (asked again of the server, which has it cached).
    const events = served ? ((await (await fetch(served)).json()).traceEvents ?? []).length : 0;
    await context.close();
    if (errors.length) throw new Error(`page errors: ${errors.join(' | ')}`);
    return { ms, marks, events };
  };
  const cold = await firstPaint();
  const warm = await firstPaint();
  const parts = (m) => `request sent ${m['tbprof-trace-request']} ms, answer parsed ${m['tbprof-trace-parsed']} ms, ` +
    `lanes built ${m['tbprof-trace-built']} ms`;
  console.log(`  first paint of ${run}'s trace (${warm.events} events): ${warm.ms} ms with the server's answer cached ` +
    `(target ${TARGET_MS} ms, fails over ${GUARD_MS} ms; ${parts(warm.marks)}); ${cold.ms} ms with the server cold (${parts(cold.marks)})`);
  if (warm.events < 50000 || warm.events > 100000) throw new Error(`the trace has ${warm.events} events, not 50–100k`);
  if (warm.ms > GUARD_MS) throw new Error(`the first paint took ${warm.ms} ms (target ${TARGET_MS} ms)`);
  console.log(`PASS trace viewer first paint of a 50–100k-event trace`);
} catch (e) {
  failed = 1;
  console.log(`FAIL trace viewer first paint of a 50–100k-event trace: ${e.stack ?? e.message}`);
}
await browser.close();
console.log(`${1 - failed} passed, ${failed} failed`);
process.exit(failed);
