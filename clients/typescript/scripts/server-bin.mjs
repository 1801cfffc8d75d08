// server-bin finds the toolrpc binary the scripts and tests run: $TOOLRPC_BIN
// if set, else one built from this repository with `go build` into a
// temporary directory (removed by the returned cleanup).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = path.resolve(packageDir, '..', '..');

/** serverBin returns {bin, cleanup}. */
export function serverBin() {
  if (process.env.TOOLRPC_BIN) return { bin: path.resolve(process.env.TOOLRPC_BIN), cleanup() {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolrpc-ts-bin-'));
  const bin = path.join(dir, 'toolrpc');
  const go = process.env.GO || 'go';
  process.stderr.write(`building toolrpc: ${go} build -o ${bin} ./cmd/toolrpc (in ${repoDir})\n`);
  execFileSync(go, ['build', '-o', bin, './cmd/toolrpc'], { cwd: repoDir, stdio: ['ignore', 'inherit', 'inherit'] });
  return { bin, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
