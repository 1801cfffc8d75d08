// What the client puts on the wire, recorded by a tee in front of the real
// server: the host traps of issue 18 (objects never sent as arrays, a token
// of the client's own for every bash call, processId for host death).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bin, client, packageDir, rejection, workspace } from './helpers.mjs';

// frames splits an LSP-framed byte log into its JSON bodies (as text).
function frames(buf) {
  const out = [];
  let at = 0;
  while (at < buf.length) {
    const sep = buf.indexOf('\r\n\r\n', at);
    if (sep < 0) break;
    const len = Number(/Content-Length: *(\d+)/i.exec(buf.subarray(at, sep).toString())[1]);
    out.push(buf.subarray(sep + 4, sep + 4 + len).toString());
    at = sep + 4 + len;
  }
  return out;
}

test('the client sends params by name, its own workDoneToken and processId', async (t) => {
  const ws = workspace(t, { 'a.txt': 'x\n' });
  const log = path.join(ws.base, 'wire.log');
  const tr = await client.ToolRPC.spawn({
    bin: path.join(packageDir, 'test', 'fixtures', 'tee-server.sh'),
    root: ws.root,
    dataDir: ws.dataDir,
    env: { WIRE_LOG: log, REAL_TOOLRPC: bin },
  });
  await tr.bash({ command: 'true', env: {} });
  await tr.bash({ command: 'true', workDoneToken: 42 });
  await tr.read({ path: 'a.txt' });
  await tr.tools(); // raw vscode-jsonrpc's sendRequest(method, undefined) would send [null]
  const aborted = AbortSignal.abort();
  const pre = await rejection(tr.bash({ command: 'touch must-not-exist' }, { signal: aborted }));
  assert.equal(pre.kind, 'CANCELLED');
  assert.equal(pre.partial, undefined);
  await assert.rejects(tr.request('tools/read', ['a.txt']), TypeError);
  await assert.rejects(tr.read(null), TypeError);
  assert.deepEqual(await tr.close(), { code: 0, signal: null, killed: false });

  const bodies = frames(fs.readFileSync(log));
  const msgs = bodies.map((b) => JSON.parse(b));
  const init = msgs.find((m) => m.method === 'initialize');
  assert.equal(init.params.processId, process.pid);
  assert.equal(init.params.rootUri, pathToFileURL(ws.root).href);
  assert.equal(init.params.initializationOptions.dataDir, ws.dataDir);
  const bash = bodies.filter((b) => b.includes('"tools/bash"'));
  assert.equal(bash.length, 2, 'the pre-aborted call was never sent');
  assert.match(bash[0], /"env":\{\}/);
  assert.match(JSON.parse(bash[0]).params.workDoneToken, /^toolrpc-client-/);
  assert.equal(JSON.parse(bash[1]).params.workDoneToken, 42);
  for (const m of msgs) {
    if (m.params !== undefined) assert.ok(m.params !== null && typeof m.params === 'object' && !Array.isArray(m.params), JSON.stringify(m));
  }
  assert.deepEqual(msgs.filter((m) => m.method === 'tools/read').length, 1);
  const list = msgs.filter((m) => m.method === 'tools/list');
  assert.equal(list.length, 1);
  assert.ok(!('params' in list[0]), JSON.stringify(list[0]));
  assert.deepEqual(msgs.slice(-2).map((m) => m.method), ['shutdown', 'exit']);
  assert.ok(!fs.existsSync(path.join(ws.root, 'must-not-exist')));
});
