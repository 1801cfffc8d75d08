package conformance

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Containers (issue 25, SPEC §12 "Remote"): the server runs inside a podman
// container and the host reaches it through `podman exec -i`, as hosts
// reach docker and Kubernetes containers (`docker exec -i`, `kubectl exec
// -i`). The container is in its own PID namespace; this machine's /proc
// still shows its processes (under other pids), so a test can watch the
// server and its call trees from outside.

// The images .ci/container-images builds.
const (
	bookwormImage = "localhost/bookworm-min" // debootstrap minbase: bash, coreutils, util-linux
	busyboxImage  = "localhost/busybox-min"  // busybox only: /bin/sh, no bash, no libc
	// toolsImage is bookwormImage with the programs the SPEC §13 tests
	// drive: python3, node, ssh-keygen, less, vim, nvim, git, top.
	toolsImage = "localhost/bookworm-tools"
)

// podmanGlobal are the flags every podman command gets: crun refuses this
// machine's hybrid cgroups; runc with cgroupfs works (and works in CI).
var podmanGlobal = []string{"--runtime", "runc", "--cgroup-manager=cgroupfs"}

// containerBin is where the server binary is mounted (read-only) in a
// container; it is on the images' PATH.
const containerBin = "/usr/local/bin/toolrpc"

// pidnsEnv names, in a re-run suite's environment, the PID namespace
// (readlink /proc/PID/ns/pid) of the container its servers run in, so a
// pid the wrapper reports from inside can be mapped to this machine's.
const pidnsEnv = "TOOLRPC_CONFORMANCE_PIDNS"

// podman runs podman with podmanGlobal and returns its trimmed output.
func podman(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("podman", append(append([]string{}, podmanGlobal...), args...)...).CombinedOutput()
	require.NoError(t, err, "podman %s:\n%s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

var imagesBuilt struct {
	once sync.Once
	err  error
}

// needPodman fails the test when podman or runc is missing (.ci/run
// installs them, as it installs sshd) and builds the images with
// .ci/container-images when podman lacks them (on a machine set up by hand,
// the first run does what .ci/run does).
func needPodman(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"podman", "runc"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "%s is missing: apt-get install podman runc debootstrap busybox-static (.ci/run does)", tool)
	}
	imagesBuilt.once.Do(func() {
		removeStaleContainers()
		out, err := exec.Command(filepath.Join("..", ".ci", "container-images")).CombinedOutput()
		if err != nil {
			imagesBuilt.err = fmt.Errorf(".ci/container-images: %v\n%s", err, out)
		}
	})
	require.NoError(t, imagesBuilt.err)
}

// removeStaleContainers removes the containers of test processes that are
// gone (killed by -timeout, say, before their cleanup ran); each container's
// name carries the pid of the test process that started it.
func removeStaleContainers() {
	out, _ := exec.Command("podman", append(append([]string{}, podmanGlobal...), "ps", "-a", "--format", "{{.Names}}")...).Output()
	for _, name := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(name, containerPrefix)
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err == nil && !alive(pid) {
			_ = exec.Command("podman", append(append([]string{}, podmanGlobal...), "rm", "-f", "-t", "0", name)...).Run()
		}
	}
}

// containerPrefix starts the name of every container a test starts:
// toolrpc-conformance-<test pid>-<n>.
const containerPrefix = "toolrpc-conformance-"

var staticBuild struct {
	once sync.Once
	path string
	err  error
}

// staticServer returns the server binary for containers: the release
// build (CGO_ENABLED=0 go build -trimpath), which runs on any libc or none,
// as the busybox image has none. Not race-built: the race runtime needs
// cgo and glibc, and the race-built suite already ran every test here;
// in a container the transport and the image are under test, with the
// binary a host author would copy in. A binary given with -bin or
// $TOOLRPC_BIN is used as it is.
func staticServer(t testing.TB) string {
	t.Helper()
	if *binFlag != "" || os.Getenv("TOOLRPC_BIN") != "" {
		return bin
	}
	staticBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "toolrpc-static-")
		if err != nil {
			staticBuild.err = err
			return
		}
		staticBuild.path = filepath.Join(dir, "toolrpc")
		cmd := exec.Command("go", "build", "-trimpath", "-o", staticBuild.path, "github.com/toolrpc/toolrpc/cmd/toolrpc")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			staticBuild.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, staticBuild.err)
	return staticBuild.path
}

// container is a running podman container with the server mounted at
// containerBin and a workspace dir mounted at the same path inside.
type container struct {
	Name  string
	WS    string // the workspace dir, the same path inside and out
	PIDNS string // its PID namespace, as /proc/PID/ns/pid reads
	dir   string // the wrappers
}

var containerSeq atomic.Int64

