//go:build !linux

package process

import (
	"time"

	"github.com/toolrpc/toolrpc/limits"
)

// promptConfidence is "low" outside Linux: there is no /proc to see a
// blocked read, so input is guessed (SPEC §13.1).
const promptConfidence = "low"

// target is the input end of a process (kept for the Linux probe's shape).
type target struct {
	master  int    // pty master fd, -1 in pipe mode
	ttyRdev uint64 // the slave's device number (pty)
	ttyPath string // the slave's path (pty)
	pipeIno uint64 // the stdin pipe's inode (pipe)
	stdin   int    // the stdin pipe's write end (pipe), -1 on a pty
}

// queued is 0 outside Linux: the input queue is not read there.
func (target) queued() int { return 0 }

// probe is what one look at the process found.
type probe struct {
	blocked bool // the process is taken to wait for input
	echo    bool // always true: echo cannot be read here
	settle  time.Duration
	waits   string
}

// probeInput is the fallback of SPEC §13.1: a process whose output rested
// limits.ProcessPromptIdle after a line without a newline awaits input.
func (p *Process) probeInput([]int) probe {
	p.mu.Lock()
	defer p.mu.Unlock()
	blocked := p.rend.Pending() != "" && time.Since(p.lastOut) >= limits.ProcessPromptIdle
	return probe{blocked: blocked, echo: true}
}

// listeningPorts finds nothing outside Linux (no /proc/net); waits for a
// port end on their other events.
func listeningPorts([]int) []int { return nil }
