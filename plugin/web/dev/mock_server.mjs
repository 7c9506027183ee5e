// Development stand-in for `tbprof serve`: serves dist/ and answers the profile
// routes from the real xprof responses in tests/realdata, plus a generated
// streaming trace (so the trace viewer can be exercised before the server lands).
// Usage: node dev/mock_server.mjs [--port N] [--testdata DIR]   (prints "listening on PORT")
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { makeTrace, traceResponse } from './mock_trace.mjs';
import { kernelStats, tfDataStats } from './mock_tables.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const webRoot = path.resolve(here, '..');
const dist = path.join(webRoot, 'dist');
const args = process.argv.slice(2);
const arg = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const port = Number(arg('--port', '0'));
const testdata = path.resolve(arg('--testdata', path.join(webRoot, '../../tests/realdata')));

const readJson = (rel) => {
  const p = path.join(testdata, rel);
  const buf = fs.readFileSync(p);
  return (p.endsWith('.gz') ? zlib.gunzipSync(buf) : buf).toString('utf8');
};

// trace_analysis of tests/realdata/kineto_nvidia/h100_bert_small.pt.trace.json.gz, written by
// `tbprof convert … --tool trace_analysis` (run it again when the tool's answer changes).
const sample = (name) => zlib.gunzipSync(fs.readFileSync(path.join(here, 'samples', name))).toString('utf8');

const trace = makeTrace({ events: 600000, seed: 7 });
const RUNS = {
  tpu_training: {
    hosts: ['host0'],
    tools: {
      overview_page: () => readJson('xprof_outputs_tpu_training/overview_page.json.gz'),
      'trace_viewer@': (q) => JSON.stringify(traceResponse(trace, q)),
      input_pipeline_analyzer: () => readJson('xprof_outputs_tpu_training/input_pipeline_analyzer.json.gz'),
      kernel_stats: () => JSON.stringify(kernelStats()),
      memory_profile: () => readJson('xprof_outputs_tpu_training/memory_profile.json.gz'),
      pod_viewer: () => readJson('xprof_demo_json/profile_demo.pod_viewer.json'),
      framework_op_stats: () => readJson('xprof_outputs_tpu_training/framework_op_stats.json.gz'),
      hlo_stats: () => readJson('xprof_outputs_tpu_training/hlo_stats.json.gz'),
      tf_data_bottleneck_analysis: () => JSON.stringify(tfDataStats()),
    },
  },
  legacy_demo: {
    hosts: ['profile_demo'],
    tools: {
      overview_page: () => readJson('xprof_demo_json/profile_demo.overview_page.json'),
      input_pipeline_analyzer: () => readJson('xprof_demo_json/profile_demo.input_pipeline.json'),
      // A converter failure, as the real server reports one.
      framework_op_stats: () => { throw Object.assign(new Error('Failed to parse XSpace from host.xplane.pb: truncated message'), { status: 500 }); },
    },
  },
  pytorch_h100_bert: {
    hosts: ['h100_bert_small'],
    tools: { trace_analysis: () => sample('h100_bert_small.trace_analysis.json.gz') },
  },
  empty_run: { hosts: [], tools: {} },
};

const TYPES = { '.html': 'text/html', '.js': 'application/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' };
const CSP = "default-src 'self'; object-src 'none'; frame-ancestors 'none'";

function send(res, status, type, body, extra = {}) {
  res.writeHead(status, { 'Content-Type': type, 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', ...extra });
  res.end(body);
}

function csvOf(json) {
  const data = JSON.parse(json);
  const t = Array.isArray(data) ? data[0] : data;
  const q = (s) => `"${String(s ?? '').replace(/"/g, '""')}"`;
  return [t.cols.map((c) => q(c.label)).join(','), ...t.rows.map((r) => r.c.map((c) => q(c?.v)).join(','))].join('\n') + '\n';
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  let route = url.pathname.startsWith('/data/plugin/profile') ? url.pathname.slice('/data/plugin/profile'.length) : url.pathname;
  if (route.length > 1 && route.endsWith('/')) route = route.slice(0, -1);
  const q = Object.fromEntries(url.searchParams);
  const run = RUNS[q.run];
  try {
    if (route === '/runs') return send(res, 200, 'application/json', JSON.stringify(Object.keys(RUNS).sort().reverse()));
    if (route === '/run_tools') return send(res, 200, 'application/json', JSON.stringify(run ? Object.keys(run.tools) : []));
    if (route === '/hosts') return send(res, 200, 'application/json', JSON.stringify(run ? run.hosts.map((h) => ({ hostname: h })) : []));
    if (route === '/data' || route === '/data_csv') {
      const tool = run?.tools[q.tag];
      // As the real server: a tag that is no tool of the run names it and lists the run's tools.
      if (!tool && run) return send(res, 404, 'text/plain', `No Data: tbprof has no tool "${q.tag}". Run "${q.run}" offers: ${Object.keys(run.tools).join(', ')}.`);
      if (!tool) return send(res, 404, 'text/plain', 'No Data');
      // As the real server: an unknown host is not found, and the answer names the run's hosts.
      if (q.host && !run.hosts.includes(q.host)) {
        return send(res, 404, 'text/plain', `No xplane file found for host: ${q.host} in run: ${q.run} (its hosts: ${run.hosts.join(', ')})`);
      }
      const body = tool(q);
      if (route === '/data_csv') return send(res, 200, 'text/csv', csvOf(body), { 'Content-Disposition': `attachment; filename="${q.tag}_${q.run}.csv"` });
      return send(res, 200, 'application/json', body);
    }
    const file = path.join(dist, path.normalize(route === '/' ? '/index.html' : route));
    if (file.startsWith(dist) && fs.existsSync(file) && fs.statSync(file).isFile()) {
      return send(res, 200, TYPES[path.extname(file)] ?? 'application/octet-stream', fs.readFileSync(file));
    }
    return send(res, 200, 'text/html', fs.readFileSync(path.join(dist, 'index.html')));  // SPA fallback
  } catch (e) {
    return send(res, e.status ?? 500, 'text/plain', String(e.message));
  }
});
server.listen(port, '127.0.0.1', () => console.log(`listening on ${server.address().port}`));
