// Document sync and the applyEdit hook (SPEC §15) against the real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { bin, client, workspace } from './helpers.mjs';

test('a host buffer: read sees it, edit reaches it through onApplyEdit, not the disk; didClose returns to the disk', async (t) => {
  const ws = workspace(t, { 'a.txt': 'alpha\nbeta\n' });
  const file = path.join(ws.root, 'a.txt');
  const buf = { text: 'alpha\nTYPED\n', version: 1 };
  let tr;
  tr = await client.ToolRPC.spawn({
    bin, root: ws.root, dataDir: ws.dataDir,
    onApplyEdit: async (e) => {
      if (e.version !== buf.version) return { applied: false, failureReason: 'version mismatch' };
      const lines = buf.text.split(/(?<=\n)/);
      const off = (p) => lines.slice(0, p.line).join('').length + p.character;
      for (const te of e.edits) buf.text = buf.text.slice(0, off(te.range.start)) + te.newText + buf.text.slice(off(te.range.end));
      buf.version++;
      await tr.didChange(file, buf.version, [{ text: buf.text }]);
      return { applied: true };
    },
  });
  t.after(() => tr.close());
  await tr.didOpen(file, 'text', 1, buf.text);
  const read = await tr.read({ path: 'a.txt' });
  assert.equal(read.source, 'editor');
  assert.equal(read.unsaved, true);
  assert.match(read.content, /2:TYPED\n/);
  const edit = await tr.edit({ path: 'a.txt', tag: read.tag, ops: [{ op: 'replace', start: 1, lines: ['ALPHA'] }] });
  assert.match(edit.content, /1:ALPHA\n/);
  assert.equal(buf.text, 'ALPHA\nTYPED\n');
  assert.equal(fs.readFileSync(file, 'utf8'), 'alpha\nbeta\n');
  await tr.didClose(file);
  const after = await tr.read({ path: 'a.txt' });
  assert.equal(after.source, undefined);
  assert.match(after.content, /2:beta\n/);
});
