//go:build unix

package shellsession

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/internal/shell"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/procgroup"
	"golang.org/x/sys/unix"
)

// shellProc is one running shell of a session and the plumbing it reads
// and writes: the script file it reads (appended to, piece by piece), the
// wake fifo that lets it read the next piece, the status fifo it reports
// on, and the fifos of jobs that outlived their command.
type shellProc struct {
	g        *procgroup.Group
	dir      string   // private directory of the fifos
	script   *os.File // the script, opened to append (unlinked once the shell has it open)
	wake     *os.File // the server's end of the wake fifo
	st       *os.File // the status fifo's read end
	stHold   *os.File // a write end the server holds, so st never reaches EOF
	lines    chan string
	seq      int
	policy   any
	firstDir string
	bg       bgCount
	written  int64       // bytes appended to the script
	read     int64       // bytes of it the shell has surely read
	punched  int64       // bytes given back from its start (punchHole)
	spare    *spareFifos // the next command's fifos, made while idle
	lingers  []*outFifo  // fifos a job still held after its command's status
	cookies  []string    // cookies of commands that left a job
	log      *logLines
	endOnce  sync.Once
}

// startShell starts a session's shell in dir under the sandbox's wrap and
// fork (nil: unconfined), and returns it once it reported ready.
func startShell(ctx context.Context, dir string, unset []string, wrap Wrap,
	fork Fork, policy any, logf func(string, ...any)) (*shellProc, error) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, fmt.Errorf("shell sessions need bash: %w", err)
	}
	priv, err := os.MkdirTemp("", "toolrpc-sh-")
	if err != nil {
		return nil, err
	}
	p := &shellProc{dir: priv, policy: policy, firstDir: dir, lines: make(chan string, 4), log: &logLines{logf: logf}}
	p.spare = newSpareFifos(priv, &p.bg)
	if err := p.openFifos(); err != nil {
		p.close()
		return nil, err
	}
	token := newToken()
	boot := bootstrap(dir, filepath.Join(priv, "st"), filepath.Join(priv, "w"), token)
	if _, err := p.script.WriteString(boot); err != nil {
		p.close()
		return nil, err
	}
	p.written = int64(len(boot))
	// The script's name is "bash", so the shell's messages read as bash's
	// ("bash: line 3: cd: x: No such file or directory").
	p.g, err = shell.Start(ctx, procgroup.Spec{
		Command: "cd -- " + quote(priv) + " && exec " + quote(bash) + " --norc --noprofile bash",
		Dir:     dir, Stdout: p.log, Stderr: p.log, Wrap: wrap, Fork: fork, Unset: unset,
	})
	if err != nil {
		p.close()
		return nil, err
	}
	go p.readStatus()
	timer := time.NewTimer(limits.ShellSessionStart)
	defer timer.Stop()
	for err == nil {
		select {
		case line := <-p.lines:
			if tok, _, _ := strings.Cut(line, " "); tok == token {
				// The shell has its script open: no command can open it by name.
				_ = os.Remove(p.script.Name())
				p.spare.prepare()
				return p, nil
			}
			p.log.logf("shell session: unexpected status %q", line)
		case <-p.g.Exited():
			err = fmt.Errorf("shell session: the shell exited at start: %s", p.log.last())
		case <-timer.C:
			err = fmt.Errorf("shell session: the shell did not start within %s", limits.ShellSessionStart)
		case <-ctx.Done():
			err = &shell.CancelledError{Cause: ctx.Err()}
		}
	}
	p.end()
	return nil, err
}

// openFifos makes the script file (named bash), the wake fifo and the
// status fifo. The server holds both ends of the wake fifo: the shell's
// open does not wait, and its read ends only when the server is gone.
func (p *shellProc) openFifos() error {
	script, wake, st := filepath.Join(p.dir, "bash"), filepath.Join(p.dir, "w"), filepath.Join(p.dir, "st")
	for _, f := range []string{wake, st} {
		if err := unix.Mkfifo(f, 0o600); err != nil {
			return &os.PathError{Op: "mkfifo", Path: f, Err: err}
		}
	}
	var err error
	if p.script, err = os.OpenFile(script, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600); err != nil {
		return err
	}
	if p.wake, err = os.OpenFile(wake, os.O_RDWR, 0); err != nil {
		return err
	}
	if p.st, err = os.OpenFile(st, os.O_RDONLY|unix.O_NONBLOCK, 0); err != nil {
		return err
	}
	p.stHold, err = os.OpenFile(st, os.O_WRONLY|unix.O_NONBLOCK, 0)
	return err
}

