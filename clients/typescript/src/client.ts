import { spawn as spawnChild, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as rpc from 'vscode-jsonrpc/node';
import { BUILD_HINT, findBinary } from './binary';
import { ErrorCodes, ToolRPCError } from './errors';
import type {
  BashParams,
  BashResult,
  EditParams,
  EditResult,
  GlobParams,
  GlobResult,
  GrepContentResult,
  GrepCountResult,
  GrepFilesResult,
  GrepParams,
  GrepResult,
  ProcessListResult,
  ProcessReadParams,
  ProcessReadResult,
  ProcessSignalParams,
  ProcessSignalResult,
  ProcessStartParams,
  ProcessStartResult,
  ProcessWriteParams,
  ProcessWriteResult,
  ReadParams,
  ReadResult,
  SandboxState,
  SandboxUpdateParams,
  SandboxUpdateResult,
  WriteParams,
  WriteResult,
} from './generated';

/**
 * One $/progress chunk of a running bash call (SPEC §6.4): a notification's
 * value, not a tool result, so tools/list does not describe it. seq starts at
 * 0 per stream and rises by exactly 1.
 */
export interface BashChunk {
  stream: 'stdout' | 'stderr';
  seq: number;
  /** valid UTF-8, never a split character */
  data: string;
  /** bytes not sent before this chunk (streams past 1 MiB) */
  skippedBytes?: number;
}

/** Options of ToolRPC.spawn. */
export interface SpawnOptions {
  /** The toolrpc binary; default: findBinary() ($TOOLRPC_BIN, next to this package, then PATH). */
  bin?: string;
  /** The workspace root: the server's rootUri and working directory. Relative tool paths resolve against it. */
  root: string;
  /** Where scratch and checkpoint files live; default: the server's ($XDG_STATE_HOME/toolrpc). */
  dataDir?: string;
  /** The session id (/[A-Za-z0-9._-]{1,64}/); default: a fresh random one. A restart with the same id keeps its scratch dir. */
  sessionId?: string;
  /** Directories outside the workspace the host approved for reading. */
  externalRoots?: string[];
  /**
   * The sandbox policy every command and file tool runs under (SPEC §14),
   * sent as initializationOptions.sandbox; default: the server's (auto).
   * info.sandbox states the policy in force; sandboxUpdate changes it.
   */
  sandbox?: SandboxPolicy;
  /** Variables set (or, with undefined, removed) on top of process.env for the server and so for every bash call. */
  env?: Record<string, string | undefined>;
  /** How long close() waits for shutdown and exit before it kills the server; default 3000 ms. */
  closeTimeoutMs?: number;
  /** Receives the server's stderr (its log) as text. The last 8 KB are kept for error messages either way. */
  onStderr?: (text: string) => void;
  /**
   * Applies the server's edits of the documents this host opened with
   * didOpen (SPEC §15): it must send the didChange that carries the edit,
   * then resolve applied (or not, with a failureReason). Setting it declares
   * workspace.applyEdit and workspaceEdit.documentChanges at initialize.
   */
  onApplyEdit?: (edit: ApplyEdit) => ApplyEditReply | Promise<ApplyEditReply>;
}

/** An LSP position: a 0-based line and a character in the negotiated info.capabilities.positionEncoding. */
export interface Position {
  line: number;
  character: number;
}

/** An LSP range. */
export interface Range {
  start: Position;
  end: Position;
}

/** One content change of didChange: range replaced by text, or the whole text without a range. */
export interface TextChange {
  range?: Range;
  text: string;
}

/** The server's workspace/applyEdit of one open document (SPEC §15). */
export interface ApplyEdit {
  /** Names the tool call to the user. */
  label: string;
  /** The document (a file: URI, as didOpen sent it) and the version the edits are made against. */
  uri: string;
  version: number;
  /** Edits of that version, in order. */
  edits: { range: Range; newText: string }[];
}

/** A host's answer to an ApplyEdit. */
export interface ApplyEditReply {
  applied: boolean;
  failureReason?: string;
}

/** Options of a tool call. */
export interface CallOptions {
  /** Aborting sends $/cancelRequest; the call then rejects with a CANCELLED ToolRPCError once the server replied. */
  signal?: AbortSignal;
}

/** Options of a bash call. */
export interface BashOptions extends CallOptions {
  /** Receives each $/progress chunk, in the order the server sent them, all before the call settles. */
  onChunk?: (chunk: BashChunk) => void;
}

/** The initialize result (SPEC §1). */
export interface InitializeResult {
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string };
  /** Every limit of SPEC §2 by name. */
  limits: Record<string, number>;
  /** This session's scratch directory (spill files); removed by close(). */
  scratchDir: string;
  /** The sandbox policy in force, resolved, with what enforces it and this machine's gaps (SPEC §14). */
  sandbox: SandboxState;
}

