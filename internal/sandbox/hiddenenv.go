package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// hiddenEnv are the variables that lead a command to a host daemon's
// socket: an SSH agent signs with keys whose files are denied, a tmux server
// runs what it is sent outside the sandbox.
var hiddenEnv = []string{"SSH_AUTH_SOCK", "TMUX", "TMUX_PANE"}

// HiddenEnv returns the variables a sandboxed command does not get (SPEC
// §14): SSH_AUTH_SOCK, and TMUX with TMUX_PANE, unless the host allowed the
// socket they name by adding it, or the directory that holds it, to
// sandbox.writable; then the socket is not masked either. It is nil when the
// policy is off.
func (r *Resolved) HiddenEnv() []string {
	if !r.Enforced() {
		return nil
	}
	var out []string
	for _, name := range hiddenEnv {
		sock := os.Getenv(name)
		if name != "SSH_AUTH_SOCK" {
			sock = os.Getenv("TMUX")
			sock, _, _ = strings.Cut(sock, ",")
		}
		if sock == "" || !r.allowsSocket(sock) {
			out = append(out, name)
		}
	}
	return out
}

// allowsSocket reports that the host named the socket, or its directory or
// something below it, in sandbox.writable (so a writable /tmp does not allow
// /tmp/ssh-X/agent.1: /tmp/ssh-X does).
func (r *Resolved) allowsSocket(sock string) bool {
	dir := filepath.Dir(canonical(sock))
	for _, w := range r.Writable {
		if w == dir || strings.HasPrefix(w, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
