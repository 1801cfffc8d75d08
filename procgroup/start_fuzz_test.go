//go:build linux

package procgroup

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzStart runs arbitrary command lines (kept to a few harmless shell
// words and detaching tricks) and checks that Start either refuses with the
// real cause — a NUL byte is EINVAL, never a masked "exec: already started"
// from the cgroup fallback — or the command runs, Wait returns, and no
// process carrying its cookie survives.
func FuzzStart(f *testing.F) {
	f.Add("echo a", false)
	f.Add("a\x00b", false)
	f.Add("a\x00b", true)
	f.Add("exit 3", false)
	f.Add("setsid sleep 30 &", false)
	f.Add("(sleep 30 &) ; echo x >&2", true)
	f.Add("echo a; exit 3; echo b", false)
	f.Fuzz(func(t *testing.T, command string, noCgroup bool) {
		if len(command) > 64 {
			return
		}
		// Only shell syntax and a few harmless commands: the fuzzer must not
		// run arbitrary programs (rm, dd, …) nor kill by pid ("kill 30")
		// on a shared machine.
		for _, w := range strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()<>$`'\"\\", r) }) {
			switch strings.TrimRight(w, "\x00") {
			case "echo", "exit", "sleep", "setsid", "true", "false", "wait", "3", "30", "a", "b", "x", "2", "1", "0":
			default:
				if strings.IndexByte(w, 0) < 0 {
					return
				}
			}
		}
		g, err := Start(Spec{Command: command, Dir: t.TempDir(), noCgroup: noCgroup})
		if strings.IndexByte(command, 0) >= 0 {
			require.Error(t, err)
			require.True(t, errors.Is(err, syscall.EINVAL), "start %q: %v", command, err)
			return
		}
		require.NoError(t, err)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = g.Wait()
		}()
		if strings.Contains(command, "sleep") {
			g.Kill()
		}
		<-done
		require.Empty(t, cookieHolders(g.Cookie()), "processes of %q outlived Wait", command)
	})
}