// readStatus sends each status line to lines until the fifo is closed. The
// status fifo is the shell's stdout: what else the shell prints outside
// any command (a trap's output) is logged, and a status line starts on a
// line of its own.
func (p *shellProc) readStatus() {
	sc := bufio.NewScanner(p.st)
	for sc.Scan() {
		switch line := sc.Text(); {
		case line == "":
		case isStatus(line):
			p.lines <- line
		default:
			_, _ = p.log.Write([]byte(line))
		}
	}
}

// gone reports whether the shell has exited (between two commands: a job
// killed it, or set -e ended it after its status).
func (p *shellProc) gone() bool {
	select {
	case <-p.g.Exited():
		return true
	default:
		return false
	}
}

// ending is how one command of a session ended.
type ending struct {
	rc      int
	exited  bool             // the shell is gone
	st      procgroup.Status // the shell's status, when exited
	aborted bool             // the command was killed (timeout or cancel)
	why     string           // why the shell is gone, when exited
}

// run runs one command and waits for its status, the shell's end, the
// timeout or ctx; a timeout or a cancel kills the command's tree and has
// the shell abandon it.
func (p *shellProc) run(ctx context.Context, c *command) (ending, error) {
	p.seq++
	cookie := procgroup.NewCookie()
	stdin := os.DevNull
	if c.stdin != nil {
		stdin = filepath.Join(p.dir, "i."+strconv.Itoa(p.seq))
		if err := os.WriteFile(stdin, []byte(*c.stdin), 0o600); err != nil {
			return ending{}, err
		}
		defer os.Remove(stdin)
	}
	out, errf, err := p.spare.take()
	if err != nil {
		return ending{}, err
	}
	out.attach(c.capture.Stdout())
	errf.attach(c.capture.Stderr())
	token := newToken()
	text := commandText(c.text, cookie, stdin, out.path, errf.path, c.env, token)
	if c.cd != "" {
		text = "cd -- " + quote(c.cd) + "\n" + text
	}
	if err := p.send(text); err != nil {
		out.abandon()
		errf.abandon()
		return ending{}, err
	}
	var expired <-chan time.Time
	if c.timeout > 0 {
		t := time.NewTimer(c.timeout)
		defer t.Stop()
		expired = t.C
	}
	e, err := p.await(token, expired, ctx.Done())
	if errors.Is(err, errAbort) {
		e, err = p.abort(cookie, token), nil
		e.aborted = true
	}
	p.finish(e, cookie, out, errf)
	p.spare.discard(out, errf)
	if !e.exited {
		p.trim()
	}
	return e, err
}

// send appends text to the script and wakes the shell to read it.
func (p *shellProc) send(text string) error {
	p.read = p.written // the shell read all before: it waits at the end
	n, err := p.script.WriteString(text)
	p.written += int64(n)
	if err != nil {
		return err
	}
	_, err = p.wake.Write([]byte{'\n'})
	return err
}

// scriptKeep is how much of the script the shell has read that stays on
// disk: past it, what was read is given back (punched out of the file,
// whose size and the shell's offset stay), so a long session's script does
// not grow without end.
const scriptKeep = 1 << 20

// trim gives back the part of the script the shell has read, once it is
// scriptKeep or more.
func (p *shellProc) trim() {
	if p.read-p.punched < scriptKeep {
		return
	}
	end := p.read &^ 4095
	if punchHole(p.script, end) == nil {
		p.punched = end
	}
}

// errAbort is await's report that the timeout passed or ctx ended.
var errAbort = errors.New("abort")

