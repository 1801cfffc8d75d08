package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func init() {
	setCtty = func(cmd *exec.Cmd, tty *os.File) {
		cmd.ExtraFiles = []*os.File{tty}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
	}
}

// TestEscape_TIOCSTI checks SPEC §14 (issue 46 row 7): a server started from
// a terminal (a pty as its controlling terminal, as a host run by hand has)
// runs commands that cannot push input into that terminal with TIOCSTI: the
// host's shell would run it once the server exits. Each command leads a
// session of its own (no controlling terminal without a pty of its own), and
// the sandbox refuses TIOCSTI besides. Not a txtar: the runner's server has
// no terminal.
func TestEscape_TIOCSTI(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		ptmx, tty, err := pty.Open()
		require.NoError(t, err)
		defer ptmx.Close()
		defer tty.Close()
		b := newSandboxBox(t, asRoot, nil, withCtty(tty))
		mark := fmt.Sprintf("toolrpc-tiocsti-%d", os.Getpid())
		attack := `perl -e 'open(my $t, "+<", "/dev/tty") or die "open /dev/tty: $!\n"; for my $c (split //, "echo ` + mark + `\n") { ioctl($t, 0x5412, $c) or die "TIOCSTI: $!\n" } print "pushed\n"'`
		r := b.bash(t, attack)
		// What was pushed is the terminal's input: the host's shell would
		// read it from the slave side.
		fds := []unix.PollFd{{Fd: int32(tty.Fd()), Events: unix.POLLIN}}
		n, _ := unix.Poll(fds, 300)
		var got string
		if n > 0 {
			buf := make([]byte, 4096)
			k, _ := unix.Read(int(tty.Fd()), buf)
			got = string(buf[:max(k, 0)])
		}
		require.False(t, strings.Contains(got, mark), "the command pushed %q into the server's terminal (stdout %q, stderr %q)", got, r.Stdout, r.Stderr)
		require.NotContains(t, r.Stdout, "pushed")
	})
}

// TestEscape_TIOCSTIOwnPty checks SPEC §14 (row 7, belt and braces): a
// command on a pty of its own cannot push input into it with TIOCSTI either
// (the sandbox's seccomp filter), and the refusal is named as that call,
// not as a network denial.
func TestEscape_TIOCSTIOwnPty(t *testing.T) {
	forEachUser(t, func(t *testing.T, asRoot bool) {
		b := newSandboxBox(t, asRoot, map[string]any{"mode": "workspace-write", "network": "off"})
		attack := `perl -e 'open(my $t, "+<", "/dev/tty") or die "open /dev/tty: $!\n"; my $c = "x"; ioctl($t, 0x5412, $c) or die "TIOCSTI: $!\n"; print "pushed\n"'`
		raw := b.s.call(t, "tools/process/start", map[string]any{"command": attack, "mode": "pty",
			"wait": map[string]any{"until": []string{"exit"}}})
		var reply struct {
			procReply
			Sandbox *sandboxReport `json:"sandbox"`
		}
		require.NoError(t, json.Unmarshal(raw, &reply))
		require.Equal(t, "exited", reply.State, reply.Output)
		require.NotContains(t, reply.Output, "pushed")
		require.Contains(t, reply.Output, "TIOCSTI: Operation not permitted")
		require.NotNil(t, reply.Sandbox, "the refusal is named")
		require.Contains(t, reply.Sandbox.Notice, "syscall ioctl TIOCSTI")
	})
}
