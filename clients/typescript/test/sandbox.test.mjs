// The sandbox option and sandboxUpdate (SPEC §14) against the real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { bin, client } from './helpers.mjs';

// A workspace outside /tmp and $TMPDIR, which every policy makes writable:
// under /var/tmp, or, when the conformance suite runs the server in a
// container, under the dir it shares with the container at the same path.
function varTmpWorkspace(t) {
  const parent = process.env.TOOLRPC_CONFORMANCE_OUTSIDE_TMP || '/var/tmp';
  const base = fs.realpathSync(fs.mkdtempSync(path.join(parent, 'toolrpc-ts-sandbox-')));
  const root = path.join(base, 'root');
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(base, 'data'));
  return { base, root, dataDir: path.join(base, 'data') };
}

test('sandbox option: initialize states it, a read-only write is SANDBOX_DENIED, sandboxUpdate widens it', async (t) => {
  const ws = varTmpWorkspace(t);
  const tr = await client.ToolRPC.spawn({ bin, root: ws.root, dataDir: ws.dataDir, sandbox: { mode: 'read-only' } });
  t.after(async () => {
    await tr.close();
    fs.rmSync(ws.base, { recursive: true, force: true });
  });
  assert.equal(tr.info.sandbox.requested, 'read-only');
  assert.equal(tr.info.sandbox.mode, 'read-only');
  assert.ok(Array.isArray(tr.info.sandbox.writable) && Array.isArray(tr.info.sandbox.enforcedBy));

  await assert.rejects(tr.write({ path: 'a.txt', content: 'x\n' }), (e) => {
    assert.ok(e instanceof client.ToolRPCError);
    assert.equal(e.kind, 'SANDBOX_DENIED');
    assert.match(e.message, /\[sandbox: write to .*a\.txt denied — /);
    return true;
  });

  const st = await tr.sandboxUpdate({ mode: 'workspace-write' });
  assert.equal(st.requested, 'workspace-write');
  const w = await tr.write({ path: 'a.txt', content: 'x\n' });
  assert.equal(w.path, 'a.txt');

  await assert.rejects(tr.sandboxUpdate({ mode: 'yolo' }), (e) => e.kind === 'INVALID_ARGUMENT');
  const names = (await tr.tools()).map((x) => x.name);
  assert.ok(!names.includes('sandbox/update'), 'sandbox/update is no tool');
});