/** A sandbox policy (SPEC §14): what the host allows commands and file tools. */
export type SandboxPolicy = SandboxUpdateParams;

/** One entry of tools/list: what a host hands to a model. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** How the server process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What close() did: the exit status, and whether it had to kill the server. */
export interface CloseResult extends ExitStatus {
  killed: boolean;
}

const defaultCloseTimeoutMs = 3000;
const stderrTailBytes = 8192;
const chunkType = new rpc.ProgressType<BashChunk>();

function isObjectParams(p: unknown): p is object {
  return p !== null && typeof p === 'object' && !Array.isArray(p);
}

function deadline(ms: number): Promise<false> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms), false).unref());
}

/**
 * ToolRPC is one running toolrpc server and the connection to it. Calls may
 * run concurrently. Every call settles: with its result, or with a
 * ToolRPCError. After close() resolves, the server process has exited and
 * has been reaped.
 */
export class ToolRPC {
  /** The server's process id. */
  readonly pid: number;
  /** The initialize result: server info, limits, scratch dir. */
  readonly info: InitializeResult;
  /** Resolves when the server process has exited (and been reaped). */
  readonly exited: Promise<ExitStatus>;

  #child: ChildProcessWithoutNullStreams;
  #conn: rpc.MessageConnection;
  #closeTimeoutMs: number;
  #tail: () => string;
  #exit: ExitStatus | undefined;
  #closing: Promise<CloseResult> | undefined;
  #tokens = 0;

  private constructor(child: ChildProcessWithoutNullStreams, conn: rpc.MessageConnection, exited: Promise<ExitStatus>, info: InitializeResult, opts: SpawnOptions, tail: () => string) {
    this.#child = child;
    this.#conn = conn;
    this.pid = child.pid as number;
    this.info = info;
    this.exited = exited;
    this.#closeTimeoutMs = opts.closeTimeoutMs ?? defaultCloseTimeoutMs;
    this.#tail = tail;
    exited.then((st) => {
      this.#exit = st;
    });
  }

  /** The last 8 KB of the server's stderr. */
  get stderrTail(): string {
    return this.#tail();
  }

