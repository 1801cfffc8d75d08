#!/usr/bin/env node
// A vscode-jsonrpc host that shows a language server's indexing the way VS
// Code's language client does: it declares window.workDoneProgress, accepts
// window/workDoneProgress/create and listens with onProgress on each token
// it accepted. It checks that the content index build of its root arrives
// as begin, reports and end on one accepted token (SPEC §12).
//
// Usage: node progress.js [PATH-TO-TOOLRPC]   (default: $TOOLRPC_BIN)
//
// It prints one JSON summary on stdout ({ok, checks, ...}) and exits 1 if a
// check failed.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const rpc = require('vscode-jsonrpc/node');

const bin = process.argv[2] || process.env.TOOLRPC_BIN;
if (!bin) {
  process.stderr.write('usage: node progress.js PATH-TO-TOOLRPC (or TOOLRPC_BIN)\n');
  process.exit(2);
}
const watchdogMs = Number(process.env.TOOLRPC_NODE_WATCHDOG_MS || 180000);

const checks = [];
function check(name, ok, detail) {
  checks.push(ok || detail === undefined ? { name, ok: !!ok } : { name, ok: false, detail });
  return !!ok;
}

// tree writes 1500 files of random words: an index build that takes a while.
function tree() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolrpc-node-progress-'));
  const root = path.join(base, 'root');
  const dataDir = path.join(base, 'data');
  fs.mkdirSync(dataDir);
  const words = ['alpha', 'Beta', 'gamma_', 'DELTA', 'pm_resume', '\n', ' '];
  for (let i = 0; i < 1500; i++) {
    const dir = path.join(root, `d${i % 20}`);
    fs.mkdirSync(dir, { recursive: true });
    let s = '';
    while (s.length < 4096) s += words[(i * 7 + s.length) % words.length] + (s.length % 997);
    fs.writeFileSync(path.join(dir, `f${i}.txt`), s);
  }
  return { base, root: fs.realpathSync(root), dataDir: fs.realpathSync(dataDir) };
}

async function main() {
  const fx = tree();
  const child = spawn(bin, [], { cwd: fx.root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderrTail = '';
  child.stderr.on('data', (b) => {
    stderrTail = (stderrTail + b.toString('utf8')).slice(-4000);
  });
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );

  // token -> the values received with onProgress, in order.
  const byToken = new Map();
  const created = [];
  connection.onRequest('window/workDoneProgress/create', (params) => {
    created.push(params.token);
    const values = [];
    byToken.set(params.token, values);
    connection.onProgress(new rpc.ProgressType(), params.token, (v) => values.push(v));
    return null;
  });
  let stray = 0;
  connection.onUnhandledProgress(() => stray++); // $/progress on a token nobody listens to
  connection.listen();

  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: `file://${fx.root}`,
    capabilities: { window: { workDoneProgress: true } },
    initializationOptions: { dataDir: fx.dataDir, sessionId: 'node-progress' },
  });
  await connection.sendNotification('initialized', {});
  await connection.sendRequest('tools/grep', { pattern: 'pm_resume1', outputMode: 'count' });

  const title = `Indexing ${fx.root}`;
  const indexValues = () => [...byToken.values()].find((vs) => vs.length > 0 && vs[0].title === title);
  const end = Date.now() + watchdogMs / 2;
  while (Date.now() < end) {
    const vs = indexValues();
    if (vs && vs[vs.length - 1].kind === 'end') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const vs = indexValues() || [];
  const kinds = vs.map((v) => v.kind);
  check('created tokens', created.length >= 1, { created });
  check('index begin', kinds[0] === 'begin' && vs[0].percentage === 0, { first: vs[0] });
  check('index end', kinds[kinds.length - 1] === 'end', { kinds });
  check('only reports between', kinds.slice(1, -1).every((k) => k === 'report'), { kinds });
  let prev = 0;
  const rising = vs.every((v) => {
    if (v.percentage === undefined) return true;
    const ok = v.percentage >= prev && v.percentage <= 100;
    prev = v.percentage;
    return ok;
  });
  check('percentages rise to at most 100', rising, { values: vs });
  check('no $/progress on a token never created', stray === 0, { stray });

  await connection.sendRequest('shutdown');
  await connection.sendNotification('exit');
  await new Promise((resolve) => child.on('exit', resolve));
  connection.dispose();
  fs.rmSync(fx.base, { recursive: true, force: true });
  return stderrTail;
}

const watchdog = setTimeout(() => {
  check('watchdog', false, `no result after ${watchdogMs} ms`);
  finish('');
}, watchdogMs);

function finish(serverStderr) {
  clearTimeout(watchdog);
  const ok = checks.length > 0 && checks.every((c) => c.ok);
  process.stdout.write(JSON.stringify({ ok, checks, serverStderr: ok ? '' : serverStderr }) + '\n');
  process.exit(ok ? 0 : 1);
}

main().then(finish, (e) => {
  check('run', false, String(e && e.stack ? e.stack : e));
  finish('');
});
