// Starting and ending servers: close() when the server answers, when it
// hangs, when it is stopped; host death; finding the binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { alive, bin, client, packageDir, procState, start, until, workspace } from './helpers.mjs';

const fixtures = path.join(packageDir, 'test', 'fixtures');

test('close: shutdown + exit, scratch removed, process reaped', async (t) => {
  const { tr } = await start(t, {}, { sessionId: 'ts-close' });
  const r = await tr.bash({ command: 'seq 1 100000' });
  assert.ok(fs.existsSync(r.stdoutInfo.spill), 'a spill file exists before close');
  const closed = await tr.close();
  assert.deepEqual(closed, { code: 0, signal: null, killed: false });
  assert.equal(procState(tr.pid), null, 'no process and no zombie left');
  assert.ok(!fs.existsSync(tr.info.scratchDir), 'shutdown removed the scratch dir');
  assert.equal(await tr.close(), closed, 'close is idempotent');
});

test('close kills a server that never answers shutdown and ignores SIGTERM and EOF', async (t) => {
  const ws = workspace(t);
  const tr = await client.ToolRPC.spawn({ bin: path.join(fixtures, 'hang-server.mjs'), root: ws.root, closeTimeoutMs: 300 });
  const closed = await tr.close();
  assert.deepEqual(closed, { code: null, signal: 'SIGKILL', killed: true });
  assert.equal(procState(tr.pid), null);
});

test('close kills a stopped (SIGSTOP) server, and its calls\' processes die with it', async (t) => {
  const { tr } = await start(t, {}, { closeTimeoutMs: 300 });
  let out = '';
  const pending = tr.bash({ command: 'echo "pid $$"; sleep 300' }, { onChunk: (c) => { out += c.data; } }).catch((e) => e);
  assert.ok(await until(() => /pid \d+/.test(out)));
  const pid = Number(/pid (\d+)/.exec(out)[1]);
  process.kill(tr.pid, 'SIGSTOP');
  assert.ok(await until(() => procState(tr.pid) === 'T'));
  const closed = await tr.close();
  assert.deepEqual(closed, { code: null, signal: 'SIGKILL', killed: true });
  assert.equal(procState(tr.pid), null);
  assert.equal((await pending).kind, 'CONNECTION_CLOSED');
  assert.ok(await until(() => !alive(pid), 10000), `the call's shell ${pid} outlived the killed server`);
});

async function hostRun(t, mode) {
  const ws = workspace(t);
  const host = spawn(process.execPath, [path.join(fixtures, 'host.cjs'), ws.root, mode], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TOOLRPC_BIN: bin } });
  t.after(() => host.kill('SIGKILL'));
  const pid = await new Promise((resolve, reject) => {
    host.stdout.once('data', (b) => resolve(Number(String(b).trim())));
    host.once('exit', (code) => reject(new Error(`host exited ${code} before printing`)));
  });
  assert.ok(alive(pid), 'the server runs');
  return { host, pid };
}

test('a SIGKILLed host takes its server with it', async (t) => {
  const { host, pid } = await hostRun(t, 'wait');
  host.kill('SIGKILL');
  assert.ok(await until(() => !alive(pid), 10000), `server ${pid} outlived its host`);
});

test('a host that exits without close() takes its server with it', async (t) => {
  const { host, pid } = await hostRun(t, 'exit');
  await new Promise((r) => (host.exitCode !== null ? r() : host.once('exit', r)));
  assert.ok(await until(() => !alive(pid), 10000), `server ${pid} outlived its host`);
});

test('findBinary: TOOLRPC_BIN, then PATH, else a message that says how to build one', () => {
  assert.equal(client.findBinary({ TOOLRPC_BIN: bin }), path.resolve(bin));
  assert.equal(client.findBinary({ PATH: `/nonexistent${path.delimiter}${path.dirname(bin)}` }), path.resolve(bin));
  assert.throws(() => client.findBinary({ PATH: '/nonexistent' }), /toolrpc binary not found.*go build -o toolrpc \.\/cmd\/toolrpc/s);
  assert.throws(() => client.findBinary({ TOOLRPC_BIN: '/nonexistent/toolrpc' }), /not an executable file.*go build -o toolrpc/s);
});

test('spawn: a missing binary, a missing root, a server that does not start', async (t) => {
  const ws = workspace(t);
  await assert.rejects(client.ToolRPC.spawn({ bin: '/nonexistent/toolrpc', root: ws.root }), /cannot start \/nonexistent\/toolrpc.*go build -o toolrpc/s);
  await assert.rejects(client.ToolRPC.spawn({ bin, root: path.join(ws.root, 'missing') }), /is not a directory/);
  await assert.rejects(client.ToolRPC.spawn({ bin }), TypeError);
  await assert.rejects(client.ToolRPC.spawn({ bin: '/bin/false', root: ws.root }), /initialize failed.*server exit 1/s);
});