// await waits for the status line carrying token or the shell's end; it
// returns errAbort when expired or cancel comes first.
func (p *shellProc) await(token string, expired <-chan time.Time, cancel <-chan struct{}) (ending, error) {
	for {
		select {
		case line := <-p.lines:
			if e, ok := statusOf(line, token); ok {
				return e, nil
			}
			p.log.logf("shell session: status line without this command's token: %q", line)
		case <-p.g.Exited():
			return p.exited(), nil
		case <-expired:
			return ending{}, errAbort
		case <-cancel:
			return ending{}, errAbort
		}
	}
}

// isStatus reports whether line has the shape of a status line: a token
// (newToken), a space and a number.
func isStatus(line string) bool {
	tok, rc, ok := strings.Cut(line, " ")
	_, err := strconv.Atoi(rc)
	return ok && err == nil && len(tok) == 32 && strings.Trim(tok, "0123456789abcdef") == ""
}

// statusOf parses "token rc".
func statusOf(line, token string) (ending, bool) {
	tok, rc, ok := strings.Cut(line, " ")
	if !ok || tok != token {
		return ending{}, false
	}
	n, err := strconv.Atoi(rc)
	if err != nil {
		return ending{}, false
	}
	return ending{rc: n}, true
}

// exited is the ending of a command whose shell is gone: the rest of the
// session's tree is killed and the shell reaped.
func (p *shellProc) exited() ending {
	p.g.Kill()
	st, _ := p.g.Wait()
	why := "the shell exited with code " + strconv.Itoa(st.ExitCode)
	if st.Signal != "" {
		why = "the shell was killed by " + st.Signal
	}
	return ending{exited: true, st: st, rc: st.ExitCode, why: why}
}

// abort has the shell abandon the running command and kills the command's
// tree; a shell that does not come back in time is ended.
func (p *shellProc) abort(cookie, token string) ending {
	_ = unix.Kill(p.g.Pid(), unix.SIGUSR2)
	procgroup.KillCookie(cookie)
	grace := time.NewTimer(limits.ShellSessionAbortGrace)
	defer grace.Stop()
	e, err := p.await(token, grace.C, nil)
	if err == nil {
		if e.exited {
			e.why = "the command was inside a function or a sourced file when it was stopped, so its shell was ended"
		}
		return e
	}
	e = p.exited()
	e.why = fmt.Sprintf("the shell did not abandon the command within %s of its tree being killed, so it was ended", limits.ShellSessionAbortGrace)
	return e
}

// finish ends the command's share of its fifos.
func (p *shellProc) finish(e ending, cookie string, fifos ...*outFifo) {
	held := p.lingers[:0]
	for _, f := range p.lingers {
		select {
		case <-f.done: // its writers are gone
		default:
			held = append(held, f)
		}
	}
	p.lingers = held
	left := false
	for _, f := range fifos {
		if e.exited {
			waitEOF(f)
		}
		if f.detach() {
			left = true
			p.lingers = append(p.lingers, f)
		}
	}
	if left {
		p.cookies = append(p.cookies, cookie)
	}
}

// waitEOF gives a fifo of a command whose shell is gone (its whole tree
// killed) a moment to be drained to end of file.
func waitEOF(f *outFifo) {
	t := time.NewTimer(limits.ShellSessionAbortGrace)
	defer t.Stop()
	_ = f.hold.Close()
	select {
	case <-f.done:
	case <-t.C:
	}
}

// end kills the shell and every job of the session and removes its
// plumbing. It may be called once the shell has exited.
func (p *shellProc) end() { p.endOnce.Do(p.endNow) }

func (p *shellProc) endNow() {
	if p.g != nil {
		p.g.Kill()
		_, _ = p.g.Wait()
	}
	for _, c := range p.cookies {
		procgroup.KillCookie(c)
	}
	p.close()
}

// close closes the server's ends and removes the private directory.
func (p *shellProc) close() {
	p.spare.close()
	for _, f := range p.lingers {
		_ = f.r.Close()
	}
	for _, f := range []*os.File{p.script, p.wake, p.st, p.stHold} {
		if f != nil {
			_ = f.Close()
		}
	}
	_ = os.RemoveAll(p.dir)
}

// newToken returns a fresh random token.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
