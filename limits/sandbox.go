package limits

// The sandbox's default lists (SPEC §14). Paths starting with "~/" are under
// the user's home directory; "$NAME" is that environment variable's value
// (skipped when unset). Descriptions and docs are generated from them.

// SandboxCaches returns the toolchain caches a workspace-write command may
// write, so that builds keep working. Caches of downloads only: ~/.rustup,
// whose toolchains the host's next cargo runs, is not one (a toolchain is
// installed by the host, or with sandbox.writable).
func SandboxCaches() []string {
	return []string{"~/.cache", "~/.npm", "~/.cargo/registry", "~/.cargo/git",
		"~/go/pkg/mod", "$GOCACHE", "$GOMODCACHE", "~/.m2", "~/.gradle", "~/.local/share/pnpm",
		"$PIP_CACHE_DIR", "$YARN_CACHE_FOLDER", "~/.yarn/berry/cache"}
}

// SandboxProtected returns the paths, relative to each writable root, that
// stay read-only inside it: they cannot be created, replaced, renamed or
// deleted.
func SandboxProtected() []string {
	return []string{".git", ".git/hooks", ".git/config"}
}

// SandboxDenyRead returns the paths no command and no file tool may read or
// write. A last element "id_*" matches the private keys of that directory,
// never a "*.pub".
func SandboxDenyRead() []string {
	return []string{"~/.ssh/id_*", "~/.gnupg", "~/.aws", "~/.config/gcloud", "~/.azure",
		"~/.kube", "~/.docker/config.json", "~/.netrc", "~/.git-credentials",
		"~/.config/gh/hosts.yml"}
}

// SandboxDevWritable returns the device files every sandboxed command may
// write (besides its own pty): /dev/ptmx and /dev/pts so that it can open a
// pty of its own (tmux, script, expect), /dev/shm as a second /tmp.
func SandboxDevWritable() []string {
	return []string{"/dev/null", "/dev/tty", "/dev/zero", "/dev/full", "/dev/ptmx", "/dev/pts", "/dev/shm"}
}

// SandboxMaxDenials bounds the sandbox.denied entries of one result.
const SandboxMaxDenials = 16

// SandboxGitDirs is the most git directories (a root's and its submodules')
// the sandbox protects per root; submodules beyond it are not protected,
// and initialize's gaps say so when a root has more.
const SandboxGitDirs = 128

// SandboxGitDirProtected returns the entries of a git directory that hold
// or point at code the host's next git runs (hooks, config, a redirection
// to another git directory): read-only inside the sandbox, and made (empty)
// where they do not exist yet so that a command cannot make them.
func SandboxGitDirProtected() []string {
	return []string{"config", "hooks", "commondir", "config.worktree"}
}
