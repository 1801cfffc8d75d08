package wire

import "encoding/json"

// Stable data.code strings of SPEC §10.
const (
	InvalidArgument  = "INVALID_ARGUMENT"
	Cancelled        = "CANCELLED"
	BinaryContent    = "TOOL_BINARY_CONTENT"
	NotFound         = "NOT_FOUND"
	IsDirectory      = "IS_DIRECTORY"
	PermissionDenied = "PERMISSION_DENIED"
	Timeout          = "TIMEOUT"
	StaleTag         = "STALE_TAG"
	LineNotVisible   = "LINE_NOT_VISIBLE"
	IOError          = "IO_ERROR"
	// SandboxDenied is a file-tool path the sandbox policy denies (SPEC §14).
	SandboxDenied = "SANDBOX_DENIED"
	// SandboxUnavailable refuses a call whose explicit sandbox mode this
	// machine cannot enforce in full (SPEC §14).
	SandboxUnavailable = "SANDBOX_UNAVAILABLE"
	// EditorUnsaved refuses a disk edit or write of a file whose editor
	// buffer has unsaved changes (SPEC §15).
	EditorUnsaved = "EDITOR_UNSAVED"
	// EditNotApplied is an edit sent to the editor that did not land in its
	// buffer in time (SPEC §15).
	EditNotApplied = "EDIT_NOT_APPLIED"
)

// Kinds returns every data.code string of SPEC §10.
func Kinds() []string {
	return []string{InvalidArgument, Cancelled, BinaryContent, NotFound, IsDirectory,
		PermissionDenied, Timeout, StaleTag, LineNotVisible, IOError, SandboxDenied, SandboxUnavailable,
		EditorUnsaved, EditNotApplied}
}

// ErrorObject is a JSON-RPC error object as LSP mode sends it and as an MCP
// isError result carries it in structuredContent. Data, when present, is the
// JSON of an object whose "code" member is the SPEC §10 kind (ErrorData),
// beside what the failure adds (a bash TIMEOUT's partial BashResult, a
// STALE_TAG's current tag).
type ErrorObject struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// ErrorData is the part of an error's data member every tool failure has.
type ErrorData struct {
	Code string `json:"code"`
}
