// Runs extension.js without VS Code: a stub `vscode` module records what the
// extension writes to its output channel. Usage: node headless.js WORKSPACE
// Prints one JSON object: {output, search, run, cancelled}.
'use strict';

const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');

const lines = [];
let text = '';
const commands = new Map();
const tokens = [];

const vscodeStub = {
  ProgressLocation: { Notification: 15 },
  window: {
    createOutputChannel: (name) => ({
      name,
      append: (s) => { text += s; },
      appendLine: (s) => { text += `${s}\n`; lines.push(s); },
      show: () => {},
      dispose: () => {},
    }),
    withProgress: (_opts, task) => {
      const listeners = [];
      const token = {
        isCancellationRequested: false,
        onCancellationRequested: (fn) => { listeners.push(fn); return { dispose: () => listeners.splice(listeners.indexOf(fn), 1) }; },
        cancel() { this.isCancellationRequested = true; for (const fn of [...listeners]) fn(); },
      };
      tokens.push(token);
      return task({ report: () => {} }, token);
    },
  },
  workspace: { workspaceFolders: [{ uri: { fsPath: path.resolve(process.argv[2]) } }] },
  commands: {
    registerCommand: (id, fn) => { commands.set(id, fn); return { dispose: () => commands.delete(id) }; },
    executeCommand: (id, ...args) => commands.get(id)(...args),
  },
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscodeStub };

const ext = require('./extension.js');

async function main() {
  const context = { subscriptions: [], globalStorageUri: { fsPath: path.join(os.tmpdir(), `toolrpc-vscode-example-${process.pid}`) } };
  await ext.activate(context);
  const search = await vscodeStub.commands.executeCommand('toolrpc.search', 'TODO');
  const run = await vscodeStub.commands.executeCommand('toolrpc.run', 'for i in 1 2 3; do echo "line $i"; sleep 0.05; done');
  const long = vscodeStub.commands.executeCommand('toolrpc.run', 'echo starting; sleep 60');
  while (!text.includes('starting\n')) await new Promise((r) => setTimeout(r, 10));
  tokens[tokens.length - 1].cancel();
  const cancelled = await long;
  await ext.deactivate();
  for (const d of context.subscriptions) await d.dispose();
  process.stdout.write(JSON.stringify({ output: text, search: search.count, run: run.exitCode, cancelled: cancelled.stdout }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
