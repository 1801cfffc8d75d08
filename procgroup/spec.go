package procgroup

import (
	"io"
	"os"
	"os/exec"
	"time"
)

// CookieEnv is the environment variable that carries a command's cookie; every
// process the command starts inherits it unless it clears its environment.
const CookieEnv = "TOOLRPC_CALL_COOKIE"

// drainGrace is how long Wait lets the pipes reach end of file after the shell
// exits before it kills what is left of the command. Tests shorten it.
var drainGrace = 200 * time.Millisecond

// drainBackstop bounds the wait for the pipes to reach end of file after Kill;
// past it the read ends are closed (a process outside the server's reach may
// hold a write end). Tests shorten it.
var drainBackstop = 2 * time.Second

// readBufBytes is the read size of the output pipes.
const readBufBytes = 128 << 10

// pipeBytes is the pipe capacity asked for, so a fast writer needs fewer
// wake-ups; the kernel may grant less.
const pipeBytes = 1 << 20

// Spec describes one command.
type Spec struct {
	// Command is the shell command line, run with bash -c (sh -c without bash).
	Command string
	// Dir is the working directory.
	Dir string
	// Env is added to the server's environment ("K=V"); later entries win.
	Env []string
	// Unset names variables removed from the result (the sandbox's
	// SSH_AUTH_SOCK and TMUX), whoever set them.
	Unset []string
	// Stdin is the command's standard input; nil means /dev/null.
	Stdin *string
	// Stdout and Stderr receive the command's output as it is read. Their
	// Write must not block for long: it runs on the pipe's reading goroutine.
	Stdout, Stderr io.Writer
	// TTY, when set, is the slave end of a pseudo-terminal: the command's
	// stdin, stdout and stderr, and its controlling terminal (the shell is a
	// session leader). Stdin, Stdout, Stderr and KeepStdin are then ignored:
	// the caller reads and writes the terminal's master end. Unix only:
	// Start on Windows refuses a Spec with TTY set.
	TTY *os.File
	// KeepStdin gives the command a stdin pipe whose write end the caller
	// holds (Group.Stdin) instead of Stdin's text.
	KeepStdin bool
	// DrainGrace, when positive, replaces drainGrace for this command.
	DrainGrace time.Duration
	// GitPrompts is a per-call option of shell.Start, which procgroup does
	// not read: git may prompt (GIT_TERMINAL_PROMPT=1 in place of the
	// environment policy's 0), for a process that is there to answer
	// prompts (SPEC §13).
	GitPrompts bool
	// Wrap, when set, changes how the shell is started (Unix only): given
	// the command as it would start the shell, it rewrites it in place —
	// the program and argv to start instead, its environment, files to hand
	// over (ExtraFiles, closed by the Group once the start is done) and
	// attributes. The program must exec the shell in its own place, keeping
	// the pid (the sandbox's wrapper does).
	Wrap func(cmd *exec.Cmd) error
	// Fork, when set, forks the shell in place of Wrap (Unix only): it
	// calls start, which forks the shell, on the
	// thread the shell must be forked from (the sandbox's confined thread),
	// and returns done, which the Group calls once the shell is reaped.
	// Everything else of the start (the cgroup, the pipes) is done on the
	// caller's thread.
	Fork func(start func() error) (done func(), err error)

	noCgroup bool // tests set it to cover the sweep on machines with cgroup v2
}

// Status is how the shell ended.
type Status struct {
	// ExitCode is the shell's exit code, or -1 when a signal ended it.
	ExitCode int
	// Signal names the signal that ended the shell ("SIGKILL"), or "".
	Signal string
}
