package shellsession

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// shellOf returns the shell of m's session name.
func shellOf(t *testing.T, m *Manager, name string) *shellProc {
	t.Helper()
	m.mu.Lock()
	s := m.sessions[name]
	m.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sh == nil {
		t.Fatalf("session %s has no shell", name)
	}
	return s.sh
}

// TestScriptIsAFileWithoutName checks the transport of the driver: the
// shell reads its script (fd 255) from a regular file, which bash reads a
// buffer at a time (a pipe or fifo it reads one byte per read), and the
// file has no name once the shell has it open.
func TestScriptIsAFileWithoutName(t *testing.T) {
	m := NewManager(t.Logf)
	defer m.Close()
	runIn(t, m, "s", t.TempDir(), "true")
	fd := "/proc/" + strconv.Itoa(shellOf(t, m, "s").g.Pid()) + "/fd/255"
	fi, err := os.Stat(fd)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() {
		t.Fatalf("the shell's script is a %v, want a regular file", fi.Mode().Type())
	}
	if name, _ := os.Readlink(fd); !strings.HasSuffix(name, " (deleted)") {
		t.Fatalf("the shell's script is %s, want it without a name", name)
	}
}

// TestCommandSeesOnlyItsFds checks SPEC §6.7: a command's processes get
// their stdin, stdout and stderr and none of the session's plumbing (the
// script, status and wake fds, or anything else in the shell's private
// directory); fds the server itself inherited are not the session's.
func TestCommandSeesOnlyItsFds(t *testing.T) {
	m := NewManager(t.Logf)
	defer m.Close()
	dir := t.TempDir()
	for range 2 { // the shell's first command and a later one
		out, errs, code := runIn(t, m, "fd", dir, "ls -l /proc/self/fd")
		if code != 0 {
			t.Fatalf("ls: %q", errs)
		}
		priv := shellOf(t, m, "fd").dir
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] { // after "total 0"
			f := strings.Fields(line)
			fd, target := f[len(f)-3], f[len(f)-1]
			if fd == "0" || fd == "1" || fd == "2" {
				continue
			}
			if fd == "255" || strings.HasPrefix(target, priv) {
				t.Fatalf("a command holds fd %s -> %s of the session's plumbing:\n%s", fd, target, out)
			}
		}
	}
}

// TestFifosLingerOnlyForJobs checks that a command's fifos are kept after
// its status (and its cookie swept when the session ends) only when a job
// it left still holds one: commands without jobs leave nothing behind.
func TestFifosLingerOnlyForJobs(t *testing.T) {
	m := NewManager(t.Logf)
	defer m.Close()
	dir := t.TempDir()
	for i := range 20 {
		runIn(t, m, "l", dir, fmt.Sprintf("echo %d; echo e >&2", i))
	}
	sh := shellOf(t, m, "l")
	if len(sh.lingers) != 0 || len(sh.cookies) != 0 {
		t.Fatalf("after 20 commands without jobs: %d lingering fifos, %d cookies; want none", len(sh.lingers), len(sh.cookies))
	}
	runIn(t, m, "l", dir, "sleep 60 &")
	if len(sh.lingers) != 2 || len(sh.cookies) != 1 {
		t.Fatalf("after a job: %d lingering fifos, %d cookies; want 2 and 1", len(sh.lingers), len(sh.cookies))
	}
}

// TestCommandLongerThanScriptBuffer checks that a command longer than the
// buffer bash reads its script with arrives whole, and the next one too.
func TestCommandLongerThanScriptBuffer(t *testing.T) {
	m := NewManager(t.Logf)
	defer m.Close()
	dir := t.TempDir()
	long := strings.Repeat("a", 3*scriptPad+17)
	if out, _, _ := runIn(t, m, "b", dir, "x="+long+"\necho ${#x}"); out != strconv.Itoa(len(long))+"\n" {
		t.Fatalf("long command: got %q", out)
	}
	if out, _, _ := runIn(t, m, "b", dir, "echo next"); out != "next\n" {
		t.Fatalf("after the long command: got %q", out)
	}
}

// TestScriptGivesBackWhatWasRead checks that a session's script does not
// keep on disk what its shell has read once that passes scriptKeep: after
// a command twice that long, the file holds less than scriptKeep.
func TestScriptGivesBackWhatWasRead(t *testing.T) {
	m := NewManager(t.Logf)
	defer m.Close()
	dir := t.TempDir()
	long := strings.Repeat("a", 2*scriptKeep)
	runIn(t, m, "g", dir, ": "+long)
	if out, _, _ := runIn(t, m, "g", dir, "echo kept"); out != "kept\n" {
		t.Fatalf("after the long command: got %q", out)
	}
	var st unix.Stat_t
	if err := unix.Stat("/proc/"+strconv.Itoa(shellOf(t, m, "g").g.Pid())+"/fd/255", &st); err != nil {
		t.Fatal(err)
	}
	if st.Size < 2*scriptKeep || st.Blocks*512 >= scriptKeep {
		t.Fatalf("script: size %d, %d bytes on disk; want at least %d and less than %d", st.Size, st.Blocks*512, 2*scriptKeep, scriptKeep)
	}
}
