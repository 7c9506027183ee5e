// The dev mock server answers an unknown host as the real server does: 404, naming the run's hosts
// (it answered 500 before). With --real-base, the real server's answer for an unknown host is checked to have
// the same form, so the two cannot drift apart.
// Usage: node tests/mock_server_test.mjs [--real-base http://127.0.0.1:PORT]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const realBase = args.includes('--real-base') ? args[args.indexOf('--real-base') + 1] : null;
const FORM = /^No xplane file found for host: (.+) in run: (.+) \(its hosts: (.*)\)$/;
let failed = 0;
const check = (ok, what) => { console.log(`${ok ? 'PASS' : 'FAIL'} ${what}`); if (!ok) failed++; };

const mock = spawn(process.execPath, [path.join(here, '../dev/mock_server.mjs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const port = await new Promise((resolve, reject) => {
    mock.stdout.on('data', (b) => { const m = /listening on (\d+)/.exec(String(b)); if (m) resolve(m[1]); });
    mock.on('exit', (code) => reject(new Error(`mock server exited (${code})`)));
  });
  const res = await fetch(`http://127.0.0.1:${port}/data/plugin/profile/data?run=tpu_training&tag=overview_page&host=no-such-host`);
  const text = await res.text();
  const m = FORM.exec(text);
  check(res.status === 404 && m && m[1] === 'no-such-host' && m[3] === 'host0', `mock: an unknown host is 404 naming the hosts (${res.status} "${text}")`);
  if (realBase) {
    const api = `${realBase}/data/plugin/profile`;
    const run = (await (await fetch(`${api}/runs`)).json()).find((r) => r === 'synthetic');
    // The run's own hosts: trace_viewer@ lists each (overview_page lists ALL_HOSTS only, for a multi-host run).
    const hosts = (await (await fetch(`${api}/hosts?run=${run}&tag=trace_viewer@`)).json()).map((h) => h.hostname);
    const real = await fetch(`${api}/data?run=${run}&tag=overview_page&host=no-such-host`);
    const realText = await real.text();
    const r = FORM.exec(realText);
    check(real.status === 404 && r && r[3].split(', ').every((h) => hosts.includes(h)), `real server: the same answer (${real.status} "${realText}")`);
  }
} finally {
  mock.kill();
}
console.log(`${failed ? 0 : 1} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
