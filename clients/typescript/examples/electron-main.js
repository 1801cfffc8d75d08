// An Electron-style main process in plain Node: the main process owns the
// toolrpc server (a child process) and serves renderer requests the way
// ipcMain.handle would, forwarding bash chunks as webContents.send would,
// cancelling by request id, and closing the server on quit.
//
// In Electron, `ipc` below is ipcMain (handle/invoke) and `send` is
// win.webContents.send; here a tiny stand-in lets CI run it with plain Node:
//   node examples/electron-main.js WORKSPACE
'use strict';

const { ToolRPC, ToolRPCError } = require('@toolrpc/client');

const ipc = {
  handlers: new Map(),
  handle(channel, fn) { this.handlers.set(channel, fn); },
  invoke(channel, ...args) { return this.handlers.get(channel)({ sender: renderer }, ...args); },
};
const renderer = {
  received: [],
  send(channel, payload) { this.received.push({ channel, payload }); },
};

async function main(root) {
  const server = await ToolRPC.spawn({ root });
  const running = new Map(); // request id -> AbortController

  ipc.handle('toolrpc:grep', (_event, params) => server.grep(params));
  ipc.handle('toolrpc:bash', async (event, id, params) => {
    const ac = new AbortController();
    running.set(id, ac);
    try {
      return { ok: true, result: await server.bash(params, { signal: ac.signal, onChunk: (c) => event.sender.send('toolrpc:chunk', { id, ...c }) }) };
    } catch (e) {
      if (e instanceof ToolRPCError) return { ok: false, kind: e.kind, message: e.message, partial: e.partial };
      throw e;
    } finally {
      running.delete(id);
    }
  });
  ipc.handle('toolrpc:cancel', (_event, id) => running.get(id)?.abort());

  // What a renderer would do through a preload bridge:
  const grep = await ipc.invoke('toolrpc:grep', { pattern: 'TODO', outputMode: 'count' });
  const ok = await ipc.invoke('toolrpc:bash', 1, { command: 'echo one; echo two >&2' });
  const pending = ipc.invoke('toolrpc:bash', 2, { command: 'echo waiting; sleep 60' });
  while (!renderer.received.some((m) => m.payload.id === 2)) await new Promise((r) => setTimeout(r, 10));
  await ipc.invoke('toolrpc:cancel', 2);
  const cancelled = await pending;

  // app.on('will-quit'): end the server before the main process exits.
  const closed = await server.close();
  return { grepCount: grep.count, ok: ok.result.stdout, cancelled: { kind: cancelled.kind, stdout: cancelled.partial.stdout }, chunks: renderer.received.map((m) => `${m.payload.id}:${m.payload.stream}:${m.payload.seq}:${m.payload.data}`), closed };
}

main(process.argv[2] || process.cwd()).then((summary) => process.stdout.write(JSON.stringify(summary) + '\n'), (e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
