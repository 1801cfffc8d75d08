package wire

// The process tools (SPEC §13). Params members are pointers where the
// adapter must tell absent from zero or check a range; integers are int64,
// as grep's are (the decoder refuses a fraction); the schemas say the ranges.

// ProcessWait is Wait of SPEC §13: when a process call answers.
type ProcessWait struct {
	// Until is the events to answer on: exit, input, idle, pattern, port
	// (default exit, input, idle).
	Until []string `json:"until,omitempty"`
	// Pattern is an RE2 matched against each rendered line; it needs
	// "pattern" in Until.
	Pattern *string `json:"pattern,omitempty"`
	// IdleMs is how long without output counts as idle.
	IdleMs *int64 `json:"idleMs,omitempty"`
	// TimeoutMs is how long the call waits at most (0: answer at once).
	TimeoutMs *int64 `json:"timeoutMs,omitempty"`
}

// ProcessStartParams are the params of tools/process/start.
type ProcessStartParams struct {
	Command *string      `json:"command"`
	Cwd     *string      `json:"cwd,omitempty" jsonschema:"working directory inside the workspace (default: the first root)"`
	Env     StringMap    `json:"env,omitempty" jsonschema:"variables added to the server's environment"`
	Mode    *string      `json:"mode,omitempty"` // pipe (default) or pty
	Cols    *int64       `json:"cols,omitempty"`
	Rows    *int64       `json:"rows,omitempty"`
	Label   *string      `json:"label,omitempty"`
	Wait    *ProcessWait `json:"wait,omitempty"`
}

// ProcessReadParams are the params of tools/process/read.
type ProcessReadParams struct {
	ID        *string      `json:"id"`
	Since     *int64       `json:"since,omitempty"` // a cursor; default where the last reply ended
	TailLines *int64       `json:"tailLines,omitempty"`
	Wait      *ProcessWait `json:"wait,omitempty"`
}

// ProcessWriteParams are the params of tools/process/write.
type ProcessWriteParams struct {
	ID   *string      `json:"id"`
	Data *string      `json:"data,omitempty"`
	Keys []string     `json:"keys,omitempty"` // named keys, sent after Data
	EOF  bool         `json:"eof,omitempty"`
	Wait *ProcessWait `json:"wait,omitempty"`
}

// ProcessSignalParams are the params of tools/process/signal.
type ProcessSignalParams struct {
	ID      *string      `json:"id"`
	Signal  *string      `json:"signal"` // INT TERM HUP QUIT KILL TSTP CONT
	GraceMs *int64       `json:"graceMs,omitempty"`
	Wait    *ProcessWait `json:"wait,omitempty"`
}

// ProcessPrompt is ProcessReply.prompt: the line a process awaiting input
// shows; Echo false is a password prompt.
type ProcessPrompt struct {
	Text string `json:"text"`
	Echo bool   `json:"echo"`
}

// ProcessInfo is ProcessInfo of SPEC §13: a process's state.
type ProcessInfo struct {
	ID                string         `json:"id"`
	Pid               int            `json:"pid"`
	Label             string         `json:"label,omitempty"`
	Mode              string         `json:"mode"`
	State             string         `json:"state"`  // running, awaitingInput, exited
	Reason            string         `json:"reason"` // exit, input, idle, pattern, port, timeout, signal
	ExitCode          *int           `json:"exitCode"`
	Signal            string         `json:"signal,omitempty"`
	Prompt            *ProcessPrompt `json:"prompt,omitempty"`
	PromptConfidence  string         `json:"promptConfidence,omitempty"`
	Ports             []int          `json:"ports,omitempty"`
	Log               string         `json:"log"`
	DescendantsKilled int            `json:"descendantsKilled,omitempty"`
	DurationMs        int64          `json:"durationMs"`
}

// ProcessCursor is ProcessReply.cursor: a range of offsets in a process's
// log.
type ProcessCursor struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// ProcessReply is ProcessReply of SPEC §13, the result of start, read,
// write and signal: the process's state and its output since the cursor.
type ProcessReply struct {
	ProcessInfo
	Matched      string        `json:"matched,omitempty"`
	Output       string        `json:"output"`
	Cursor       ProcessCursor `json:"cursor"`
	Truncated    bool          `json:"truncated"`
	OmittedBytes int64         `json:"omittedBytes"`
	// Sandbox names what the sandbox denied the process, once it has
	// exited (SPEC §14).
	Sandbox *SandboxReport `json:"sandbox,omitempty"`
	// Notice (start) names the editor's unsaved buffers, which the process
	// does not see, and those whose file it changed on disk (SPEC §15).
	Notice string `json:"notice,omitempty"`
}

// ProcessList is the result of tools/process/list.
type ProcessList struct {
	Processes []ProcessInfo `json:"processes"`
}
