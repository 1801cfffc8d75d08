// Every error kind of SPEC §10 a tool can reach, decoded into ToolRPCError,
// and the client's own CONNECTION_CLOSED; the server keeps serving after each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { client, rejection, start, until, alive } from './helpers.mjs';

const files = {
  'hello.txt': 'alpha\nbeta\n',
  'image.bin': Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]),
  'dir/inner.txt': 'x\n',
};

test('tool failures carry code, kind and data', async (t) => {
  const { tr } = await start(t, files);
  const w = await tr.write({ path: 'blind.txt', content: 'one\ntwo\n' });
  const stale = w.tag === 'ffff' ? '0000' : 'ffff';
  const cases = [
    ['NOT_FOUND', -32001, () => tr.read({ path: 'hello.tx' }), (e) => assert.deepEqual(e.data.suggestions, ['hello.txt'])],
    ['IS_DIRECTORY', -32001, () => tr.read({ path: 'dir' })],
    ['TOOL_BINARY_CONTENT', -32001, () => tr.read({ path: 'image.bin' }), (e) => assert.equal(e.data.fileBytes, 5)],
    ['PERMISSION_DENIED', -32001, () => tr.read({ path: '/etc/passwd' })],
    ['INVALID_ARGUMENT', -32602, () => tr.grep({ pattern: '(' })],
    ['INVALID_ARGUMENT', -32602, () => tr.read({ path: 'hello.txt', limit: 5000 })],
    ['INVALID_ARGUMENT', -32602, () => tr.bash({ command: 'true', timeout: 0.5 })],
    ['STALE_TAG', -32001, () => tr.edit({ path: 'blind.txt', tag: stale, ops: [{ op: 'delete', start: 1 }] })],
    ['LINE_NOT_VISIBLE', -32001, () => tr.edit({ path: 'blind.txt', tag: w.tag, ops: [{ op: 'delete', start: 1 }] }), (e) => assert.deepEqual(e.data.lines, [1])],
    ['IO_ERROR', -32001, () => tr.write({ path: 'hello.txt/under-a-file.txt', content: 'x' })],
  ];
  for (const [kind, code, call, more] of cases) {
    const e = await rejection(call());
    assert.ok(e instanceof client.ToolRPCError, `${kind}: ${e}`);
    assert.deepEqual([e.kind, e.code], [kind, code], e.message);
    assert.equal(e.partial, undefined, kind);
    assert.ok(e.message.length > 0);
    assert.equal(e.data.code, undefined, 'data.code is lifted into kind');
    more?.(e);
  }
  assert.equal((await tr.read({ path: 'hello.txt' })).totalLines, 2, 'still serving');
});

test('an unknown method is a protocol error without a kind', async (t) => {
  const { tr } = await start(t, files);
  const e = await rejection(tr.request('tools/nope', {}));
  assert.deepEqual([e.code, e.kind, e.method], [-32601, undefined, 'tools/nope']);
});

test('a server that dies mid-call rejects the call with CONNECTION_CLOSED', async (t) => {
  const { tr } = await start(t, files);
  let started = false;
  const pending = rejection(tr.bash({ command: 'echo up; sleep 300' }, { onChunk: () => { started = true; } }));
  assert.ok(await until(() => started));
  process.kill(tr.pid, 'SIGKILL');
  const e = await pending;
  assert.deepEqual([e.kind, e.code], ['CONNECTION_CLOSED', -32097]);
  assert.match(e.message, /server exited \(SIGKILL\)/);
  assert.equal((await tr.exited).signal, 'SIGKILL');
  const after = await rejection(tr.read({ path: 'hello.txt' }));
  assert.equal(after.kind, 'CONNECTION_CLOSED');
  assert.deepEqual(await tr.close(), { code: null, signal: 'SIGKILL', killed: false });
});

test('close cancels running calls: they reject with CANCELLED and their partial result', async (t) => {
  const { tr } = await start(t, files);
  let out = '';
  const pending = rejection(tr.bash({ command: 'echo "pid $$"; sleep 300' }, { onChunk: (c) => { out += c.data; } }));
  assert.ok(await until(() => /pid \d+/.test(out)));
  const pid = Number(/pid (\d+)/.exec(out)[1]);
  const closed = await tr.close();
  const e = await pending;
  assert.equal(e.kind, 'CANCELLED');
  assert.match(e.partial.stdout, /^pid \d+\n/);
  assert.deepEqual(closed, { code: 0, signal: null, killed: false });
  assert.ok(!alive(pid));
  assert.equal((await rejection(tr.read({ path: 'hello.txt' }))).kind, 'CONNECTION_CLOSED');
});
