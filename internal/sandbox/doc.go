// Package sandbox confines every command toolrpc runs, and tells the file
// tools what to refuse, to what the host allowed (SPEC §14): a command run
// under a Resolved policy in workspace-write or read-only mode cannot write
// outside its writable set, change a protected path, read the deny list, open
// a non-Unix socket with network off, signal or trace a process outside its
// sandbox, mount, or hold a capability — and each of these is either enforced
// by the kernel or named in the policy's Gaps.
//
// # Policy
//
// Resolve turns the host's wire.SandboxPolicy into a Resolved policy of
// absolute paths: the effective mode (auto becomes workspace-write where
// Landlock is available, else off with the reason), the writable set, the
// protected paths inside writable roots (.git, .git/hooks, .git/config, a
// worktree's resolved gitdir, protect) and the deny list (limits.SandboxDenyRead
// plus denyRead; ~/.ssh/id_* is matched by name, never by walking). It never
// walks the workspace. CheckRead and CheckWrite are the predicates the file
// tools use; they fail with a *Denial whose text is §14's notice.
//
// # Enforcement on Linux
//
// Resolved.Fork forks each command (as root, or with Landlock alone) from a
// server thread confined once per policy by package confine (Policy.Thread):
// the same steps as the wrapper's below, which a fork inherits from the
// thread that forks it and no other thread of the server has. The thread is
// rebuilt when what it was built from changed (protected and writable paths,
// a root's .git, the directories on the way to a denied path, the mount
// table), and retired by Close once its commands are reaped.
//
// Resolved.Wrap starts the shells of a server that is not root (a mount
// namespace through a user namespace needs a process of its own): it starts the shell so that this binary, re-executed with a
// hidden first argument (dispatched by package confine's init), in a mount
// namespace of its own where root or user namespaces allow it makes every
// mount read-only but the writable set and binds the protected paths
// read-only (never in the server's namespace), gives it a minimal /dev (a
// devpts of its own), masks the host's daemon sockets and hides the denied
// paths under empty read-only mounts, sets no_new_privs, applies Landlock
// (files, TCP and signal/abstract-socket scoping, as the kernel's ABI has
// them), installs the seccomp filter (TIOCSTI, the keyring, set-id modes,
// io_uring; socket() too for network off), drops every capability, and then
// execs the shell in its place (same pid, so procgroup's cgroups, cookies and
// kills are unchanged). Landlock only grants: a denied file inside a readable
// directory is closed by granting read on each of its siblings along the
// path, read from the directory once per call (never the tree); with a mount
// namespace the writable directories around a denied path are granted whole,
// as the mounts hide it, so files made there later are writable. A command
// on a pty is always started by the wrapper: the confined thread's /dev/pts
// is an instance of its own, where the server's pty is not.
package sandbox
