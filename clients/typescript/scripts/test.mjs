#!/usr/bin/env node
// test is `npm test`: it compiles the package with tsc, gets a toolrpc binary
// ($TOOLRPC_BIN, else `go build` of this repository into a temp dir), and
// runs every test/*.test.mjs with node's own test runner against it (TAP
// output, whose "# fail 0" / "# skipped 0" lines conformance/tsclient_test.go reads).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { packageDir, serverBin } from './server-bin.mjs';

const require = createRequire(import.meta.url);
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', packageDir], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const { bin, cleanup } = serverBin();
const testDir = path.join(packageDir, 'test');
const files = fs.readdirSync(testDir).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => path.join(testDir, f));
const only = process.argv.slice(2);
const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', ...(only.length ? only : files)], {
  stdio: 'inherit',
  env: { ...process.env, TOOLRPC_BIN: bin },
});
cleanup();
process.exit(run.status ?? 1);