  /**
   * spawn starts a toolrpc server for root, initializes it (sending this
   * process's pid as processId, so the server exits with its host) and
   * resolves once it is ready for calls.
   */
  static async spawn(opts: SpawnOptions): Promise<ToolRPC> {
    if (!opts || typeof opts.root !== 'string' || opts.root === '') {
      throw new TypeError('ToolRPC.spawn: root, the workspace directory, is required');
    }
    const root = path.resolve(opts.root);
    if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
      throw new Error(`ToolRPC.spawn: root ${root} is not a directory`);
    }
    const bin = opts.bin ?? findBinary();
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = spawnChild(bin, [], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const hint = err.code === 'ENOENT' || err.code === 'EACCES' ? ` ${BUILD_HINT}` : '';
      throw new Error(`ToolRPC.spawn: cannot start ${bin}: ${err.message}.${hint}`, { cause: e });
    }
    return ToolRPC.#connect(child, root, opts);
  }

  static async #connect(child: ChildProcessWithoutNullStreams, root: string, opts: SpawnOptions): Promise<ToolRPC> {
    let tail = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      tail = (tail + s).slice(-stderrTailBytes);
      opts.onStderr?.(s);
    });
    child.stdin.on('error', () => {}); // EPIPE after the server died: the pending calls report it.
    const exited = new Promise<ExitStatus>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
    // 'close' comes after the exit and after stdout was read to its end, so a
    // reply written just before the server died is still delivered.
    child.once('close', () => conn.dispose());
    const onApplyEdit = opts.onApplyEdit;
    if (onApplyEdit) {
      conn.onRequest('workspace/applyEdit', async (p: { label?: string; edit?: { documentChanges?: { textDocument: { uri: string; version: number }; edits: ApplyEdit['edits'] }[] } }) => {
        const changes = p.edit?.documentChanges ?? [];
        if (changes.length !== 1) return { applied: false, failureReason: `workspace/applyEdit of ${changes.length} documents; this client applies one` };
        const dc = changes[0];
        return onApplyEdit({ label: p.label ?? '', uri: dc.textDocument.uri, version: dc.textDocument.version, edits: dc.edits });
      });
    }
    conn.listen();
    const initOptions = { dataDir: opts.dataDir, sessionId: opts.sessionId, externalRoots: opts.externalRoots, sandbox: opts.sandbox };
    let info: InitializeResult;
    try {
      info = await conn.sendRequest('initialize', rpc.ParameterStructures.byName, {
        processId: process.pid,
        rootUri: pathToFileURL(root).href,
        capabilities: onApplyEdit ? { workspace: { applyEdit: true, workspaceEdit: { documentChanges: true } } } : {},
        initializationOptions: initOptions,
      });
      await conn.sendNotification('initialized', {});
    } catch (e) {
      child.kill('SIGKILL');
      const st = await exited;
      throw new Error(`ToolRPC.spawn: initialize failed: ${(e as Error).message} (server exit ${st.code ?? st.signal}; stderr: ${tail.trim() || 'empty'})`, { cause: e });
    }
    return new ToolRPC(child, conn, exited, info, opts, () => tail);
  }

  /** tools reports the server's tools/list: names, descriptions with their limits, input schemas. */
  tools(opts?: CallOptions): Promise<ToolDefinition[]> {
    return this.request<ToolDefinition[]>('tools/list', undefined, opts);
  }

  /** read calls tools/read (SPEC §4). */
  read(params: ReadParams, opts?: CallOptions): Promise<ReadResult> {
    return this.request('tools/read', params, opts);
  }

  /** grep calls tools/grep (SPEC §5); the result's shape follows outputMode. */
  grep(params: GrepParams & { outputMode: 'content' }, opts?: CallOptions): Promise<GrepContentResult>;
  grep(params: GrepParams & { outputMode: 'count' }, opts?: CallOptions): Promise<GrepCountResult>;
  grep(params: GrepParams & { outputMode?: 'filesWithMatches' | 'files_with_matches' | 'files-with-matches' }, opts?: CallOptions): Promise<GrepFilesResult>;
  grep(params: GrepParams, opts?: CallOptions): Promise<GrepResult>;
  grep(params: GrepParams, opts?: CallOptions): Promise<GrepResult> {
    return this.request('tools/grep', params, opts);
  }

  /** glob calls tools/glob (SPEC §5). */
  glob(params: GlobParams, opts?: CallOptions): Promise<GlobResult> {
    return this.request('tools/glob', params, opts);
  }

  /** edit calls tools/edit (SPEC §8). */
  edit(params: EditParams, opts?: CallOptions): Promise<EditResult> {
    return this.request('tools/edit', params, opts);
  }

  /** write calls tools/write (SPEC §8). */
  write(params: WriteParams, opts?: CallOptions): Promise<WriteResult> {
    return this.request('tools/write', params, opts);
  }

  /**
   * processStart calls tools/process/start (SPEC §13): the command runs on
   * after the reply, until it exits, a signal ends it, or the session ends.
   * Aborting opts.signal before the reply kills the process.
   */
  processStart(params: ProcessStartParams, opts?: CallOptions): Promise<ProcessStartResult> {
    return this.request('tools/process/start', params, opts);
  }

  /** processRead calls tools/process/read (SPEC §13); aborting only ends its wait. */
  processRead(params: ProcessReadParams, opts?: CallOptions): Promise<ProcessReadResult> {
    return this.request('tools/process/read', params, opts);
  }

  /** processWrite calls tools/process/write (SPEC §13). */
  processWrite(params: ProcessWriteParams, opts?: CallOptions): Promise<ProcessWriteResult> {
    return this.request('tools/process/write', params, opts);
  }

  /** processSignal calls tools/process/signal (SPEC §13). */
  processSignal(params: ProcessSignalParams, opts?: CallOptions): Promise<ProcessSignalResult> {
    return this.request('tools/process/signal', params, opts);
  }

  /** documentUri is the file: URI the server knows the file at the absolute path file by. */
  static documentUri(file: string): string {
    return pathToFileURL(file).href;
  }

  /** didOpen tells the server this host holds the file (an absolute path) with text at version (SPEC §15): the tools see it. */
  didOpen(file: string, languageId: string, version: number, text: string): Promise<void> {
    return this.#conn.sendNotification('textDocument/didOpen', { textDocument: { uri: ToolRPC.documentUri(file), languageId, version, text } });
  }

  /** didChange tells the server the buffer of file changed to version by changes, in order. */
  didChange(file: string, version: number, changes: TextChange[]): Promise<void> {
    return this.#conn.sendNotification('textDocument/didChange', { textDocument: { uri: ToolRPC.documentUri(file), version }, contentChanges: changes });
  }

  /** didClose tells the server the host no longer holds file: the tools use the disk again. */
  didClose(file: string): Promise<void> {
    return this.#conn.sendNotification('textDocument/didClose', { textDocument: { uri: ToolRPC.documentUri(file) } });
  }

  /** didSave tells the server the buffer of file was saved. */
  didSave(file: string): Promise<void> {
    return this.#conn.sendNotification('textDocument/didSave', { textDocument: { uri: ToolRPC.documentUri(file) } });
  }

  /**
   * sandboxUpdate calls sandbox/update (SPEC §14): the host replaces the
   * session's sandbox policy from the next call on (calls already running
   * keep theirs) and gets the policy now in force. It is no tool: only the
   * host may widen the policy.
   */
  sandboxUpdate(policy: SandboxPolicy, opts?: CallOptions): Promise<SandboxUpdateResult> {
    return this.request('sandbox/update', policy, opts);
  }

  /** processList calls tools/process/list (SPEC §13). */
  processList(opts?: CallOptions): Promise<ProcessListResult> {
    return this.request('tools/process/list', {}, opts);
  }

  /**
   * bash calls tools/bash (SPEC §6) and passes each output chunk to
   * opts.onChunk. The client sends its own workDoneToken unless params has
   * one, so chunks never depend on the request id. If onChunk throws, later
   * chunks are not delivered and the call rejects with that error once the
   * command has finished.
   */
  async bash(params: BashParams, opts: BashOptions = {}): Promise<BashResult> {
    if (!isObjectParams(params)) throw new TypeError('tools/bash: params must be an object');
    const token = params.workDoneToken ?? `toolrpc-client-${process.pid}-${++this.#tokens}`;
    let thrown: { error: unknown } | undefined;
    const onChunk = opts.onChunk;
    const sub = this.#conn.onProgress(chunkType, token, (chunk) => {
      if (!onChunk || thrown) return;
      try {
        onChunk(chunk);
      } catch (error) {
        thrown = { error };
      }
    });
    try {
      const result = await this.request<BashResult>('tools/bash', { ...params, workDoneToken: token }, opts);
      if (thrown) throw thrown.error;
      return result;
    } finally {
      sub.dispose();
    }
  }

  /**
   * request sends any method with params sent by name (an object, never an
   * array) and maps a failure to ToolRPCError. The typed methods use it.
   */
  async request<R>(method: string, params?: object, opts: CallOptions = {}): Promise<R> {
    if (params !== undefined && !isObjectParams(params)) throw new TypeError(`${method}: params must be an object`);
    const { signal } = opts;
    if (this.#closing || this.#exit) {
      throw new ToolRPCError(method, ErrorCodes.ConnectionClosed, `${method}: the client is closed`, undefined, { kind: 'CONNECTION_CLOSED' });
    }
    if (signal?.aborted) {
      throw new ToolRPCError(method, ErrorCodes.RequestCancelled, `${method}: aborted before it was sent`, undefined, { kind: 'CANCELLED', cause: signal.reason });
    }
    const args: unknown[] = params === undefined ? [] : [rpc.ParameterStructures.byName, params];
    const cts = signal ? new rpc.CancellationTokenSource() : undefined;
    const onAbort = () => cts?.cancel();
    if (cts) args.push(cts.token);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await (this.#conn.sendRequest as (m: string, ...a: unknown[]) => Promise<R>)(method, ...args);
    } catch (e) {
      throw this.#toError(method, e);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      cts?.dispose();
    }
  }

  #toError(method: string, e: unknown): Error {
    if (e instanceof ToolRPCError || e instanceof TypeError) return e;
    const closedCodes: number[] = [rpc.ErrorCodes.PendingResponseRejected, rpc.ErrorCodes.ConnectionInactive, rpc.ErrorCodes.MessageWriteError, rpc.ErrorCodes.MessageReadError];
    if (e instanceof rpc.ResponseError && !closedCodes.includes(e.code)) {
      return new ToolRPCError(method, e.code, e.message, e.data, { cause: e });
    }
    const code = e instanceof rpc.ResponseError ? e.code : ErrorCodes.ConnectionClosed;
    const why = this.#closing ? 'the client was closed' : this.#exit ? `the server exited (${this.#exit.code ?? this.#exit.signal})` : 'the connection failed';
    const tail = this.stderrTail.trim();
    return new ToolRPCError(method, code, `${method}: no reply, ${why}${tail ? `; server stderr ends with: ${tail.slice(-1000)}` : ''}`, undefined, { kind: 'CONNECTION_CLOSED', cause: e });
  }

  /**
   * close ends the server: shutdown (which cancels running calls and removes
   * the scratch dir), then exit. If the server has not exited within
   * closeTimeoutMs it is killed with SIGKILL. close resolves after the
   * process has exited and been reaped; calling it again returns the same
   * promise.
   */
  close(): Promise<CloseResult> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<CloseResult> {
    const end = Date.now() + this.#closeTimeoutMs;
    const gone = this.exited.then(() => true);
    let killed = false;
    if (!this.#exit) {
      const replied = this.#conn.sendRequest('shutdown').then(() => true, () => false);
      if (await Promise.race([replied, gone, deadline(end - Date.now())])) {
        const sent = this.#conn.sendNotification('exit').then(() => true, () => false);
        await Promise.race([sent, gone, deadline(end - Date.now())]);
      }
      this.#child.stdin.end(); // EOF is shutdown + exit too (SPEC §1).
      if (!(await Promise.race([gone, deadline(end - Date.now())]))) {
        killed = this.#child.kill('SIGKILL');
      }
    }
    const st = await this.exited;
    this.#conn.dispose();
    return { ...st, killed };
  }
}
