#!/usr/bin/env node
// An MCP client driving `toolrpc mcp` the way Node hosts do: the official
// TypeScript SDK's Client over StdioClientTransport, onprogress for
// notifications/progress, an AbortSignal for notifications/cancelled. The SDK
// also validates every structuredContent against the tool's outputSchema.
//
// Usage: node client.mjs PATH-TO-TOOLRPC   (or TOOLRPC_BIN)
//
// It prints one JSON summary on stdout ({ok, checks, tools, serverStderr})
// and exits 1 if any check failed (2 on a usage error).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const bin = process.argv[2] || process.env.TOOLRPC_BIN;
if (!bin) {
  process.stderr.write('usage: node client.mjs PATH-TO-TOOLRPC (or TOOLRPC_BIN)\n');
  process.exit(2);
}
// waitMs bounds every wait, so a broken server fails the run instead of hanging it.
const waitMs = Number(process.env.TOOLRPC_NODE_WATCHDOG_MS || 180000);

const checks = [];
const wire = [];
// lateProgress counts the SDK's unknown-token errors per phase (typescript-sdk#2580).
const lateProgress = { bash: 0, abort: 0 };
let phase = 'bash';
function check(name, ok, detail) {
  checks.push(ok ? { name, ok: true } : { name, ok: false, detail });
  return !!ok;
}
function eq(name, want, got) {
  const w = JSON.stringify(want);
  const g = JSON.stringify(got);
  return check(name, w === g, { want, got });
}

// markHolders lists the live processes whose environment holds TESTMARK=mark.
function markHolders(mark) {
  const kv = `TESTMARK=${mark}`;
  const pids = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      if (stat[stat.lastIndexOf(')') + 2] === 'Z') continue;
      const env = fs.readFileSync(`/proc/${e}/environ`, 'latin1').split('\0');
      if (env.includes(kv)) pids.push({ pid: Number(e), pgrp: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2] });
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

async function until(cond, what) {
  const end = Date.now() + waitMs;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 5));
  }
  check(`waited for ${what}`, false, `not within ${waitMs} ms`);
  return false;
}

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolrpc-mcpnode-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolrpc-mcpnode-data-'));
  fs.writeFileSync(path.join(root, 'hello.txt'), 'hello\nworld\n');
  const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--root', root, '--data-dir', dataDir], stderr: 'pipe' });
  let serverStderr = '';
  transport.stderr.on('data', (d) => { serverStderr = (serverStderr + d).slice(-4000); });
  const client = new Client({ name: 'toolrpc-conformance', version: '1' });
  const protocolErrors = [];
  client.onerror = (e) => {
    // typescript-sdk#2580: the SDK handles a notification one microtask
    // later than a response read in the same chunk, so a chunk written just
    // before the result can find its handler gone. The wire order is
    // checked separately (see wire).
    if (/progress notification for an unknown token/.test(String(e))) lateProgress[phase]++;
    else protocolErrors.push(String(e));
  };
  await client.connect(transport);
  // wire records every message the server sent, in the order read.
  const sdkOnMessage = transport.onmessage;
  transport.onmessage = (m, extra) => { wire.push(m); sdkOnMessage(m, extra); };

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  eq('list: the eleven tools', ['bash', 'edit', 'glob', 'grep', 'process_list', 'process_read', 'process_signal', 'process_start', 'process_write', 'read', 'write'], names);
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  check('list: read is read-only with an outputSchema', byName.read?.annotations?.readOnlyHint === true && byName.read?.outputSchema?.type === 'object', byName.read);
  check('list: bash is destructive and open-world', byName.bash?.annotations?.destructiveHint === true && byName.bash?.annotations?.openWorldHint === true, byName.bash?.annotations);

  const read = await client.callTool({ name: 'read', arguments: { path: 'hello.txt' } });
  const tag = read.structuredContent?.tag;
  eq('read: structuredContent is the ReadResult', { path: 'hello.txt', root: 'workspace', content: `[hello.txt#${tag}]\n1:hello\n2:world\n`, totalLines: 2 },
    { path: read.structuredContent?.path, root: read.structuredContent?.root, content: read.structuredContent?.content, totalLines: read.structuredContent?.totalLines });
  eq('read: the text block is the numbered content', read.structuredContent?.content, read.content?.[0]?.text);

  const missing = await client.callTool({ name: 'read', arguments: { path: 'missing.txt' } });
  check('read: a missing file is an isError result with data.code NOT_FOUND (valid against outputSchema)',
    missing.isError === true && missing.structuredContent?.data?.code === 'NOT_FOUND' && /^NOT_FOUND: /.test(missing.content?.[0]?.text), missing);

  await bashWithProgress(client);
  await new Promise((r) => setTimeout(r, 50));
  phase = 'abort';
  await abortKillsTree(client);

  eq('no protocol errors (e.g. a response to an aborted request)', [], protocolErrors);
  await client.close();
  return { tools: names, serverStderr };
}

