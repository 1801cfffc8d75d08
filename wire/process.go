package wire

// The process tools (SPEC §13). Params members are pointers where the
// adapter must tell absent from zero or check that a number is an integer
// in range; the schemas say the ranges.

// ProcessWait is Wait of SPEC §13: when a process call answers.
type ProcessWait struct {
	// Until is the events to answer on: exit, input, idle, pattern, port
	// (default exit, input, idle).
	Until []string `json:"until"`
	// Pattern is an RE2 matched against each rendered line; it needs
	// "pattern" in Until.
	Pattern *string `json:"pattern"`
	// IdleMs is how long without output counts as idle.
	IdleMs *float64 `json:"idleMs"`
	// TimeoutMs is how long the call waits at most (0: answer at once).
	TimeoutMs *float64 `json:"timeoutMs"`
}

// ProcessStartParams are the params of tools/process/start.
type ProcessStartParams struct {
	Command *string      `json:"command"`
	Cwd     *string      `json:"cwd"`
	Env     StringMap    `json:"env"`
	Mode    *string      `json:"mode"` // pipe (default) or pty
	Cols    *float64     `json:"cols"`
	Rows    *float64     `json:"rows"`
	Label   *string      `json:"label"`
	Wait    *ProcessWait `json:"wait"`
}

// ProcessReadParams are the params of tools/process/read.
type ProcessReadParams struct {
	ID        *string      `json:"id"`
	Since     *float64     `json:"since"` // a cursor; default where the last reply ended
	TailLines *float64     `json:"tailLines"`
	Wait      *ProcessWait `json:"wait"`
}

// ProcessWriteParams are the params of tools/process/write.
type ProcessWriteParams struct {
	ID   *string      `json:"id"`
	Data *string      `json:"data"`
	Keys []string     `json:"keys"` // named keys, sent after Data
	EOF  bool         `json:"eof"`
	Wait *ProcessWait `json:"wait"`
}

// ProcessSignalParams are the params of tools/process/signal.
type ProcessSignalParams struct {
	ID      *string      `json:"id"`
	Signal  *string      `json:"signal"` // INT TERM HUP QUIT KILL TSTP CONT
	GraceMs *float64     `json:"graceMs"`
	Wait    *ProcessWait `json:"wait"`
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
}

// ProcessList is the result of tools/process/list.
type ProcessList struct {
	Processes []ProcessInfo `json:"processes"`
}
