package shell

import (
	"context"
	"io"
	"os/exec"
	"time"

	"github.com/toolrpc/toolrpc/internal/capture"
	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/procgroup"
	"github.com/toolrpc/toolrpc/wire"
)

// Spec describes one command for Run.
type Spec struct {
	// Command is the shell command line (bash -c, sh -c without bash).
	Command string
	// Dir is the working directory.
	Dir string
	// Env is added to the server's environment ("NAME=value"), before the
	// Environ policy.
	Env []string
	// Stdin is the command's standard input; nil means /dev/null.
	Stdin *string
	// Timeout bounds the run; 0 means no timeout.
	Timeout time.Duration
	// Progress receives each stream's output chunks while the command runs
	// (nil: none are sent; they are still counted). A failing Progress stops
	// that stream's chunks, not the command. No call follows Run's return.
	Progress func(capture.Chunk) error
	// Spill saves a cut stream's captured copy (nil: never).
	Spill Spiller
	// Tool names the spill files ("bash" gives bash-stdout-…); "" is "bash".
	Tool string
	// Logf logs what costs the result nothing but a sentence, such as a
	// failed spill (nil: discarded).
	Logf func(format string, args ...any)
	// Wrap starts the shell through the sandbox's wrapper (procgroup.Spec.Wrap;
	// nil: unconfined).
	Wrap func(cmd *exec.Cmd) error
	// Fork forks the shell from the sandbox's confined thread
	// (procgroup.Spec.Fork; nil: Wrap alone).
	Fork func(start func() error) (done func(), err error)
	// Unset names variables the command does not get (procgroup.Spec.Unset).
	Unset []string
}

// Run runs spec's command to its end and returns its bounded result, SPEC
// §6's BashResult but its Sandbox member, which the caller's policy fills:
// stdout keeps the head within the shell budget, stderr the tail within the
// shell error budget, ExitCode is nil when a signal ended the shell. When the
// timeout passes or ctx ends first, the whole process tree is killed and Run
// returns the partial result with a *TimeoutError or a *CancelledError. Any
// other error (the command could not start; ErrDirGone) comes with a nil
// result. When Run returns, no process of the command is alive and no
// Progress call is under way.
func Run(ctx context.Context, spec Spec) (*wire.BashResult, error) {
	r := newRun(spec)
	start := time.Now()
	g, err := Start(ctx, procgroup.Spec{
		Command: spec.Command, Dir: spec.Dir, Env: spec.Env, Stdin: spec.Stdin,
		Stdout: r.stdout.writer(), Stderr: r.stderr.writer(), Wrap: spec.Wrap, Fork: spec.Fork,
		Unset: spec.Unset,
	})
	if err != nil {
		r.close()
		return nil, err
	}
	st, end, err := waitFor(ctx, g, spec.Timeout)
	r.close()
	if err != nil && end == exited {
		return nil, err
	}
	return r.result(spec, st, start), end.err(ctx, spec.Timeout)
}

// result is the BashResult of a run whose shell ended with st, its streams
// closed: each cut (and spilled) as SPEC §6 says.
func (r *run) result(spec Spec, st procgroup.Status, start time.Time) *wire.BashResult {
	out, errs := r.stdout.result(spec, r.tool), r.stderr.result(spec, r.tool)
	res := &wire.BashResult{
		Signal: st.Signal, Stdout: out.Text, Stderr: errs.Text, Truncated: out.Truncated || errs.Truncated,
		StdoutInfo: out.StreamInfo, StderrInfo: errs.StreamInfo, DurationMs: time.Since(start).Milliseconds(),
	}
	if st.Signal == "" {
		code := st.ExitCode
		res.ExitCode = &code
	}
	return res
}

// run holds one Run's two captured outputs.
type run struct {
	tool           string
	stdout, stderr *output
}

func newRun(spec Spec) *run {
	send := spec.Progress
	if send == nil {
		send = func(capture.Chunk) error { return nil }
	}
	tool := spec.Tool
	if tool == "" {
		tool = "bash"
	}
	return &run{
		tool: tool,
		stdout: &output{name: "stdout", end: Head, budget: cut.ShellBudget(),
			keep: capture.NewHead(limits.CaptureMaxBytes, limits.CaptureMaxLines), stream: capture.NewStreamer("stdout", send)},
		stderr: &output{name: "stderr", end: Tail, budget: cut.ShellErrBudget(),
			keep: capture.NewTail(limits.CaptureMaxBytes, limits.CaptureMaxLines), stream: capture.NewStreamer("stderr", send)},
	}
}

// close ends both streams: every chunk is sent when it returns.
func (r *run) close() {
	r.stdout.stream.Close()
	r.stderr.stream.Close()
}

// keeper is a capture.Head or capture.Tail.
type keeper interface {
	io.Writer
	Snapshot() capture.Snapshot
}

// output is one stream of a command: what is retained, and what is streamed.
type output struct {
	name   string
	end    End
	budget cut.Budget
	keep   keeper
	stream *capture.Streamer
}

func (o *output) writer() io.Writer { return io.MultiWriter(o.keep, o.stream) }

// result cuts the retained stream, spilling its copy when it was cut.
func (o *output) result(spec Spec, tool string) Stream {
	s, err := Cut(o.keep.Snapshot(), o.end, o.budget, spec.Spill, SpillLabel(tool, o.name))
	if err != nil && spec.Logf != nil {
		spec.Logf("%s: %s: %v", tool, o.name, err)
	}
	s.Chunks = o.stream.Chunks()
	return s
}
