#!/usr/bin/env node
// A Node host driving toolrpc the way VS Code extensions and Electron apps do:
// vscode-jsonrpc's StreamMessageReader/StreamMessageWriter over the child's
// stdio, onProgress for $/progress, a CancellationToken for $/cancelRequest.
//
// Usage: node host.js [PATH-TO-TOOLRPC]   (default: $TOOLRPC_BIN)
//
// It prints one JSON summary on stdout ({ok, checks, skipped, ...}) and exits
// 1 if any check failed (2 on a usage error). Checks of a tool that tools/list
// does not name are skipped and listed in `skipped`.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const rpc = require('vscode-jsonrpc/node');

const bin = process.argv[2] || process.env.TOOLRPC_BIN;
if (!bin) {
  process.stderr.write('usage: node host.js PATH-TO-TOOLRPC (or TOOLRPC_BIN)\n');
  process.exit(2);
}

// watchdogMs ends a hung run with a failed summary instead of hanging CI.
const watchdogMs = Number(process.env.TOOLRPC_NODE_WATCHDOG_MS || 180000);

const checks = [];
const skipped = [];
let tools = [];

// check records a named check; detail is kept only when it failed.
function check(name, ok, detail) {
  checks.push(ok || detail === undefined ? { name, ok: !!ok } : { name, ok: false, detail });
  return !!ok;
}

function eq(name, want, got) {
  const w = JSON.stringify(want);
  const g = JSON.stringify(got);
  return check(name, w === g, w === g ? undefined : { want, got });
}

// rpcError returns {code, data} of a rejected request, or null if it succeeded.
async function rpcError(promise) {
  try {
    await promise;
    return null;
  } catch (e) {
    return { code: e.code, data: e.data, message: e.message };
  }
}

// procStat returns the fields of /proc/pid/stat after the command name
// (state, ppid, pgrp, session, ...), or null if there is no such process.
function procStat(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

// alive reports whether pid is a live (non-zombie) process.
function alive(pid) {
  const f = procStat(pid);
  return f !== null && f[0] !== 'Z' && f[0] !== 'X';
}

// ownSession reports whether pid leads its own session (setsid has run).
function ownSession(pid) {
  const f = procStat(pid);
  return f !== null && Number(f[3]) === pid;
}

async function until(cond, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return cond();
}

// Progress collects the $/progress values of one token, per stream.
class Progress {
  constructor(connection, token) {
    this.values = [];
    this.disposable = connection.onProgress(new rpc.ProgressType(), token, (v) => this.values.push(v));
  }
  stream(name) {
    return this.values.filter((v) => v.stream === name);
  }
  data(name) {
    return this.stream(name).map((v) => v.data).join('');
  }
  // seqOK reports whether the stream's seq values are exactly 0..n-1 in order.
  seqOK(name) {
    return this.stream(name).every((v, i) => v.seq === i);
  }
}

function fixtures() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolrpc-node-host-'));
  const root = path.join(base, 'root');
  const dataDir = path.join(base, 'data');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.mkdirSync(dataDir);
  fs.writeFileSync(path.join(root, 'hello.txt'), 'alpha\nbeta\ngamma\n');
  fs.writeFileSync(path.join(root, 'src', 'main.go'), 'package main\n\nfunc main() { println("beta") }\n');
  return { base, root: fs.realpathSync(root), dataDir: fs.realpathSync(dataDir) };
}

// expectedLines is what `seq 1 n | sed s/^/prefix/` prints.
function expectedLines(prefix, n) {
  let s = '';
  for (let i = 1; i <= n; i++) s += `${prefix}${i}\n`;
  return s;
}

