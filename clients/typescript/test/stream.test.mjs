// Streaming: every chunk of a bash call reaches onChunk, in order, with a
// contiguous seq per stream, before the call settles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { start } from './helpers.mjs';

function lines(prefix, n) {
  let s = '';
  for (let i = 1; i <= n; i++) s += `${prefix}${i}\n`;
  return s;
}

test('chunks arrive in order, seq 0..n-1 per stream, all before the result', async (t) => {
  const { tr } = await start(t);
  const chunks = [];
  const outN = 40000;
  const errN = 6000;
  let atResult = -1;
  const res = await tr.bash(
    { command: `seq 1 ${outN} | sed 's/^/out /'; seq 1 ${errN} | sed 's/^/err /' >&2` },
    { onChunk: (c) => chunks.push(c) },
  ).then((r) => {
    atResult = chunks.length;
    return r;
  });
  await tr.tools(); // a later round trip: a chunk sent after the reply would be here now
  assert.equal(atResult, chunks.length, 'no chunk after the result');
  for (const stream of ['stdout', 'stderr']) {
    const mine = chunks.filter((c) => c.stream === stream);
    assert.ok(mine.length > 1, `${stream}: several chunks`);
    assert.deepEqual(mine.map((c) => c.seq), mine.map((_, i) => i), `${stream}: seq contiguous from 0 in arrival order`);
    assert.ok(mine.every((c) => !c.skippedBytes));
  }
  assert.equal(chunks.filter((c) => c.stream === 'stdout').map((c) => c.data).join(''), lines('out ', outN));
  assert.equal(chunks.filter((c) => c.stream === 'stderr').map((c) => c.data).join(''), lines('err ', errN));
  assert.equal(res.stdoutInfo.chunks, chunks.filter((c) => c.stream === 'stdout').length);
  assert.equal(res.stderrInfo.chunks, chunks.filter((c) => c.stream === 'stderr').length);
  assert.equal(res.exitCode, 0);
  assert.ok(res.truncated, 'the result is bounded while the stream is whole');
});

test('concurrent bash calls each get only their own chunks', async (t) => {
  const { tr } = await start(t);
  const a = [];
  const b = [];
  await Promise.all([
    tr.bash({ command: 'for i in 1 2 3; do echo a$i; sleep 0.05; done' }, { onChunk: (c) => a.push(c.data) }),
    tr.bash({ command: 'for i in 1 2 3; do echo b$i; sleep 0.05; done' }, { onChunk: (c) => b.push(c.data) }),
  ]);
  assert.equal(a.join(''), 'a1\na2\na3\n');
  assert.equal(b.join(''), 'b1\nb2\nb3\n');
});

test('a workDoneToken given by the caller is used and its chunks delivered', async (t) => {
  const { tr } = await start(t);
  const got = [];
  await tr.bash({ command: 'echo mine', workDoneToken: 7777 }, { onChunk: (c) => got.push(c.data) });
  assert.deepEqual(got, ['mine\n']);
});

test('an onChunk that throws rejects the call after the command finished', async (t) => {
  const { tr } = await start(t);
  let calls = 0;
  const boom = new Error('boom');
  await assert.rejects(
    tr.bash({ command: 'echo one; sleep 0.1; echo two; sleep 0.1; echo three > done.txt' }, { onChunk: () => { calls++; throw boom; } }),
    (e) => e === boom,
  );
  assert.equal(calls, 1, 'no chunk after the handler threw');
  const r = await tr.read({ path: 'done.txt' });
  assert.match(r.content, /1:three/, 'the command ran to its end');
});
