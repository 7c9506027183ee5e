// Bundles src/ into dist/ (index.html, bundle.js, styles.css, favicon.svg). Skips work when
// every output is newer than every input, so setup stays fast on re-runs.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const STATIC = ['index.html', 'styles.css', 'favicon.svg'];
const outputs = ['bundle.js', ...STATIC].map((f) => path.join(dist, f));

function newestInput(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestInput(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

const inputsTime = Math.max(newestInput(src), fs.statSync(path.join(root, 'build.mjs')).mtimeMs,
                            fs.statSync(path.join(root, 'package-lock.json')).mtimeMs);
const upToDate = outputs.every((f) => fs.existsSync(f) && fs.statSync(f).mtimeMs >= inputsTime);
if (upToDate && !process.argv.includes('--force')) {
  console.log('web: dist/ is up to date');
  process.exit(0);
}

fs.mkdirSync(dist, { recursive: true });
await build({
  entryPoints: [path.join(src, 'main.ts')],
  bundle: true,
  minify: true,
  sourcemap: false,
  format: 'iife',
  target: ['chrome110', 'firefox110', 'safari16'],
  outfile: path.join(dist, 'bundle.js'),
  logLevel: 'warning',
});
for (const f of STATIC) fs.copyFileSync(path.join(src, f), path.join(dist, f));
const size = fs.statSync(path.join(dist, 'bundle.js')).size;
console.log(`web: built dist/ (bundle.js ${(size / 1024).toFixed(1)} KiB)`);
