#!/usr/bin/env node
// pack builds the npm tarballs of a release into OUT (default: ./npm-dist):
// one @toolrpc/<platform>-<arch> package per target, holding bin/toolrpc[.exe]
// (built with CGO_ENABLED=0 go build -trimpath) and `os`/`cpu` fields, and
// @toolrpc/client, whose optionalDependencies name every platform package at
// its own version, so npm installs only the one that fits the machine.
//
// Usage: node scripts/pack.mjs [OUT]     (compiles the client with tsc first)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { packageDir, repoDir } from './server-bin.mjs';

// targets maps Node's platform/arch names to Go's.
export const targets = [
  { platform: 'linux', arch: 'x64', goos: 'linux', goarch: 'amd64' },
  { platform: 'linux', arch: 'arm64', goos: 'linux', goarch: 'arm64' },
  { platform: 'darwin', arch: 'x64', goos: 'darwin', goarch: 'amd64' },
  { platform: 'darwin', arch: 'arm64', goos: 'darwin', goarch: 'arm64' },
  { platform: 'win32', arch: 'x64', goos: 'windows', goarch: 'amd64' },
  { platform: 'win32', arch: 'arm64', goos: 'windows', goarch: 'arm64' },
];

function npmPack(dir, out) {
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop();
  return path.join(out, name);
}

/** pack writes every tarball into out and returns their paths by package name. */
export function pack(out) {
  const require = createRequire(import.meta.url);
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', packageDir], { stdio: 'inherit' });
  const client = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  fs.mkdirSync(out, { recursive: true });
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'toolrpc-npm-'));
  const tarballs = {};
  try {
    for (const t of targets) {
      const name = `@toolrpc/${t.platform}-${t.arch}`;
      const dir = path.join(stage, `${t.platform}-${t.arch}`);
      const exe = t.goos === 'windows' ? 'toolrpc.exe' : 'toolrpc';
      fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
      execFileSync('go', ['build', '-trimpath', '-ldflags', `-s -w -buildid= -X github.com/toolrpc/toolrpc/internal/cli.version=v${client.version}`,
        '-o', path.join(dir, 'bin', exe), './cmd/toolrpc'], {
        cwd: repoDir, stdio: 'inherit', env: { ...process.env, CGO_ENABLED: '0', GOOS: t.goos, GOARCH: t.goarch },
      });
      fs.copyFileSync(path.join(repoDir, 'LICENSE'), path.join(dir, 'LICENSE'));
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({
        name, version: client.version, description: `The toolrpc binary for ${t.platform} ${t.arch} (used by @toolrpc/client).`,
        license: client.license, repository: client.repository, os: [t.platform], cpu: [t.arch],
        files: ['bin', 'LICENSE'], preferUnplugged: true,
      }, null, 2) + '\n');
      tarballs[name] = npmPack(dir, out);
    }
    const dir = path.join(stage, 'client');
    fs.mkdirSync(dir);
    for (const f of client.files) fs.cpSync(path.join(packageDir, f), path.join(dir, f), { recursive: true });
    fs.copyFileSync(path.join(repoDir, 'LICENSE'), path.join(dir, 'LICENSE'));
    const staged = { ...client, scripts: undefined, devDependencies: undefined, files: [...client.files, 'LICENSE'],
      optionalDependencies: Object.fromEntries(targets.map((t) => [`@toolrpc/${t.platform}-${t.arch}`, client.version])) };
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(staged, null, 2) + '\n');
    tarballs[client.name] = npmPack(dir, out);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
  return tarballs;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const out = path.resolve(process.argv[2] || 'npm-dist');
  for (const [name, p] of Object.entries(pack(out))) process.stdout.write(`${name}\t${p}\n`);
}
