// The committed src/generated.ts must equal what the generator writes from
// the server under test: a changed schema or limit fails here until
// `npm run generate` is run and the result committed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bin, packageDir, workspace } from './helpers.mjs';

const generate = path.join(packageDir, 'scripts', 'generate.mjs');
const committed = path.join(packageDir, 'src', 'generated.ts');

test('src/generated.ts matches the server', (t) => {
  const out = path.join(workspace(t).base, 'generated.ts');
  execFileSync(process.execPath, [generate, '--bin', bin, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  const want = fs.readFileSync(out, 'utf8');
  const got = fs.readFileSync(committed, 'utf8');
  if (want !== got) {
    const a = want.split('\n');
    const b = got.split('\n');
    const i = a.findIndex((line, k) => line !== b[k]);
    assert.fail(`src/generated.ts is stale (first difference at line ${i + 1}:\n  server: ${a[i]}\n  file:   ${b[i]}); run \`npm run generate\` in clients/typescript`);
  }
});

test('the generator notices a changed schema', async () => {
  const { render } = await import(generate);
  const tools = [{ name: 'tools/read', description: 'd', inputSchema: { type: 'object', required: ['path'], properties: { path: { type: 'string' } } },
    outputSchema: { type: 'object', anyOf: [{ title: 'ReadResult', type: 'object', properties: { path: { type: 'string' } } }, { title: 'ErrorObject', type: 'object' }] } }];
  const before = render(tools);
  tools[0].inputSchema.properties.encoding = { type: 'string' };
  const after = render(tools);
  assert.notEqual(before, after);
  assert.match(after, /encoding\?: string;/);
  tools[0].inputSchema.properties.bad = { type: 'string', format: 'uri' };
  assert.throws(() => render(tools), /unsupported JSON Schema keyword "format"/);
  delete tools[0].inputSchema.properties.bad;
  tools[0].outputSchema.anyOf[0].properties.lines = { type: 'integer' };
  assert.match(render(tools), /lines\?: number;/, 'result types follow the outputSchema');
  delete tools[0].outputSchema;
  assert.throws(() => render(tools), /no outputSchema/);
});