// startContainer starts `podman run -d … image sleep infinity` with ws
// mounted (a fresh temp dir when ""), and removes the container in the
// test's cleanup. extra are more `podman run` flags (--read-only, --tmpfs).
func startContainer(t testing.TB, image, ws string, extra ...string) *container {
	t.Helper()
	needPodman(t)
	server := staticServer(t)
	if ws == "" {
		ws = containerTempDir(t)
	}
	c := &container{Name: fmt.Sprintf("%s%d-%d", containerPrefix, os.Getpid(), containerSeq.Add(1)), WS: ws, dir: containerTempDir(t)}
	args := []string{"run", "-d", "--name", c.Name,
		// podman's default rlimits exceed what this sandbox allows.
		"--ulimit", "nofile=20000:20000", "--ulimit", "nproc=4000:4000",
		"-v", server + ":" + containerBin + ":ro", "-v", ws + ":" + ws}
	args = append(append(args, extra...), image, "sleep", "infinity")
	podman(t, args...)
	t.Cleanup(func() {
		_ = exec.Command("podman", append(append([]string{}, podmanGlobal...), "rm", "-f", "-t", "0", c.Name)...).Run()
	})
	c.PIDNS = c.pidns(t)
	return c
}

// pidns reads the container's PID namespace through its first process.
func (c *container) pidns(t testing.TB) string {
	pid := podman(t, "inspect", "-f", "{{.State.Pid}}", c.Name)
	ns, err := os.Readlink("/proc/" + pid + "/ns/pid")
	require.NoError(t, err)
	return ns
}

// containerTempDir is a temp dir that survives until the test's cleanup;
// t.TempDir would do, but a re-run suite's TMPDIR is itself a mounted dir.
func containerTempDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "toolrpc-podman-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// outsideTmpEnv names a dir outside /tmp and $TMPDIR that the server sees at
// the same path (the TypeScript client's sandbox test makes its read-only
// workspace there; unset, it uses /var/tmp).
const outsideTmpEnv = "TOOLRPC_CONFORMANCE_OUTSIDE_TMP"

// outsideTmpDir is a fresh dir under /var/tmp, removed at the test's end.
func outsideTmpDir(t testing.TB) string {
	dir, err := os.MkdirTemp("/var/tmp", "toolrpc-podman-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// podmanWrapper says how a wrapper reaches the server.
type podmanWrapper struct {
	name string   // its directory (the file is named toolrpc)
	exec []string // extra `podman exec` flags, e.g. -t
}

// writeWrapper writes a script that runs the server in the container the
// way a host would (`podman exec -i -w DIR ctr toolrpc ARGS`) and returns
// its path. The server starts in the wrapper's working directory when that
// is in the mounted workspace, gets the caller's TOOLRPC_* variables and those
// forwardEnv names as -e flags (podman exec passes no environment), and,
// when reportPIDEnv is 1, reports its pid in the container on stderr before
// exec (pidnsEnv maps it to this machine's).
func (c *container) writeWrapper(t testing.TB, w podmanWrapper) string {
	t.Helper()
	var global strings.Builder
	for _, a := range append(append([]string{"podman"}, podmanGlobal...), "exec", "-i") {
		global.WriteString(shellQuote(a) + " ")
	}
	for _, a := range w.exec {
		global.WriteString(shellQuote(a) + " ")
	}
	script := `#!/bin/bash
# toolrpc in a podman container (written by the conformance suite's podman_test.go).
set -e
flags=()
# The server starts in the host's working directory when the container has it
# (the mounted workspace); else in the container's own (a host that passes
# its roots, like an MCP host with --root).
case $PWD/ in ` + shellQuote(c.WS) + `/*) flags+=(-w "$PWD") ;; esac
fwd=" ${TOOLRPC_CONFORMANCE_ENV-} "
while IFS= read -r -d '' kv; do
  case $kv in
    TOOLRPC_*) flags+=(-e "$kv") ;;
    *) if [[ $fwd == *" ${kv%%=*} "* ]]; then flags+=(-e "$kv"); fi ;;
  esac
done < <(env -0)
if [[ ${TOOLRPC_CONFORMANCE_PID-} == 1 ]]; then
  exec ` + global.String() + `"${flags[@]}" ` + shellQuote(c.Name) + ` sh -c 'echo ` + remotePIDLine + `$$ >&2 && exec toolrpc "$@"' sh "$@"
fi
exec ` + global.String() + `"${flags[@]}" ` + shellQuote(c.Name) + ` toolrpc "$@"
`
	if w.name == "" {
		w.name = "over-podman"
	}
	dir := filepath.Join(c.dir, w.name)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	path := filepath.Join(dir, "toolrpc")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

// exec runs a command in the container and returns its output.
func (c *container) exec(t testing.TB, args ...string) string {
	t.Helper()
	return podman(t, append([]string{"exec", c.Name}, args...)...)
}

// hostPID maps pid, as seen in the PID namespace ns, to this machine's pid
// (NSpid in /proc/PID/status lists a process's pid in each namespace from
// the machine's down). 0 when no such process is alive.
func hostPID(ns string, pid int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		hp, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", hp)); err != nil || l != ns {
			continue
		}
		f, err := os.Open(fmt.Sprintf("/proc/%d/status", hp))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "NSpid:"); ok {
				fs := strings.Fields(v)
				if len(fs) > 0 && fs[len(fs)-1] == strconv.Itoa(pid) {
					f.Close()
					return hp
				}
				break
			}
		}
		f.Close()
	}
	return 0
}

// waitHostPID waits until the container pid maps to a live process here.
func containerHostPID(t testing.TB, ns string, pid int) int {
	t.Helper()
	var hp int
	eventually(t, fmt.Sprintf("pid %d of the container is found here", pid), func() (bool, string) {
		hp = hostPID(ns, pid)
		return hp > 0, ""
	})
	return hp
}
