/**
 * @toolrpc/client: a typed client for the toolrpc tool server, built on
 * vscode-jsonrpc. `ToolRPC.spawn` starts and initializes a server; its
 * methods call the tools; `close` ends it, killing it if it hangs.
 */
export { ToolRPC } from './client';
export type { BashChunk, SpawnOptions, CallOptions, BashOptions, InitializeResult, SandboxPolicy, ToolDefinition, ExitStatus, CloseResult, Position, Range, TextChange, ApplyEdit, ApplyEditReply } from './client';
export { ToolRPCError, ErrorCodes } from './errors';
export type { ErrorKind } from './errors';
export { findBinary } from './binary';
export * from './generated';
import type { EditParams } from './generated';
/** One op of tools/edit. */
export type EditOp = EditParams['ops'][number];
