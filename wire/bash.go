package wire

import "encoding/json"

// BashParams are the params of tools/bash (SPEC §6).
type BashParams struct {
	Command string    `json:"command" jsonschema:"the command, run with bash -c"`
	Cwd     *string   `json:"cwd,omitempty" jsonschema:"working directory inside the workspace (default: the first root)"`
	Env     StringMap `json:"env,omitempty" jsonschema:"variables added to the server's environment"`
	Stdin   *string   `json:"stdin,omitempty" jsonschema:"the command's standard input (default: /dev/null)"`
	Timeout *float64  `json:"timeout,omitempty" jsonschema:"seconds"`
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
	// Notice names the editor's unsaved buffers, which the command did not
	// see, and those whose file it changed on disk (SPEC §15).
	Notice string `json:"notice,omitempty"`
}
