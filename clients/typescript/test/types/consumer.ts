// Compiled by test/types.test.mjs with tsc --noEmit: a host's use of the
// exported types. Each @ts-expect-error line must fail to type-check, so
// types too loose to catch those mistakes fail the test.
import { ToolRPC, ToolRPCError, type BashChunk, type BashResult, type EditOp, type GrepContentResult, type HostMethodTypes, type SandboxPolicy, type ToolTypes } from '@toolrpc/client';

export async function use(tr: ToolRPC): Promise<void> {
  const content: GrepContentResult = await tr.grep({ pattern: 'x', outputMode: 'content' });
  content.matches[0].line.toFixed();
  const files = await tr.grep({ pattern: 'x' });
  files.files.join(',');
  const counts = await tr.grep({ pattern: 'x', outputMode: 'count' });
  counts.counts[0].count.toFixed();
  const chunks: BashChunk[] = [];
  const res: BashResult = await tr.bash({ command: 'ls', env: {} }, { onChunk: (c) => chunks.push(c), signal: AbortSignal.timeout(1000) });
  res.stdoutInfo.chunks.toFixed();
  const op: EditOp = { op: 'replace', start: 1, lines: ['a'] };
  await tr.edit({ path: 'a', tag: '0000', ops: [op] });
  const read: ToolTypes['tools/read']['result'] = await tr.read({ path: 'a', offset: 1, limit: 10 });
  read.root satisfies 'workspace' | 'scratch' | 'external';
  try {
    await tr.write({ path: 'a', content: 'b' });
  } catch (e) {
    if (e instanceof ToolRPCError && e.kind === 'CANCELLED') void e.partial;
  }
  const policy: SandboxPolicy = { mode: 'workspace-write', network: 'off', writable: ['/opt/cache'] };
  const state: HostMethodTypes['sandbox/update']['result'] = await tr.sandboxUpdate(policy);
  state.enforcedBy.join(',');
  tr.info.sandbox.mode.toUpperCase();
  try {
    await tr.read({ path: 'a' });
  } catch (e) {
    if (e instanceof ToolRPCError && e.kind === 'SANDBOX_DENIED') void e.message;
  }
  // @ts-expect-error no such sandbox mode
  await tr.sandboxUpdate({ mode: 'yolo' });
  // @ts-expect-error path is a string
  await tr.read({ path: 1 });
  // @ts-expect-error command is required
  await tr.bash({ cwd: '.' });
  // @ts-expect-error no such op
  await tr.edit({ path: 'a', tag: '0000', ops: [{ op: 'swap', start: 1 }] });
  // @ts-expect-error a files result has no matches
  void files.matches;
  // @ts-expect-error not a §10 kind
  void ((e: ToolRPCError) => e.kind === 'NOPE');
}
