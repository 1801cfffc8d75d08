package attack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Box is the places one attack runs in, under one base directory: a home
// with credentials, a workspace that is a git repository, and a directory
// outside every writable set.
type Box struct {
	Base, Home, WS, Outside string
}

// HomeFiles are the files every box's home holds, by path under the home.
var HomeFiles = map[string]string{
	".ssh/id_ed25519":     "PRIVATE KEY\n",
	".ssh/id_ed25519.pub": "ssh-ed25519 AAAA\n",
	".ssh/known_hosts":    "host key\n",
	".aws/credentials":    "aws secret\n",
	".bashrc":             "# rc\n",
	".gitconfig":          "[user]\n\tname = Sandbox\n\temail = s@example.com\n[safe]\n\tdirectory = *\n",
}

// NewBox makes a box under base (which must exist).
func NewBox(base string) (*Box, error) {
	b := &Box{Base: base, Home: filepath.Join(base, "home"), WS: filepath.Join(base, "ws"), Outside: filepath.Join(base, "outside")}
	for _, d := range []string{b.Home + "/.ssh", b.Home + "/.aws", b.WS, b.Outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	files := map[string]string{b.Outside + "/f": "outside\n", b.WS + "/README": "readme\n"}
	for p, c := range HomeFiles {
		files[filepath.Join(b.Home, p)] = c
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(b.Home+"/.ssh/id_ed25519", 0o600); err != nil {
		return nil, err
	}
	git := exec.Command("git", "init", "-q", b.WS)
	git.Env = append(os.Environ(), "HOME="+b.Home)
	if out, err := git.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git init: %v: %s", err, out)
	}
	return b, nil
}

// Env is the variables every script of an attack sees.
func (b *Box) Env(mark string) []string {
	return []string{"WS=" + b.WS, "HOME=" + b.Home, "OUTSIDE=" + b.Outside, "MARK=" + mark}
}

// Host runs script outside any sandbox with cwd = the workspace and the
// attack's variables, as uid (setpriv) when uid is not this process's own.
func (b *Box) Host(script, mark string, uid int) (string, error) {
	args := []string{"bash", "-c", script}
	if uid != os.Geteuid() {
		args = append([]string{"setpriv", fmt.Sprintf("--reuid=%d", uid), fmt.Sprintf("--regid=%d", uid), "--clear-groups"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = b.WS
	cmd.Env = append(os.Environ(), b.Env(mark)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
