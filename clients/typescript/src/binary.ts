import fs from 'node:fs';
import path from 'node:path';

const exe = process.platform === 'win32' ? 'toolrpc.exe' : 'toolrpc';

/** How to get a toolrpc binary, for error messages. */
export const BUILD_HINT =
  'Install @toolrpc/client with its optional dependencies, or build one from the toolrpc repository with `go build -o toolrpc ./cmd/toolrpc`, then pass ' +
  "{ bin: '/path/to/toolrpc' } to ToolRPC.spawn, set TOOLRPC_BIN, put it on PATH, or copy it into this package's bin/ directory.";

function executable(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** packageDir is the root of this package (dist/.. once compiled). */
export const packageDir = path.resolve(__dirname, '..');

/**
 * platformPackage is the npm package that carries this platform's binary
 * (an optionalDependency of @toolrpc/client whose `os`/`cpu` fields make npm
 * install only the one that fits): `@toolrpc/<platform>-<arch>` in Node's
 * names, e.g. `@toolrpc/linux-x64`, `@toolrpc/darwin-arm64`, `@toolrpc/win32-x64`.
 */
export const platformPackage = `@toolrpc/${process.platform}-${process.arch}`;

/** platformBinary returns the binary of the installed platform package, or undefined. */
function platformBinary(): string | undefined {
  try {
    const dir = path.dirname(require.resolve(`${platformPackage}/package.json`));
    const p = path.join(dir, 'bin', exe);
    return executable(p) ? p : undefined;
  } catch {
    return undefined;
  }
}

/**
 * findBinary returns the toolrpc binary ToolRPC.spawn uses when no `bin` is
 * given: $TOOLRPC_BIN if set (an explicit override wins), else the binary of
 * this platform's package (platformPackage), else the first executable of
 * `<package>/bin/toolrpc`, `<package>/toolrpc` and `toolrpc` on PATH. It
 * throws an Error that says how to get one when none is found.
 */
export function findBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TOOLRPC_BIN) {
    const p = path.resolve(env.TOOLRPC_BIN);
    if (executable(p)) return p;
    throw new Error(`TOOLRPC_BIN=${env.TOOLRPC_BIN} is not an executable file. ${BUILD_HINT}`);
  }
  const fromPackage = platformBinary();
  if (fromPackage) return fromPackage;
  const beside = [path.join(packageDir, 'bin', exe), path.join(packageDir, exe)];
  for (const p of beside) if (executable(p)) return p;
  const dirs = (env.PATH || '').split(path.delimiter).filter(Boolean);
  for (const d of dirs) {
    const p = path.join(d, exe);
    if (executable(p)) return path.resolve(p);
  }
  throw new Error(`toolrpc binary not found: TOOLRPC_BIN is unset, ${platformPackage} is not installed (npm skips it when its os/cpu do not fit, or with --no-optional), and neither ${beside.join(' nor ')} nor "${exe}" on PATH exists. ${BUILD_HINT}`);
}
