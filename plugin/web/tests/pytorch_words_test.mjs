// A PyTorch run's pages speak PyTorch: on each PyTorch run of the logdir (runs
// named pytorch_*), the overview and the input pipeline page show the step
// breakdown in torch-tb-profiler's categories (the overview also tells GPU
// utilization from device idle time), framework_op_stats has no Execution mode
// column nor TensorFlow/JAX wording, and no page of the run shows a
// TensorFlow term (tf.data, TPU, XLA, eager).
// Usage: node tests/pytorch_words_test.mjs --base http://127.0.0.1:PORT [--chromium /usr/bin/chromium] [--artifacts DIR]
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const arg = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const base = arg('--base');
const artifacts = path.resolve(arg('--artifacts', 'web-artifacts'));
const executablePath = arg('--chromium', '/usr/bin/chromium');
if (!base) { console.error('usage: pytorch_words_test.mjs --base URL'); process.exit(2); }
fs.mkdirSync(artifacts, { recursive: true });
const API = `${base}/data/plugin/profile`;

const CATEGORIES = ['Kernel', 'Memcpy', 'Memset', 'Communication', 'Runtime', 'DataLoader', 'CPU Exec', 'Other'];
const TENSORFLOW_TERMS = /tf\.data|\bTPU\b|\bXLA\b|eager/i;
// Pages of a tool that reads another framework's files, or the trace (its own check): not walked here.
const SKIPPED = /^(trace_viewer|graph_viewer|tfprof)/;

let passed = 0, failed = 0;
async function test(name, fn) {
  try { await fn(); passed++; console.log(`PASS ${name}`); } catch (e) { failed++; console.log(`FAIL ${name}: ${e.message}`); }
}
function assert(cond, msg) { if (!cond) throw new Error(msg); }
async function api(route, params) {
  const res = await fetch(`${API}/${route}?${new URLSearchParams(params)}`);
  return res.ok ? res.json() : null;
}

const runs = ((await api('runs', {})) ?? []).filter((r) => /^pytorch/.test(r));
const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });

await test('there are two PyTorch runs to check', async () => assert(runs.length >= 2, `PyTorch runs: ${JSON.stringify(runs)}`));

for (const run of runs) {
  const tools = ((await api('run_tools', { run })) ?? []).filter((t) => !SKIPPED.test(t));
  for (const tool of tools) {
    await test(`${run}/${tool}: PyTorch's words`, async () => {
      const page = await context.newPage();
      try {
        await page.goto(`${base}/?${new URLSearchParams({ run, tool })}`, { waitUntil: 'load' });
        await page.waitForSelector('.page[data-ready]', { timeout: 120000 });
        // What a reader sees and what hovering shows.
        const text = await page.$eval('.page', (p) => p.innerText + '\n' +
          Array.from(p.querySelectorAll('[title]')).map((e) => e.getAttribute('title')).join('\n'));
        const found = TENSORFLOW_TERMS.exec(text);
        assert(!found, `TensorFlow term "${found?.[0]}" in: …${text.slice(Math.max(0, (found?.index ?? 0) - 80), (found?.index ?? 0) + 80)}…`);
        if (tool.startsWith('overview_page')) {
          const labels = await page.$$eval('.stat-card', (cs) => cs.map((c) => c.getAttribute('data-stat')));
          for (const c of CATEGORIES) assert(labels.includes(c), `overview has no "${c}" card: ${JSON.stringify(labels)}`);
          const note = await page.$eval('#gpu-util-vs-idle', (n) => n.textContent).catch(() => '');
          assert(/GPU utilization/.test(note) && /device idle/.test(note), 'no sentence telling GPU utilization from device idle time');
        }
        if (tool.startsWith('framework_op_stats')) {
          assert(!/Execution mode/.test(text), 'framework_op_stats shows TensorFlow\'s Execution mode column');
          assert(!/TensorFlow|JAX/.test(text), 'framework_op_stats explains itself in TensorFlow/JAX terms');
        }
        if (tool.startsWith('input_pipeline')) {
          for (const c of CATEGORIES) assert(text.includes(c), `input pipeline page does not name "${c}"`);
          assert(/DataLoader time per step/.test(text), 'no DataLoader time per step');
          assert(/num_workers/.test(text) && /pin_memory/.test(text) && /prefetch/.test(text), 'no PyTorch input advice');
        }
        await page.screenshot({ path: path.join(artifacts, `pytorch-words-${run}-${tool}.png`.replace(/[^A-Za-z0-9_.-]/g, '_')), fullPage: true });
      } finally {
        await page.close();
      }
    });
  }
}

await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