async function main() {
  const fx = fixtures();
  const child = spawn(bin, [], { cwd: fx.root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderrTail = '';
  child.stderr.on('data', (b) => {
    stderrTail = (stderrTail + b.toString('utf8')).slice(-4000);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.on('error', (e) => check('spawn', false, String(e)));

  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  connection.listen();

  const sessionId = 'node-host';
  const init = await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: `file://${fx.root}`,
    capabilities: {},
    initializationOptions: { dataDir: fx.dataDir, sessionId },
  });
  eq('initialize.serverInfo.name', 'toolrpc', init.serverInfo && init.serverInfo.name);
  eq('initialize.scratchDir', path.join(fx.dataDir, 'scratch', sessionId), init.scratchDir);
  eq('initialize.limits.BUDGET_SHELL_BYTES', 98304, init.limits && init.limits.BUDGET_SHELL_BYTES);
  await connection.sendNotification('initialized', {});

  const list = await connection.sendRequest('tools/list');
  const names = list.map((t) => t.name);
  tools = names;
  check('tools/list shape', Array.isArray(list) && list.every((t) => t.description && t.inputSchema && t.inputSchema.type === 'object'), list);
  const has = (name) => {
    if (names.includes(name)) return true;
    skipped.push(name);
    return false;
  };

  if (has('tools/read')) {
    const r = await connection.sendRequest('tools/read', { path: 'hello.txt' });
    check('read.tag', /^[0-9a-f]{4}$/.test(r.tag), r.tag);
    eq('read.content', `[hello.txt#${r.tag}]\n1:alpha\n2:beta\n3:gamma\n`, r.content);
    eq('read.window', { path: 'hello.txt', root: 'workspace', offset: 1, lineCount: 3, totalLines: 3, fileBytes: 17, truncated: false },
      { path: r.path, root: r.root, offset: r.offset, lineCount: r.lineCount, totalLines: r.totalLines, fileBytes: r.fileBytes, truncated: r.truncated });
    const e = await rpcError(connection.sendRequest('tools/read', { path: 'hello.tx' }));
    eq('read.missing', { code: -32001, kind: 'NOT_FOUND', suggestions: ['hello.txt'] },
      e && { code: e.code, kind: e.data && e.data.code, suggestions: e.data && e.data.suggestions });
  }

  if (has('tools/grep')) {
    const g = await connection.sendRequest('tools/grep', { pattern: 'beta', outputMode: 'content' });
    const got = (g.matches || []).map((m) => `${m.path}:${m.line}:${m.text}`).sort();
    eq('grep.matches', ['hello.txt:2:beta', 'src/main.go:3:func main() { println("beta") }'], got);
    eq('grep.count', { count: 2, files: 2, truncated: false }, { count: g.count, files: g.files, truncated: g.truncated });
    const e = await rpcError(connection.sendRequest('tools/grep', { pattern: '(' }));
    eq('grep.badRegex', { code: -32602, kind: 'INVALID_ARGUMENT' }, e && { code: e.code, kind: e.data && e.data.code });
  }

  let spill;
  if (has('tools/bash')) {
    // Streaming: both streams, several chunks each, fully streamed (< 1 MiB).
    const outN = 40000;
    const errN = 6000;
    const token = 'node-bash-stream';
    const prog = new Progress(connection, token);
    const res = await connection.sendRequest('tools/bash', {
      command: `seq 1 ${outN} | sed 's/^/out /'; seq 1 ${errN} | sed 's/^/err /' >&2`,
      workDoneToken: token,
    });
    const atReply = prog.values.length;
    const wantOut = expectedLines('out ', outN);
    const wantErr = expectedLines('err ', errN);
    eq('bash.exitCode', 0, res.exitCode);
    check('bash.progress.stdout.seq 0..n-1', prog.stream('stdout').length > 1 && prog.seqOK('stdout'), prog.stream('stdout').map((v) => v.seq));
    check('bash.progress.stderr.seq 0..n-1', prog.stream('stderr').length > 1 && prog.seqOK('stderr'), prog.stream('stderr').map((v) => v.seq));
    check('bash.progress.stdout.data', prog.data('stdout') === wantOut, { wantBytes: wantOut.length, gotBytes: prog.data('stdout').length });
    check('bash.progress.stderr.data', prog.data('stderr') === wantErr, { wantBytes: wantErr.length, gotBytes: prog.data('stderr').length });
    check('bash.progress.noSkippedBytes', prog.values.every((v) => !v.skippedBytes));
    eq('bash.stdoutInfo.chunks', prog.stream('stdout').length, res.stdoutInfo && res.stdoutInfo.chunks);
    eq('bash.stderrInfo.chunks', prog.stream('stderr').length, res.stderrInfo && res.stderrInfo.chunks);
    eq('bash.stdoutInfo.bytes/lines', { bytes: wantOut.length, lines: outN }, res.stdoutInfo && { bytes: res.stdoutInfo.bytes, lines: res.stdoutInfo.lines });
    check('bash.stdout head cut with marker', res.truncated && wantOut.startsWith(res.stdout.slice(0, res.stdout.indexOf('[truncated:'))) &&
      /\[truncated: kept the first \d+ of 40000 lines; limit 4000 lines \/ 96KB\. Full output saved to \S+ — Grep it, or Read it with offset\/limit\.\]\n$/.test(res.stdout),
    res.stdout.slice(-300));
    spill = res.stdoutInfo && res.stdoutInfo.spill;
    check('bash.stdout spill written', spill && fs.existsSync(spill), spill);

    // Cancel through a CancellationToken: vscode-jsonrpc sends $/cancelRequest.
    const ctoken = 'node-bash-cancel';
    const cprog = new Progress(connection, ctoken);
    const cts = new rpc.CancellationTokenSource();
    const pending = rpcError(connection.sendRequest('tools/bash', {
      // One child in the call's process group, one that left it (setsid).
      command: 'sleep 300 & echo "pid $!"; setsid sleep 300 & echo "pid $!"; wait',
      timeout: 600,
      workDoneToken: ctoken,
    }, cts.token));
    const pidsOf = () => [...cprog.data('stdout').matchAll(/pid (\d+)\n/g)].map((m) => Number(m[1]));
    // Cancel only once the second child has really left the process group.
    const started = await until(() => pidsOf().length === 2 && ownSession(pidsOf()[1]), 60000);
    check('bash.cancel.started', started, cprog.data('stdout'));
    const pids = pidsOf();
    cts.cancel();
    const e = await pending;
    const chunksAtReply = cprog.values.length;
    eq('bash.cancel.error', { code: -32800, kind: 'CANCELLED' }, e && { code: e.code, kind: e.data && e.data.code });
    check('bash.cancel.partial result', e && e.data && typeof e.data.stdout === 'string' && e.data.stdout.includes('pid '), e && e.data);
    // SPEC §6.6: no process of the call survives the reply (a zombie awaiting
    // its reaper counts as dead), so this is checked at once, without a grace.
    check('bash.cancel.process tree killed', pids.length === 2 && pids.every((p) => !alive(p)), { pids, alive: pids.filter(alive) });
    // A later round trip: any chunk the server sent after the reply is here now.
    await connection.sendRequest('tools/list');
    eq('bash.cancel.no chunk after reply', chunksAtReply, cprog.values.length);
    eq('bash.stream.no chunk after reply', atReply, prog.values.length);
  }

  const down = await connection.sendRequest('shutdown');
  eq('shutdown result', null, down);
  check('shutdown removed scratch dir', !fs.existsSync(init.scratchDir), init.scratchDir);
  if (spill) check('shutdown removed spill', !fs.existsSync(spill), spill);
  await connection.sendNotification('exit');
  const st = await exited;
  eq('exit status', { code: 0, signal: null }, st);
  connection.dispose();
  fs.rmSync(fx.base, { recursive: true, force: true });
  return stderrTail;
}

const watchdog = setTimeout(() => {
  check('watchdog', false, `no result within ${watchdogMs} ms`);
  finish();
}, watchdogMs);

function finish(stderrTail) {
  clearTimeout(watchdog);
  const ok = checks.length > 0 && checks.every((c) => c.ok);
  const version = JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', 'vscode-jsonrpc', 'package.json'), 'utf8')).version;
  const summary = { ok, bin, vscodeJsonrpc: version, node: process.version, tools, checks, skipped };
  if (!ok && stderrTail) summary.serverStderr = stderrTail;
  process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  process.exit(ok ? 0 : 1);
}

main().then(finish, (e) => {
  check('run', false, String((e && e.stack) || e));
  finish();
});
