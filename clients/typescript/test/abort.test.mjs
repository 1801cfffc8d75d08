// AbortSignal -> $/cancelRequest: the call rejects with CANCELLED and the
// partial BashResult, and no process the command started survives, not even
// one that left the process group with setsid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alive, client, conform, ownSession, procState, rejection, resultSchemas, start, until } from './helpers.mjs';

test('abort kills the whole tree, setsid child included, and rejects with the partial result', async (t) => {
  const { tr } = await start(t);
  const ac = new AbortController();
  let out = '';
  const pending = rejection(tr.bash(
    { command: 'sleep 300 & echo "pid $!"; setsid sleep 300 & echo "pid $!"; wait', timeout: 600 },
    { signal: ac.signal, onChunk: (c) => { out += c.data; } },
  ));
  const pids = () => [...out.matchAll(/pid (\d+)\n/g)].map((m) => Number(m[1]));
  assert.ok(await until(() => pids().length === 2 && ownSession(pids()[1])), `both children started, the second in its own session: ${out}`);
  const [inGroup, setsid] = pids();
  assert.ok(alive(inGroup) && alive(setsid));
  ac.abort();
  const e = await pending;
  assert.ok(e instanceof client.ToolRPCError, String(e));
  assert.deepEqual([e.code, e.kind, e.method], [-32800, 'CANCELLED', 'tools/bash']);
  assert.deepEqual(conform(resultSchemas['tools/bash'], e.partial), []);
  assert.match(e.partial.stdout, /pid \d+\npid \d+\n/);
  // SPEC §6.6: dead when the reply is sent, so dead when the promise rejects.
  assert.ok(!alive(inGroup) && !alive(setsid), `states after the reply: ${procState(inGroup)} ${procState(setsid)}`);
  assert.ok(await until(() => procState(inGroup) === null && procState(setsid) === null, 10000), 'reaped, not left as zombies');
  const after = await tr.read({ path: '.', offset: 1 }).catch((x) => x);
  assert.equal(after.kind, 'IS_DIRECTORY', 'the server keeps serving');
});

test('an abort after the reply changes nothing', async (t) => {
  const { tr } = await start(t);
  const ac = new AbortController();
  const r = await tr.bash({ command: 'echo done' }, { signal: ac.signal });
  ac.abort();
  assert.equal(r.stdout, 'done\n');
});

test('a bash timeout rejects with TIMEOUT and the partial result', async (t) => {
  const { tr } = await start(t);
  const e = await rejection(tr.bash({ command: 'echo started; sleep 30', timeout: 1 }));
  assert.deepEqual([e.code, e.kind], [-32001, 'TIMEOUT']);
  assert.equal(e.partial.stdout, 'started\n');
  assert.equal(e.partial.signal, 'SIGKILL');
});
