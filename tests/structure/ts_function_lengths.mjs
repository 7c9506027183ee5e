// Prints every function of the TypeScript and JavaScript files under PATHs
// (the browser UI, its tests and dev server) that is longer than LIMIT lines,
// as "file:line name: N lines", and exits 1 if there is one. The TypeScript
// compiler parses the files (Universal Ctags gives no end line for
// TypeScript): a function is a declaration, a method, an accessor, a
// constructor, or a function or arrow expression that no other function
// holds (a function inside a function counts as part of it, as a lambda
// does in the C++ check). node_modules/ and dist/ are not ours: skipped.
//
//   node tests/structure/ts_function_lengths.mjs LIMIT PATH...
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const [limitArg, ...paths] = process.argv.slice(2);
const limit = Number(limitArg);
if (!Number.isInteger(limit) || limit < 1 || paths.length === 0) {
  console.error('usage: node ts_function_lengths.mjs LIMIT PATH...');
  process.exit(2);
}
const require = createRequire(join(process.cwd(), 'plugin/web/package.json'));
let ts;
try {
  ts = require('typescript');
} catch {
  console.error('check_function_length: needs the UI\'s npm packages (plugin/web/setup.sh installs them)');
  process.exit(2);
}

const SOURCE = /\.(ts|mjs|js)$/;
function* sourceFiles(path) {
  if (!statSync(path).isDirectory()) {
    if (SOURCE.test(path)) yield path;
    return;
  }
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    yield* sourceFiles(join(path, entry.name));
  }
}

function nameOf(node) {
  if (node.name) return node.name.getText();
  // An unnamed function takes the name it is assigned to or passed as.
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) ||
                 ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText();
  }
  return ts.isConstructorDeclaration(node) ? 'constructor' : '(anonymous)';
}

let functions = 0;
const long = [];
for (const path of paths.flatMap((p) => [...sourceFiles(p)])) {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      ++functions;
      const first = lineOf(node.getStart(source)), last = lineOf(node.getEnd());
      const lines = last - first + 1;
      if (lines > limit) long.push(`${relative(process.cwd(), path)}:${first} ${nameOf(node)}: ${lines} lines`);
      return;  // what it holds is part of it
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
for (const line of long.sort()) console.log(line);
console.log(`${functions} functions`);
process.exit(long.length ? 1 : 0);
