/**
 * The stable `data.code` strings of SPEC §10, plus one the client adds:
 * `CONNECTION_CLOSED`, for a call that cannot get a reply because the server
 * exited or `close()` was called.
 */
export type ErrorKind =
  | 'INVALID_ARGUMENT'
  | 'CANCELLED'
  | 'TOOL_BINARY_CONTENT'
  | 'NOT_FOUND'
  | 'IS_DIRECTORY'
  | 'PERMISSION_DENIED'
  | 'TIMEOUT'
  | 'STALE_TAG'
  | 'LINE_NOT_VISIBLE'
  | 'IO_ERROR'
  | 'SANDBOX_DENIED'
  | 'SANDBOX_UNAVAILABLE'
  | 'EDITOR_UNSAVED'
  | 'EDIT_NOT_APPLIED'
  | 'CONNECTION_CLOSED';

/** JSON-RPC error codes a call can reject with (SPEC §10; -32097 is vscode-jsonrpc's). */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ServerNotInitialized: -32002,
  ToolFailure: -32001,
  RequestCancelled: -32800,
  ConnectionClosed: -32097,
} as const;

// Kinds whose error data is the call's partial result (SPEC §6.5, §6.6).
const partialKinds = new Set<string>(['CANCELLED', 'TIMEOUT']);

/**
 * ToolRPCError is how every call of a ToolRPC rejects once it was sent.
 * `code` is the JSON-RPC error code, `kind` the §10 `data.code` (undefined
 * for plain protocol errors), `data` the error's data without `code`, and
 * `partial` the partial result a cancelled or timed-out call carries in its
 * data (a BashResult for tools/bash), else undefined.
 */
export class ToolRPCError<P = unknown> extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** The §10 data.code, or CONNECTION_CLOSED; undefined for protocol errors. */
  readonly kind: ErrorKind | undefined;
  /** The method of the call that failed. */
  readonly method: string;
  /** The error's data object without its `code` member, if it had one. */
  readonly data: Record<string, unknown> | undefined;
  /** The partial result of a CANCELLED or TIMEOUT call, if the server sent one. */
  readonly partial: P | undefined;

  /** Builds the error of a failed call from the wire error's code, message and data. */
  constructor(method: string, code: number, message: string, data?: unknown, options?: { cause?: unknown; kind?: ErrorKind }) {
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'ToolRPCError';
    this.method = method;
    this.code = code;
    let kind = options?.kind;
    let rest: Record<string, unknown> | undefined;
    if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
      const { code: dataCode, ...others } = data as Record<string, unknown>;
      if (kind === undefined && typeof dataCode === 'string') kind = dataCode as ErrorKind;
      rest = others;
    }
    this.kind = kind;
    this.data = rest;
    this.partial = kind && partialKinds.has(kind) && rest && Object.keys(rest).length > 0 ? (rest as P) : undefined;
  }
}
