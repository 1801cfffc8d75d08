// A minimal VS Code extension driving toolrpc through @toolrpc/client.
//
// Its manifest (package.json of the extension) would declare:
//   "main": "./extension.js",
//   "activationEvents": ["onStartupFinished"],
//   "contributes": { "commands": [
//     { "command": "toolrpc.search", "title": "toolrpc: Search" },
//     { "command": "toolrpc.run", "title": "toolrpc: Run Command" } ] }
//
// headless.js runs it in CI with a stubbed `vscode` module.
'use strict';

const vscode = require('vscode');
const { ToolRPC, ToolRPCError } = require('@toolrpc/client');

let server;

// cancellable runs fn with an AbortSignal that follows a VS Code CancellationToken.
async function cancellable(token, fn) {
  const ac = new AbortController();
  const sub = token.onCancellationRequested(() => ac.abort());
  try {
    return await fn(ac.signal);
  } finally {
    sub.dispose();
  }
}

async function activate(context) {
  const output = vscode.window.createOutputChannel('toolrpc');
  const root = vscode.workspace.workspaceFolders[0].uri.fsPath;
  server = await ToolRPC.spawn({ root, dataDir: context.globalStorageUri.fsPath, onStderr: (s) => output.append(s) });
  context.subscriptions.push(output, { dispose: () => server.close() });

  context.subscriptions.push(vscode.commands.registerCommand('toolrpc.search', async (pattern) => {
    output.show(true);
    const res = await server.grep({ pattern, outputMode: 'content', headLimit: 50 });
    for (const m of res.matches) output.appendLine(`${m.path}:${m.line}: ${m.text}`);
    if (res.notice) output.appendLine(res.notice);
    return res;
  }));

  context.subscriptions.push(vscode.commands.registerCommand('toolrpc.run', (command) =>
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: command, cancellable: true }, (_progress, token) =>
      cancellable(token, async (signal) => {
        output.show(true);
        try {
          const res = await server.bash({ command }, { signal, onChunk: (c) => output.append(c.data) });
          output.appendLine(`[exit ${res.exitCode}]`);
          return res;
        } catch (e) {
          if (!(e instanceof ToolRPCError) || e.kind !== 'CANCELLED') throw e;
          output.appendLine(`[cancelled; ${e.partial ? e.partial.stdoutInfo.bytes : 0} bytes of stdout before]`);
          return e.partial;
        }
      }))));
}

function deactivate() {
  return server && server.close();
}

module.exports = { activate, deactivate };
