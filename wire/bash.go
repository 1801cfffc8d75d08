package wire

import "encoding/json"

// BashParams are the params of tools/bash (SPEC §6).
type BashParams struct {
	Command string    `json:"command" jsonschema:"the command, run with bash -c"`
	Cwd     *string   `json:"cwd,omitempty" jsonschema:"working directory inside the workspace (default: the first root)"`
	Env     StringMap `json:"env,omitempty" jsonschema:"variables added to the server's environment"`
	Stdin   *string   `json:"stdin,omitempty" jsonschema:"the command's standard input (default: /dev/null)"`
	Timeout *float64  `json:"timeout,omitempty" jsonschema:"seconds"`
	// Session names a long-lived shell the command runs in (SPEC §6.7):
	// commands with the same session run one after another in one bash,
	// whose working directory, variables, functions, aliases and options
	// carry from one command to the next. Absent: a fresh bash -c.
	Session *string `json:"session,omitempty" jsonschema:"run in this named shell session; cd, export, functions, aliases, options and a sourced venv persist between its commands"`
	// Restart ends the session's shell before the command runs, so the
	// command starts a fresh one. It needs Session.
	Restart bool `json:"restart,omitempty" jsonschema:"end the session's shell first; the command runs in a fresh one"`
	// WorkDoneToken is the JSON of the progress token (a string or an
	// integer); output chunks carry it.
	WorkDoneToken json.RawMessage `json:"workDoneToken,omitempty"`
}

// StreamInfo is StreamInfo of SPEC §6: what one stream wrote and what of it
// the result holds.
type StreamInfo struct {
	Bytes        int    `json:"bytes" jsonschema:"everything the process wrote to the stream"`
	Lines        int    `json:"lines" jsonschema:"lines the process wrote to the stream"`
	Truncated    bool   `json:"truncated" jsonschema:"the result holds less than that"`
	OmittedBytes int    `json:"omittedBytes" jsonschema:"bytes the capture layer did not retain"`
	OmittedLines int    `json:"omittedLines" jsonschema:"lines the capture layer did not retain"`
	Spill        string `json:"spill,omitempty" jsonschema:"path of the spill file, only if one was written"`
	Chunks       int    `json:"chunks" jsonschema:"progress chunks sent for this stream (last seq + 1)"`
}

// BashResult is BashResult of SPEC §6; it is also the data of a TIMEOUT or
// CANCELLED error. ExitCode is nil when a signal ended the command.
type BashResult struct {
	ExitCode   *int       `json:"exitCode"`
	Signal     string     `json:"signal,omitempty" jsonschema:"the signal that ended the command, e.g. SIGKILL"`
	Stdout     string     `json:"stdout" jsonschema:"head kept; marker appended when cut"`
	Stderr     string     `json:"stderr" jsonschema:"tail kept; marker prepended when cut"`
	Truncated  bool       `json:"truncated" jsonschema:"either stream cut"`
	StdoutInfo StreamInfo `json:"stdoutInfo"`
	StderrInfo StreamInfo `json:"stderrInfo"`
	DurationMs int64      `json:"durationMs"`
	// Sandbox names what the sandbox denied the command (SPEC §14), when
	// it denied anything.
	Sandbox *SandboxReport `json:"sandbox,omitempty"`
	// Session is present when the call named a session (SPEC §6.7).
	Session *BashSession `json:"session,omitempty"`
}

// SessionNamePattern is what a session name must match (SPEC §6.7).
const SessionNamePattern = "^[A-Za-z0-9_.-]{1,32}$"

// SessionLost is the words a result's BashSession.Notice ends with when the
// session's shell is gone after the command (it ran exit or exec, was
// killed, or the shell died): SPEC §6.7.
const SessionLost = "state was lost: the next command in this session starts a new shell"

// SessionFresh is the words a notice ends with when the command ran in a new
// shell because the previous one had ended (restart, idle time, a sandbox
// update, an earlier exit): SPEC §6.7.
const SessionFresh = "this command ran in a new shell"

// BashSession is what a tools/bash call with a session says about the
// session's shell (SPEC §6.7).
type BashSession struct {
	// Name is the session's name, as the call gave it.
	Name string `json:"name"`
	// Started is true when this command started the session's shell: its
	// first command, a restart, or the first after the state was lost.
	Started bool `json:"started" jsonschema:"this command started the session's shell"`
	// Ended is true when the session's shell is gone after this command;
	// the next command starts a new one in the session's first directory.
	Ended bool `json:"ended" jsonschema:"the shell is gone: the next command starts a new one"`
	// Notice says in words what happened to the session's state, when
	// anything did: why a shell ended (ending with SessionLost) or why this
	// command ran in a new one (ending with SessionFresh).
	Notice string `json:"notice,omitempty" jsonschema:"what happened to the session's state, in words"`
	// BackgroundBytes counts output that jobs of earlier commands wrote
	// after their command's reply, since the previous command; it is
	// discarded, never attributed to this command.
	BackgroundBytes int64 `json:"backgroundBytes,omitempty" jsonschema:"output jobs of earlier commands wrote after their command's reply; discarded"`
}
