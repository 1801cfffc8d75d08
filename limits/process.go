package limits

import "time"

// Processes that outlive a call (SPEC §13).
const (
	// ProcessMaxLive is the most processes one session runs at once; a start
	// past it is refused, naming the live ones.
	ProcessMaxLive = 32
	// ProcessMaxExited is the most exited processes a session keeps (state,
	// exit code, log); past it the oldest is dropped.
	ProcessMaxExited = 100
	// ProcessLogKeepBytes is how much of a process's rendered log the log
	// file keeps: at least its last 64 MiB.
	ProcessLogKeepBytes = 64 * MiB
	// ProcessLogSlackBytes is how far the log file may grow past
	// ProcessLogKeepBytes before its head is dropped.
	ProcessLogSlackBytes = 32 * MiB
	// ProcessWriteMaxBytes bounds the data of one tools/process/write.
	ProcessWriteMaxBytes = 256 * KB
	// ProcessDefaultCols and ProcessDefaultRows size a pty when start gives
	// no cols or rows.
	ProcessDefaultCols = 120
	ProcessDefaultRows = 40
	// ProcessMinCols .. ProcessMaxCols and ProcessMinRows .. ProcessMaxRows
	// are the pty sizes start accepts.
	ProcessMinCols = 20
	ProcessMaxCols = 500
	ProcessMinRows = 5
	ProcessMaxRows = 200
	// ProcessDefaultIdleMs .. are the idle wait's default and range, in ms.
	ProcessDefaultIdleMs = 2000
	ProcessMinIdleMs     = 100
	ProcessMaxIdleMs     = 600000
	// ProcessDefaultTimeoutMs is how long a wait lasts when it gives no
	// timeoutMs; ProcessMaxTimeoutMs the longest it may ask for (0 = a poll).
	ProcessDefaultTimeoutMs = 10000
	ProcessMaxTimeoutMs     = 600000
	// ProcessDefaultGraceMs is how long signal waits after TERM, INT, HUP or
	// QUIT before it kills the tree; ProcessMaxGraceMs the longest allowed.
	ProcessDefaultGraceMs = 2000
	ProcessMaxGraceMs     = 60000
)

// ProcessPromptIdle is, outside Linux (no /proc to see a blocked read), how
// long output must rest after a line without a newline before a process is
// reported as awaiting input with promptConfidence "low" (SPEC §13.1).
const ProcessPromptIdle = 500 * time.Millisecond

// ProcessDrainGrace is how long a process's output may still arrive after
// its shell exited before the rest of its tree is killed.
const ProcessDrainGrace = 20 * time.Millisecond

// ProcessInputPoll is the pause between two checks for a blocked read while
// a call waits for input, for ProcessInputFastFor after the process's last
// output or input (a prompt comes with output); past that the pause grows
// to ProcessInputPollMax, so quiet processes cost next to nothing.
const (
	ProcessInputPoll    = 10 * time.Millisecond
	ProcessInputFastFor = 1 * time.Second
	ProcessInputPollMax = 200 * time.Millisecond
)

// ProcessShortWait is the longest timeout of a wait for input that is not
// taken for a prompt at once: a program in such a wait acts by itself soon
// (vim waits 100 ms after an Esc to tell it from the start of a key's code),
// so its output must first rest as long as the wait's timeout. A wait with
// a longer timeout, or none, is a prompt as soon as it is seen (SPEC §13.1).
const ProcessShortWait = 1 * time.Second
