package wire

import "encoding/json"

// BashParams are the params of tools/bash (SPEC §6).
type BashParams struct {
	Command *string   `json:"command" jsonschema:"the command, run with bash -c"`
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
	Bytes        int    `json:"bytes"`
	Lines        int    `json:"lines"`
	Truncated    bool   `json:"truncated"`
	OmittedBytes int    `json:"omittedBytes"`
	OmittedLines int    `json:"omittedLines"`
	Spill        string `json:"spill,omitempty"`
	Chunks       int    `json:"chunks"`
}

// BashResult is BashResult of SPEC §6; it is also the data of a TIMEOUT or
// CANCELLED error. ExitCode is nil when a signal ended the command.
type BashResult struct {
	ExitCode   *int       `json:"exitCode"`
	Signal     string     `json:"signal,omitempty"`
	Stdout     string     `json:"stdout"`
	Stderr     string     `json:"stderr"`
	Truncated  bool       `json:"truncated"`
	StdoutInfo StreamInfo `json:"stdoutInfo"`
	StderrInfo StreamInfo `json:"stderrInfo"`
	DurationMs int64      `json:"durationMs"`
}
