package conformance

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sshd is OpenSSH's server, started by a test on a loopback port with a host
// key, a user key and a config that live in a temp dir. Nothing on the
// machine's own ssh setup is read or changed (sshd -f, ssh -F /dev/null).
type sshd struct {
	Port    int
	Dir     string // host key, user key, authorized_keys, config, log
	User    string
	KeyFile string // the user's private key

	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd.Wait returned (its only caller)
	log    *lockedBuffer
	extra  []string
}

// sshdPath is where Debian's openssh-server installs the daemon; .ci/run
// installs it when missing.
const sshdPath = "/usr/sbin/sshd"

// startSSHD starts sshd for the test and stops it in the test's cleanup.
// sshd refuses to start without its privilege-separation directory, which a
// booted system creates through tmpfiles.d; a container may lack it, so it is
// created (empty, 0755) when missing, exactly as the package would.
// extraConfig lines are appended to the config.
func startSSHD(t testing.TB, extraConfig ...string) *sshd {
	t.Helper()
	for _, tool := range []string{sshdPath, "ssh", "ssh-keygen"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "%s is missing: apt-get install openssh-server openssh-client (.ci/run does)", tool)
	}
	u, err := user.Current()
	require.NoError(t, err)
	if os.Geteuid() == 0 {
		require.NoError(t, os.MkdirAll("/run/sshd", 0o755))
	}
	// Keys and config live in a private dir: sshd's StrictModes is off, but
	// ssh itself refuses a private key others can read.
	dir, err := os.MkdirTemp("", "toolrpc-sshd-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	d := &sshd{Dir: dir, User: u.Username, KeyFile: filepath.Join(dir, "user_ed25519"), log: &lockedBuffer{}, extra: extraConfig}
	for _, k := range []string{"host_ed25519", "user_ed25519"} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", k, "-f", filepath.Join(dir, k)).CombinedOutput()
		require.NoError(t, err, "ssh-keygen: %s", out)
	}
	pub, err := os.ReadFile(d.KeyFile + ".pub")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600))
	// A port chosen by the kernel can be taken again before sshd binds it;
	// a few attempts make that race harmless.
	for attempt := 0; attempt < 5; attempt++ {
		if d.tryStart(t) {
			t.Cleanup(func() {
				d.stop()
				if t.Failed() {
					t.Logf("sshd log (tail):\n%s", tail(d.log.String(), 4000))
				}
			})
			return d
		}
	}
	t.Fatalf("sshd did not start:\n%s", d.log.String())
	return nil
}

// tryStart starts sshd on a free loopback port and waits for it to listen.
func (d *sshd) tryStart(t testing.TB) bool {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	d.Port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	config := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
StrictModes no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PrintMotd no
MaxStartups 256
MaxSessions 256
LogLevel VERBOSE
%s
`, d.Port, filepath.Join(d.Dir, "host_ed25519"), filepath.Join(d.Dir, "sshd.pid"), filepath.Join(d.Dir, "authorized_keys"), strings.Join(d.extra, "\n"))
	cfg := filepath.Join(d.Dir, "sshd_config")
	require.NoError(t, os.WriteFile(cfg, []byte(config), 0o600))
	// -D: stay in the foreground, so the test owns the process; -e: log to
	// stderr instead of syslog.
	d.log = &lockedBuffer{}
	d.cmd = exec.Command(sshdPath, "-f", cfg, "-D", "-e")
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	// A test binary killed by its -timeout runs no cleanup: sshd goes with it.
	d.cmd.SysProcAttr = killedWithParent()
	// Session processes inherit the log pipe; Wait must not wait for them.
	d.cmd.WaitDelay = 5 * time.Second
	require.NoError(t, d.cmd.Start())
	exited := make(chan struct{})
	d.exited = exited
	go func() { _ = d.cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(d.Port)); err == nil {
			banner, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(banner, "SSH-2.0-") {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = d.cmd.Process.Kill()
	<-exited
	return false
}

// stop ends the listener. Session processes of connections still open end
// with their connections (the tests close them first).
func (d *sshd) stop() {
	_ = d.cmd.Process.Kill()
	<-d.exited
}

// sshArgs is the client command line that reaches this sshd on port (0:
// its own): -T (no pty, so frames pass byte for byte; -tt in extra
// overrides it), -F /dev/null (ignore the user's config), no known_hosts, no
// prompts, no escape character.
func (d *sshd) sshArgs(port int, extra ...string) []string {
	if port == 0 {
		port = d.Port
	}
	args := []string{"ssh", "-F", "/dev/null", "-p", strconv.Itoa(port), "-i", d.KeyFile,
		"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "LogLevel=ERROR", "-e", "none"}
	if !slices.Contains(extra, "-tt") {
		args = append(args, "-T")
	}
	args = append(args, extra...)
	return append(args, d.User+"@127.0.0.1")
}

// remotePIDLine is what the wrapper's remote shell writes to stderr just
// before it execs the server, so a test can find the remote server's pid.
const remotePIDLine = "toolrpc-remote-pid "

// wrapper says how writeWrapper's script reaches the server.
type wrapper struct {
	name string   // its directory in the sshd's dir (the file is named toolrpc)
	port int      // 0: the sshd's own port (else a proxy in front of it)
	noCd bool     // stay in the remote login directory instead of the local cwd
	ssh  []string // extra ssh arguments, e.g. -tt
}

// writeWrapper writes a script that runs server through this sshd the way
// a host would (`ssh -T host 'cd DIR && exec toolrpc ARGS'`) and returns its
// path. The remote side starts in the wrapper's working directory (the
// workspace root the harness chose) unless w.noCd, gets the caller's
// TOOLRPC_* variables and those forwardEnv names (ssh forwards no
// environment by default), and, when reportPIDEnv is 1, reports its pid on
// stderr before exec, so the pid is the server's. Arguments are
// single-quoted for the remote login shell.
func (d *sshd) writeWrapper(t testing.TB, server string, w wrapper) string {
	t.Helper()
	var ssh strings.Builder
	for _, a := range d.sshArgs(w.port, w.ssh...) {
		ssh.WriteString(shellQuote(a) + " ")
	}
	cd := `cd $(q "$PWD") && `
	if w.noCd {
		cd = ""
	}
	script := `#!/bin/bash
# toolrpc through ssh (written by the conformance suite's sshd_test.go).
set -e
q() { local s=${1//\'/\'\\\'\'}; printf "'%s'" "$s"; }
remote="` + cd + `exec env"
if [[ ${TOOLRPC_CONFORMANCE_PID-} == 1 ]]; then remote="echo ` + remotePIDLine + `\$\$ >&2 && $remote"; fi
fwd=" ${TOOLRPC_CONFORMANCE_ENV-} "
while IFS= read -r -d '' kv; do
  case $kv in
    TOOLRPC_*) remote+=" $(q "$kv")" ;;
    *) if [[ $fwd == *" ${kv%%=*} "* ]]; then remote+=" $(q "$kv")"; fi ;;
  esac
done < <(env -0)
remote+=" ` + shellQuote(server) + `"
for a in "$@"; do remote+=" $(q "$a")"; done
exec ` + ssh.String() + `"$remote"
`
	if w.name == "" {
		w.name = "over-ssh"
	}
	// Named toolrpc, in a dir of its own: hosts that look the binary up by
	// name on PATH (the TypeScript client's findBinary) find the wrapper.
	dir := filepath.Join(d.Dir, w.name)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	path := filepath.Join(dir, "toolrpc")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
