package shell

import (
	"io"
	"time"

	"github.com/toolrpc/toolrpc/procgroup"
	"github.com/toolrpc/toolrpc/wire"
)

// Capture is the two bounded outputs of one command that Run does not
// start itself (a shell session's command, SPEC §6.7): what is written to
// Stdout and Stderr is kept, streamed and cut exactly as Run does it.
type Capture struct {
	spec  Spec
	r     *run
	start time.Time
}

// NewCapture returns the capture of one command under spec: its Progress,
// Spill, Tool and Logf are used; the rest is ignored.
func NewCapture(spec Spec) *Capture {
	return &Capture{spec: spec, r: newRun(spec), start: time.Now()}
}

// Stdout is where the command's standard output goes. Its Write must be
// called from one goroutine at a time.
func (c *Capture) Stdout() io.Writer { return c.r.stdout.writer() }

// Stderr is where the command's standard error goes, as Stdout.
func (c *Capture) Stderr() io.Writer { return c.r.stderr.writer() }

// Result ends both streams (every chunk is sent when it returns) and
// returns the bounded BashResult of a command that ended with st, but its
// Sandbox and Session members. No write may follow.
func (c *Capture) Result(st procgroup.Status) *wire.BashResult {
	c.r.close()
	return c.r.result(c.spec, st, c.start)
}
