// Measures the trace viewer on a large profile: time to first picture, window
// fetches while zooming, and canvas frame times. A measurement, not a test.
// Usage: node dev/measure_trace.mjs --base http://127.0.0.1:PORT --run RUN --host HOST [--chromium /usr/bin/chromium]
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const arg = (n, d) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : d; };
const base = arg('--base'), run = arg('--run'), host = arg('--host', '');
const browser = await chromium.launch({ executablePath: arg('--chromium', '/usr/bin/chromium'), args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const fetches = new Map();
page.on('request', (r) => { if (r.url().includes('/data?')) fetches.set(r.url(), { start: Date.now() }); });
page.on('requestfinished', async (r) => {
  const f = fetches.get(r.url());
  if (f) { f.ms = Date.now() - f.start; f.bytes = (await r.sizes()).responseBodySize; }
});
page.on('console', (m) => { if (m.type() === 'error') console.log('console error:', m.text()); });

const t0 = Date.now();
await page.goto(`${base}/?${new URLSearchParams({ run, tool: 'trace_viewer@', host })}`);
await page.waitForSelector('.page[data-ready]', { timeout: 600000 });
console.log(`first picture after ${Date.now() - t0} ms: ${await page.textContent('#trace-status')}`);

// Frame intervals while zooming in step by step with W, then panning with D.
const canvas = await page.$('.trace-canvas');
const bb = await canvas.boundingBox();
await page.mouse.move(bb.x + bb.width * 0.4, bb.y + 80);
await page.evaluate(() => {
  const w = window; w.frames_ = []; let last = performance.now();
  const tick = (t) => { w.frames_.push(t - last); last = t; if (w.frames_.length < 100000) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
});
const drawMs = [];
const idle = async () => {
  await page.waitForTimeout(400);  // past the viewer's 150 ms debounce
  await page.waitForFunction(() => document.querySelector('#trace-status')?.getAttribute('data-loading') === 'false', null, { timeout: 120000 });
};
// Rounds of zooming in (then panning), pausing after each so the viewer fetches the new window.
for (const [key, times] of [['w', 8], ['w', 8], ['w', 8], ['w', 8], ['d', 5], ['s', 6]]) {
  for (let i = 0; i < times; i++) {
    await page.keyboard.press(key);
    await page.waitForTimeout(50);
    drawMs.push(Number(await page.getAttribute('.trace-canvas', 'data-draw-ms')));
  }
  await idle();
  console.log(`after ${times}×${key}: ${await page.textContent('#trace-status')}`);
}
const frames = await page.evaluate(() => window.frames_.slice(1));
const pct = (a, p) => { const s = a.slice().sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
console.log(`canvas draw: median ${pct(drawMs, 0.5).toFixed(2)} ms, p95 ${pct(drawMs, 0.95).toFixed(2)} ms, max ${Math.max(...drawMs).toFixed(2)} ms`);
console.log(`frame interval during zoom/pan: median ${pct(frames, 0.5).toFixed(1)} ms, p95 ${pct(frames, 0.95).toFixed(1)} ms (${frames.length} frames)`);
const list = Array.from(fetches.entries()).map(([u, f]) => ({ q: new URL(u).searchParams, ...f }));
for (const f of list) {
  const win = f.q.has('end_time_ms') ? `${(Number(f.q.get('end_time_ms')) - Number(f.q.get('start_time_ms'))).toFixed(3)} ms window` : 'whole trace';
  console.log(`fetch ${win} @ resolution ${f.q.get('resolution')}: ${f.ms ?? '(aborted)'} ms, ${f.bytes ?? '?'} bytes`);
}
console.log(`final: ${await page.textContent('#trace-status')}`);
await page.screenshot({ path: arg('--screenshot', 'trace-measure.png') });
await browser.close();
