#!/usr/bin/env node
// bench measures the per-call overhead of @toolrpc/client against raw
// vscode-jsonrpc: the same calls to two servers of the same binary, one
// driven by a ToolRPC, one by a bare MessageConnection, interleaved call by
// call (A B B A ...) after a warm-up, median of --n round trips (default 1000).
//
// Usage: npm run bench [-- --n 1000]   (binary: $TOOLRPC_BIN, else go build)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import rpc from 'vscode-jsonrpc/node';
import { packageDir, serverBin } from './server-bin.mjs';

const require = createRequire(import.meta.url);
const { ToolRPC } = require(packageDir);
const n = Number(process.argv[process.argv.indexOf('--n') + 1]) || 1000;

async function raw(bin, root) {
  const child = spawn(bin, [], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  conn.listen();
  await conn.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: {}, initializationOptions: { dataDir: path.join(root, '..', 'data-raw') } });
  await conn.sendNotification('initialized', {});
  return {
    // Without params when there are none: sendRequest(method, undefined) would send [null].
    call: (method, params) => (params === undefined ? conn.sendRequest(method) : conn.sendRequest(method, params)),
    async close() {
      await conn.sendRequest('shutdown');
      await conn.sendNotification('exit');
      await new Promise((r) => child.once('exit', r));
      conn.dispose();
    },
  };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function main() {
  const { bin, cleanup } = serverBin();
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolrpc-ts-bench-')));
  const root = path.join(base, 'root');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'tiny.txt'), 'one line\n');
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const loadBefore = load();
  const r = await raw(bin, root);
  const tr = await ToolRPC.spawn({ bin, root, dataDir: path.join(base, 'data-client') });
  const ac = new AbortController();
  const rows = [
    ['tools/list', () => r.call('tools/list'), () => tr.tools()],
    ['tools/read tiny.txt', () => r.call('tools/read', { path: 'tiny.txt' }), () => tr.read({ path: 'tiny.txt' })],
    ['tools/read tiny.txt, with an AbortSignal', () => r.call('tools/read', { path: 'tiny.txt' }), () => tr.read({ path: 'tiny.txt' }, { signal: ac.signal })],
  ];
  const out = [];
  for (const [name, rawCall, clientCall] of rows) {
    for (let i = 0; i < 100; i++) {
      await rawCall();
      await clientCall();
    }
    const a = [];
    const b = [];
    for (let i = 0; i < n; i++) {
      if (i % 2 === 0) {
        a.push(await time(rawCall));
        b.push(await time(clientCall));
      } else {
        b.push(await time(clientCall));
        a.push(await time(rawCall));
      }
    }
    const ra = median(a);
    const rb = median(b);
    out.push({ call: name, rawMs: ra.toFixed(4), clientMs: rb.toFixed(4), overheadUs: ((rb - ra) * 1000).toFixed(1), ratio: (rb / ra).toFixed(3) });
  }
  await tr.close();
  await r.close();
  cleanup();
  fs.rmSync(base, { recursive: true, force: true });
  console.log(`median of ${n} round trips each, interleaved; node ${process.version}, ${os.cpus().length} cpus; load average before ${loadBefore}, after ${load()}`);
  console.table(out);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
