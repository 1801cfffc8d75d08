// The README's quick start, pasted into a project that installed the package
// and has toolrpc on PATH, runs and prints what the README says; the packed
// package holds what a consumer needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bin, packageDir, workspace } from './helpers.mjs';

test('the quick start works when pasted', (t) => {
  const readme = fs.readFileSync(path.join(packageDir, 'README.md'), 'utf8');
  const block = /## Quick start[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)[1];
  assert.ok(block.trim().split('\n').length <= 10, 'ten lines at most');
  const ws = workspace(t, { 'a.txt': 'x\n', 'b.js': '// TODO: first\n', 'c.md': 'TODO second\n' });
  const project = path.join(ws.base, 'project');
  fs.mkdirSync(path.join(project, 'node_modules', '@toolrpc'), { recursive: true }); // what npm install leaves
  fs.symlinkSync(packageDir, path.join(project, 'node_modules', '@toolrpc', 'client'));
  fs.writeFileSync(path.join(project, 'quickstart.mjs'), block);
  const binDir = path.join(ws.base, 'bin');
  fs.mkdirSync(binDir);
  fs.symlinkSync(bin, path.join(binDir, 'toolrpc'));
  const env = { ...process.env, PATH: `${binDir}${path.delimiter}${process.env.PATH}` };
  delete env.TOOLRPC_BIN; // found on PATH, as the README says
  const out = execFileSync(process.execPath, [path.join(project, 'quickstart.mjs')], { cwd: ws.root, env, encoding: 'utf8', timeout: 60000 });
  const lines = out.trimEnd().split('\n');
  assert.deepEqual(lines.slice(0, 2).sort(), ['b.js:1: // TODO: first', 'c.md:1: TODO second']);
  assert.deepEqual(lines.slice(2), ['a.txt', 'b.js', 'c.md', 'exit code 0', 'NOT_FOUND']);
});

test('npm pack ships the compiled package, its types and README, not the tests', () => {
  const [info] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageDir, encoding: 'utf8' }));
  const files = info.files.map((f) => f.path);
  for (const want of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/generated.d.ts']) assert.ok(files.includes(want), want);
  assert.ok(!files.some((f) => f.startsWith('test/') || f.startsWith('node_modules/')), files.join(' '));
  const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  assert.equal(pkg.exports['.'].types, './dist/index.d.ts');
  assert.ok(pkg.license);
});
