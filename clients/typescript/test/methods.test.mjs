// Every method of ToolRPC against the real server, each result checked
// strictly against the result schemas the types are generated from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { client, conform, resultSchemas, start } from './helpers.mjs';

const files = {
  'hello.txt': 'alpha\nbeta\ngamma\n',
  'src/main.go': 'package main\n\nfunc main() { println("beta") }\n',
};

function conforms(schema, value) {
  assert.deepEqual(conform(schema, value), [], JSON.stringify(value).slice(0, 500));
}

test('initialize: info, limits and the session scratch dir', async (t) => {
  const { tr, dataDir } = await start(t, files, { sessionId: 'ts-info' });
  assert.equal(tr.info.serverInfo.name, 'toolrpc');
  assert.equal(tr.info.scratchDir, path.join(dataDir, 'scratch', 'ts-info'));
  assert.equal(tr.info.limits.BUDGET_SHELL_BYTES, 98304);
  assert.ok(Number.isInteger(tr.pid) && tr.pid > 0);
});

test('tools lists every typed method with its input schema', async (t) => {
  const { tr } = await start(t, files);
  const list = await tr.tools();
  assert.deepEqual(list.map((x) => x.name).sort(), [...client.TOOL_NAMES]);
  for (const tool of list) {
    assert.equal(tool.inputSchema.type, 'object', tool.name);
    assert.ok(tool.description.length > 50, tool.name);
  }
});

test('read, in a root whose path has a space', async (t) => {
  const { tr } = await start(t, files);
  const r = await tr.read({ path: 'hello.txt' });
  conforms(resultSchemas['tools/read'], r);
  assert.equal(r.content, `[hello.txt#${r.tag}]\n1:alpha\n2:beta\n3:gamma\n`);
  assert.deepEqual([r.path, r.root, r.totalLines, r.truncated], ['hello.txt', 'workspace', 3, false]);
  const page = await tr.read({ path: 'hello.txt', offset: 2, limit: 1 });
  conforms(resultSchemas['tools/read'], page);
  assert.equal(page.content, `[hello.txt#${r.tag}]\n2:beta\n`);
  assert.match(page.notice, /offset=3/);
});

test('grep in each output mode', async (t) => {
  const { tr } = await start(t, files);
  const content = await tr.grep({ pattern: 'beta', outputMode: 'content' });
  conforms(resultSchemas.$defs.GrepContentResult, content);
  assert.deepEqual(content.matches.map((m) => `${m.path}:${m.line}:${m.text}`).sort(), ['hello.txt:2:beta', 'src/main.go:3:func main() { println("beta") }']);
  assert.deepEqual(Object.keys(content.tags).sort(), ['hello.txt', 'src/main.go']);
  const filesResult = await tr.grep({ pattern: 'beta' });
  conforms(resultSchemas.$defs.GrepFilesResult, filesResult);
  assert.deepEqual(filesResult.files.sort(), ['hello.txt', 'src/main.go']);
  const count = await tr.grep({ pattern: 'a', outputMode: 'count', glob: '*.txt' });
  conforms(resultSchemas.$defs.GrepCountResult, count);
  assert.deepEqual(count.counts, [{ path: 'hello.txt', count: 3 }]);
  const context = await tr.grep({ pattern: 'beta', outputMode: 'content', path: 'hello.txt', context: 1 });
  conforms(resultSchemas.$defs.GrepContentResult, context);
  assert.deepEqual(context.matches.map((m) => [m.line, m.context === true]), [[1, true], [2, false], [3, true]]);
});

test('glob', async (t) => {
  const { tr } = await start(t, files);
  const g = await tr.glob({ pattern: '**/*.go' });
  conforms(resultSchemas['tools/glob'], g);
  assert.deepEqual([g.matches, g.count, g.truncated], [['src/main.go'], 1, false]);
});

test('write, then edit the lines a read showed', async (t) => {
  const { tr, root } = await start(t, files);
  const w = await tr.write({ path: 'notes/new.txt', content: 'one\ntwo\nthree\n' });
  conforms(resultSchemas['tools/write'], w);
  assert.deepEqual([w.path, w.created, w.totalLines], ['notes/new.txt', true, 3]);
  const r = await tr.read({ path: 'notes/new.txt' });
  assert.equal(r.tag, w.tag);
  const e = await tr.edit({ path: 'notes/new.txt', tag: r.tag, ops: [{ op: 'replace', start: 2, lines: ['TWO', 'two and a half'] }, { op: 'delete', start: 3 }] });
  conforms(resultSchemas['tools/edit'], e);
  assert.equal(fs.readFileSync(path.join(root, 'notes/new.txt'), 'utf8'), 'one\nTWO\ntwo and a half\n');
  assert.notEqual(e.tag, r.tag);
  assert.equal(e.totalLines, 3);
});

test('bash returns the BashResult, with env and stdin', async (t) => {
  const { tr } = await start(t, files);
  const b = await tr.bash({ command: 'echo "$GREETING"; cat; echo err >&2; exit 3', env: { GREETING: 'hi' }, stdin: 'from stdin\n' });
  conforms(resultSchemas['tools/bash'], b);
  assert.deepEqual([b.exitCode, b.stdout, b.stderr, b.truncated], [3, 'hi\nfrom stdin\n', 'err\n', false]);
});

test('request reaches a method without a typed wrapper', async (t) => {
  const { tr } = await start(t, files);
  const list = await tr.request('tools/list');
  assert.ok(Array.isArray(list) && list.length === client.TOOL_NAMES.length);
});

test('processStart, processWrite, processRead, processSignal, processList (SPEC §13)', async (t) => {
  const { tr } = await start(t, files);
  const long = 30000;
  const asked = await tr.processStart({ command: `read -p 'Name? ' n; echo "hi $n"; sleep 60`, mode: 'pty', wait: { until: ['input', 'exit'], timeoutMs: long } });
  conforms(resultSchemas['tools/process/start'], asked);
  assert.equal(asked.state, 'awaitingInput');
  assert.deepEqual(asked.prompt, { text: 'Name? ', echo: true });
  const answered = await tr.processWrite({ id: asked.id, data: 'ts\n', wait: { until: ['pattern'], pattern: '^hi ', timeoutMs: long } });
  conforms(resultSchemas['tools/process/write'], answered);
  assert.equal(answered.matched, 'hi ts');
  const again = await tr.processRead({ id: asked.id, since: 0, wait: { timeoutMs: 0 } });
  conforms(resultSchemas['tools/process/read'], again);
  assert.equal(again.output, 'Name? ts\nhi ts\n');
  const listed = await tr.processList();
  conforms(resultSchemas['tools/process/list'], listed);
  assert.equal(listed.processes.length, 1);
  const stopped = await tr.processSignal({ id: asked.id, signal: 'KILL' });
  conforms(resultSchemas['tools/process/signal'], stopped);
  assert.equal(stopped.state, 'exited');
  assert.equal(stopped.signal, 'SIGKILL');
});
