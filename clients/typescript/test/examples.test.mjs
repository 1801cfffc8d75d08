// The examples run headless, as CI runs them, against the real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { bin, packageDir, workspace } from './helpers.mjs';

function run(t, script) {
  const ws = workspace(t, { 'src/app.js': 'const a = 1;\n// TODO: ship it\n', 'notes.md': 'no todo here\n' });
  const out = execFileSync(process.execPath, [path.join(packageDir, 'examples', script), ws.root], {
    env: { ...process.env, TOOLRPC_BIN: bin },
    encoding: 'utf8',
    timeout: 60000,
  });
  return JSON.parse(out);
}

test('VS Code extension example: grep matches and bash chunks in the output channel, cancel', (t) => {
  const got = run(t, 'vscode-extension/headless.js');
  // The output channel shows the server's stderr too; its log lines (one
  // when a transport makes processId meaningless) are not the example's.
  assert.equal(got.output.replace(/^toolrpc: .*\n/gm, ''), 'src/app.js:2: // TODO: ship it\nline 1\nline 2\nline 3\n[exit 0]\nstarting\n[cancelled; 9 bytes of stdout before]\n');
  assert.deepEqual([got.search, got.run, got.cancelled], [1, 0, 'starting\n']);
});

test('Electron-style main process example: ipc round trips, forwarded chunks, cancel, close', (t) => {
  const got = run(t, 'electron-main.js');
  // Chunks are ordered within a stream (seq), not across streams (SPEC §6.4).
  got.chunks.sort();
  assert.deepEqual(got, {
    grepCount: 1,
    ok: 'one\n',
    cancelled: { kind: 'CANCELLED', stdout: 'waiting\n' },
    chunks: ['1:stderr:0:two\n', '1:stdout:0:one\n', '2:stdout:0:waiting\n'],
    closed: { code: 0, signal: null, killed: false },
  });
});
