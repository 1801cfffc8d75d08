package limits

import "time"

// KB is 1024 bytes, the unit every byte budget of the contract is written in.
const KB = 1024

// MiB is 1024 KB.
const MiB = 1024 * KB

// Result budgets (SPEC §2).
const (
	// SearchBudgetBytes bounds one Read, Grep or Glob result.
	SearchBudgetBytes = 128 * KB
	// SearchBudgetLines bounds the lines of one Read, Grep or Glob result.
	SearchBudgetLines = 4000
	// ShellBudgetBytes bounds the stdout text of one Bash result (head kept).
	ShellBudgetBytes = 96 * KB
	// ShellBudgetLines bounds the stdout lines of one Bash result (head kept).
	ShellBudgetLines = 4000
	// ShellErrBudgetBytes bounds the stderr text of one Bash result (tail kept).
	ShellErrBudgetBytes = 96 * KB
	// ShellErrBudgetLines bounds the stderr lines of one Bash result (tail kept).
	ShellErrBudgetLines = 4000
	// MaxLineChars is the longest line, in Unicode code points, Read or Grep
	// shows whole; longer lines are clipped.
	MaxLineChars = 16384
)

// Read window (SPEC §4).
const (
	// ReadDefaultLimit is the number of lines Read returns when limit is omitted.
	ReadDefaultLimit = 2000
	// ReadMaxLimit is the largest limit Read accepts.
	ReadMaxLimit = 4000
)

// Grep and Glob entry caps (SPEC §5).
const (
	// GrepDefaultHeadLimit is the number of entries Grep returns when headLimit is omitted.
	GrepDefaultHeadLimit = 200
	// GlobDefaultLimit is the number of paths Glob returns when limit is omitted.
	GlobDefaultLimit = 100
	// GlobMaxLimit is the largest limit Glob accepts.
	GlobMaxLimit = 1000
)

// Capture and spill (SPEC §6.1, §6.3).
const (
	// CaptureMaxBytes is what the server retains of one stream of a running command.
	CaptureMaxBytes = 512 * KB
	// CaptureMaxLines is the most lines the server retains of one stream.
	CaptureMaxLines = 200000
	// SpillMaxBytes bounds one spill file.
	SpillMaxBytes = 512 * KB
)

// Bash timeout, in seconds (SPEC §6.5).
const (
	// BashDefaultTimeoutSeconds applies when a Bash call gives no timeout.
	BashDefaultTimeoutSeconds = 60
	// BashMinTimeoutSeconds is the smallest timeout a Bash call may ask for.
	BashMinTimeoutSeconds = 1
	// BashMaxTimeoutSeconds is the largest timeout a Bash call may ask for.
	BashMaxTimeoutSeconds = 21600
)

// Streaming of Bash output as $/progress (SPEC §6.4).
const (
	// StreamChunkBytes is the size at which buffered output is flushed as a chunk.
	StreamChunkBytes = 16 * KB
	// StreamFlushInterval is the longest buffered output waits before it is flushed.
	StreamFlushInterval = 25 * time.Millisecond
	// StreamFullBytes is how much of each stream is streamed in full.
	StreamFullBytes = 1 * MiB
	// StreamThrottledChunksPerSecond caps chunks per second past StreamFullBytes.
	StreamThrottledChunksPerSecond = 4
	// StreamPendingBytes bounds the full-fidelity output of all running
	// calls together that waits to be sent; past it, commands are paced by
	// the host's reading (their output pipes fill) instead of piling up in
	// the server's memory.
	StreamPendingBytes = 8 * MiB
)

// Edit payload (SPEC §8).
const (
	// EditMaxBytes bounds the ops of one Edit request.
	EditMaxBytes = 256 * KB
	// EditMaxOps bounds the number of ops of one Edit request.
	EditMaxOps = 200
)

// Checkpoint budgets, in estimated tokens (SPEC §9).
const (
	// CheckpointUserTokens bounds the latest retained user message.
	CheckpointUserTokens = 20000
	// CheckpointBatchTokens bounds one parallel batch of tool results.
	CheckpointBatchTokens = 32000
	// BytesPerToken is the divisor of the token estimate ceil(bytes / 4).
	BytesPerToken = 4
)

