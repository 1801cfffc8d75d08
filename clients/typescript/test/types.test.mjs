// The exported types, as a TypeScript host uses them, through the package's
// "exports" (types condition): test/types/consumer.ts must type-check, and
// each of its @ts-expect-error lines must really be an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { packageDir, workspace } from './helpers.mjs';

const require = createRequire(import.meta.url);

test('a TypeScript consumer type-checks against the published types', (t) => {
  const ws = workspace(t);
  fs.mkdirSync(path.join(ws.base, 'node_modules', '@toolrpc'), { recursive: true });
  fs.symlinkSync(packageDir, path.join(ws.base, 'node_modules', '@toolrpc', 'client'));
  fs.symlinkSync(path.join(packageDir, 'node_modules', '@types'), path.join(ws.base, 'node_modules', '@types'));
  fs.copyFileSync(path.join(packageDir, 'test', 'types', 'consumer.ts'), path.join(ws.base, 'consumer.ts'));
  fs.writeFileSync(path.join(ws.base, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'node16', moduleResolution: 'node16', target: 'ES2022', lib: ['ES2022'], types: ['node'] },
    files: ['consumer.ts'],
  }));
  const r = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', ws.base], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