async function bashWithProgress(client) {
  const seen = [];
  const from = wire.length;
  const res = await client.callTool(
    { name: 'bash', arguments: { command: 'for i in 1 2 3; do echo out $i; sleep 0.05; done; echo err >&2' } },
    undefined,
    { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true },
  );
  // On the wire: every chunk of the call, then its result, nothing after.
  const msgs = wire.slice(from);
  const resultAt = msgs.findIndex((m) => m.id !== undefined && m.result?.structuredContent?.stdout !== undefined);
  const progress = msgs.filter((m) => m.method === 'notifications/progress');
  const lastProgressAt = msgs.map((m) => m.method).lastIndexOf('notifications/progress');
  check('bash: every progress notification precedes the result on the wire', resultAt >= 0 && lastProgressAt < resultAt, msgs.map((m) => m.method || 'result'));
  const params = progress.map((m) => m.params);
  const rising = params.every((p, i) => i === 0 || p.progress > params[i - 1].progress);
  check('bash: progress rises strictly', params.length > 0 && rising, params);
  const data = { stdout: '', stderr: '' };
  for (const p of params) data[p._meta['toolrpc/stream']] += p.message;
  eq('bash: the progress messages are the output', { stdout: res.structuredContent?.stdout, stderr: res.structuredContent?.stderr }, data);
  eq('bash: onprogress saw the notifications in order (all but any the SDK dropped, typescript-sdk#2580)',
    params.slice(0, seen.length).map((p) => p.progress), seen.map((p) => p.progress));
  check('bash: onprogress saw the first chunk', seen.length > 0, seen);
  eq('bash: text is stdout then stderr', 'out 1\nout 2\nout 3\n[stderr]\nerr\n[exit code 0]', res.content?.[0]?.text);
}

async function abortKillsTree(client) {
  const mark = `mcpnode-${process.pid}-${Date.now()}`;
  const ac = new AbortController();
  let progressed = false;
  const call = client.callTool(
    { name: 'bash', arguments: { command: 'setsid sleep 1000 & echo started; while :; do echo tick; sleep 0.01; done', env: { TESTMARK: mark } } },
    undefined,
    { signal: ac.signal, onprogress: () => { progressed = true; } },
  ).then(() => 'resolved', (e) => e?.name || String(e));
  const up = await until(() => progressed && new Set(markHolders(mark).map((p) => p.pgrp)).size >= 2, 'the tree (with a setsid child) and its first chunk');
  check('abort: the tree spans two process groups', up, markHolders(mark));
  ac.abort();
  const outcome = await call;
  check('abort: the call rejects', outcome !== 'resolved', outcome);
  const dead = await until(() => markHolders(mark).length === 0, 'the aborted tree to die');
  check('abort: no process of the tree survives', dead, markHolders(mark));
  const after = await client.callTool({ name: 'bash', arguments: { command: 'echo still serving' } });
  eq('abort: the server keeps serving', 'still serving\n', after.structuredContent?.stdout);
}

main().then(
  ({ tools, serverStderr }) => {
    const ok = checks.every((c) => c.ok);
    process.stdout.write(JSON.stringify({ ok, checks, tools, lateProgress, serverStderr }) + '\n');
    process.exit(ok ? 0 : 1);
  },
  (e) => {
    checks.push({ name: 'run', ok: false, detail: String(e?.stack || e) });
    process.stdout.write(JSON.stringify({ ok: false, checks }) + '\n');
    process.exit(1);
  },
);