// Binary sniffing (SPEC §4).
const (
	// SniffBytes is how much of a file's start is inspected for binary content.
	SniffBytes = 4 * KB
	// BinaryNonPrintablePercent is the share of non-printable bytes above which
	// the sniffed head marks a file as binary.
	BinaryNonPrintablePercent = 30
)

// Files whose stat size is 0 yet hold text, as /proc files do (SPEC §4).
const (
	// UnsizedFileMaxBytes bounds how much of a regular file that reports
	// size 0 Read and Grep read (to its end, never trusting the size); Read
	// holds it in memory for one consistent pass.
	UnsizedFileMaxBytes = 8 * MiB
)

// Protocol (SPEC §1).
const (
	// MaxFrameBytes is the largest Content-Length the server accepts; larger
	// frames are answered with -32600 and skipped without being allocated.
	MaxFrameBytes = 64 * MiB
	// MaxHeaderBytes bounds the header block of one frame.
	MaxHeaderBytes = 8 * KB
)

// Table returns every limit of SPEC §2 by its wire name, as the initialize
// result reports them.
func Table() map[string]int64 {
	return map[string]int64{
		"BUDGET_SEARCH_BYTES":        SearchBudgetBytes,
		"BUDGET_SEARCH_LINES":        SearchBudgetLines,
		"BUDGET_SHELL_BYTES":         ShellBudgetBytes,
		"BUDGET_SHELL_LINES":         ShellBudgetLines,
		"BUDGET_SHELL_ERR_BYTES":     ShellErrBudgetBytes,
		"BUDGET_SHELL_ERR_LINES":     ShellErrBudgetLines,
		"MAX_LINE_CHARS":             MaxLineChars,
		"READ_DEFAULT_LIMIT":         ReadDefaultLimit,
		"READ_MAX_LIMIT":             ReadMaxLimit,
		"GREP_DEFAULT_HEAD_LIMIT":    GrepDefaultHeadLimit,
		"GLOB_DEFAULT_LIMIT":         GlobDefaultLimit,
		"GLOB_MAX_LIMIT":             GlobMaxLimit,
		"CAPTURE_MAX_BYTES":          CaptureMaxBytes,
		"CAPTURE_MAX_LINES":          CaptureMaxLines,
		"SPILL_MAX_BYTES":            SpillMaxBytes,
		"BASH_DEFAULT_TIMEOUT_S":     BashDefaultTimeoutSeconds,
		"BASH_MIN_TIMEOUT_S":         BashMinTimeoutSeconds,
		"BASH_MAX_TIMEOUT_S":         BashMaxTimeoutSeconds,
		"EDIT_MAX_BYTES":             EditMaxBytes,
		"EDIT_MAX_OPS":               EditMaxOps,
		"CHECKPOINT_USER_TOKENS":     CheckpointUserTokens,
		"CHECKPOINT_BATCH_TOKENS":    CheckpointBatchTokens,
		"MAX_FRAME_BYTES":            MaxFrameBytes,
		"STREAM_FULL_BYTES":          StreamFullBytes,
		"STREAM_CHUNK_BYTES":         StreamChunkBytes,
		"STREAM_THROTTLED_CHUNKS_PS": StreamThrottledChunksPerSecond,
		"DOCUMENT_MAX_BYTES":         DocumentMaxBytes,
		"DOCUMENTS_MAX_BYTES":        DocumentsMaxBytes,
		"DOCUMENTS_MAX_OPEN":         DocumentsMaxOpen,
		"EDITOR_APPLY_TIMEOUT_MS":    EditorApplyTimeout.Milliseconds(),
	}
}

// EstimateTokens is the contract's token estimate: ceil(UTF-8 bytes / 4).
func EstimateTokens(s string) int {
	return (len(s) + BytesPerToken - 1) / BytesPerToken
}
