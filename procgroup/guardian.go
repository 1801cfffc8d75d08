//go:build unix

package procgroup

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// The guardian is a tiny process — the server's own binary re-executed with
// guardianArg — that outlives a SIGKILLed server just long enough to kill
// every command it was running. It holds the read end of a pipe only the
// server writes to; when that pipe reaches end of file, its pidfd on the
// server turns readable, or its parent-death signal arrives and its parent
// has changed, the server is gone: it writes cgroup.kill in each of the
// server's call cgroups, then sweeps /proc for every process whose cookie
// names the server, and exits. It is in its own process group and ignores
// SIGINT, SIGTERM and SIGHUP, so a signal meant for the server's group does
// not take it down first. The server starts a new one whenever it dies.

// guardianArg, as the first argument, makes any binary that links procgroup
// run as a guardian (see init).
const guardianArg = "__toolrpc-procgroup-guardian"

// init turns this process into a guardian when it was started as one. It is
// an init function, not a call in main, so every binary that links procgroup
// — the server, test binaries — can be its own guardian.
func init() {
	if len(os.Args) == 5 && os.Args[1] == guardianArg {
		os.Exit(runGuardian(os.Args[2], os.Args[3], os.Args[4]))
	}
}

// serverPrefix is the start of every cookie of this server:
// "<pid>.<start ticks>.", naming the server so that a later sweep can tell
// whether it still runs.
var serverPrefix = sync.OnceValue(func() string {
	pid := os.Getpid()
	st, _ := readStat(pid)
	return strconv.Itoa(pid) + "." + strconv.FormatUint(st.start, 10) + "."
})

// guardianDeathSig is the guardian's parent-death signal (Linux). Its
// default action is to ignore it: when the server dies before a new
// guardian's runtime has installed a handler, the signal must not kill the
// guardian (the stdin pipe's end of file then tells it). SIGUSR1, whose
// default action terminates, left a SIGKILLed server's commands alive.
const guardianDeathSig = syscall.SIGWINCH

// guardianRespawnPause is the first pause before a dead guardian is replaced;
// it doubles up to a second while replacements keep dying.
var guardianRespawnPause = 10 * time.Millisecond

var guardian struct {
	once sync.Once
	mu   sync.Mutex
	pid  int // the running guardian, 0 while none
}

// Guard starts the guardian of this process's commands if it is not running
// yet, and sweeps what servers that died without one left behind. Start
// calls it; a server calls it at start-up so that the sweep runs at once.
func Guard() {
	guardian.once.Do(func() {
		go func() {
			useCgroup() // the probe also kills what stale call cgroups hold
			sweepStaleCookies()
		}()
		go superviseGuardian()
	})
}

// GuardianPid returns the pid of the running guardian, or 0.
func GuardianPid() int {
	guardian.mu.Lock()
	defer guardian.mu.Unlock()
	return guardian.pid
}

// superviseGuardian keeps a guardian running for the life of the process.
func superviseGuardian() {
	pause := guardianRespawnPause
	for {
		cmd, w, err := spawnGuardian()
		if err == nil {
			guardian.mu.Lock()
			guardian.pid = cmd.Process.Pid
			guardian.mu.Unlock()
			_ = cmd.Wait()
			_ = w.Close()
			guardian.mu.Lock()
			guardian.pid = 0
			guardian.mu.Unlock()
		}
		time.Sleep(pause)
		pause = min(2*pause, time.Second)
	}
}

func spawnGuardian() (*exec.Cmd, *os.File, error) {
	r, w, err := os.Pipe() // close-on-exec: no command inherits the write end
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	cmd := exec.Command(selfExe(), guardianArg, strconv.Itoa(os.Getpid()), serverPrefix(), cgroupBaseOrNone())
	cmd.Stdin = r
	cmd.Env = os.Environ()
	cmd.SysProcAttr = guardianAttr()
	if err := cmd.Start(); err != nil {
		_ = w.Close()
		return nil, nil, fmt.Errorf("start guardian: %w", err)
	}
	return cmd, w, nil
}

func cgroupBaseOrNone() string {
	if useCgroup() {
		return cgroupBase
	}
	return "-"
}

// runGuardian waits for the server to die, then kills what it left running.
func runGuardian(serverPid, prefix, base string) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	pid, err := strconv.Atoi(serverPid)
	if err != nil {
		return 2
	}
	gone := make(chan struct{}, 3)
	go func() { // the pipe reaches end of file when the server's end closes
		_, _ = io.Copy(io.Discard, os.Stdin)
		gone <- struct{}{}
	}()
	watchServer(pid, gone)
	deathSig := make(chan os.Signal, 1)
	signal.Notify(deathSig, guardianDeathSig)
	awaitServerDeath(pid, gone, deathSig)
	killServerCommands(pid, prefix, base)
	return 0
}

// awaitServerDeath returns once gone fires, or the parent-death signal
// arrives and the parent is no longer the server (the signal also comes when
// only the server thread that started the guardian ends).
func awaitServerDeath(pid int, gone <-chan struct{}, deathSig <-chan os.Signal) {
	for {
		select {
		case <-gone:
			return
		case <-deathSig:
			if os.Getppid() != pid {
				return
			}
		}
	}
}

// killServerCommands kills every command of the dead server pid: its call
// cgroups under base ("-" for none), then every process whose cookie starts
// with prefix and their descendants.
func killServerCommands(pid int, prefix, base string) {
	if base != "-" {
		killServerCgroups(base, pid)
	}
	sweepCookies(func(_ int, cookie []byte) bool { return bytes.HasPrefix(cookie, []byte(prefix)) })
}

// cookieOf returns the value of CookieEnv in an environment block, or nil.
func cookieOf(environ []byte) []byte {
	key := []byte(CookieEnv + "=")
	for len(environ) > 0 {
		entry, rest, _ := bytes.Cut(environ, []byte{0})
		if v, ok := bytes.CutPrefix(entry, key); ok {
			return v
		}
		environ = rest
	}
	return nil
}

// sweepCookies kills, round after round until a round finds none alive,
// every process whose cookie match accepts (given its pid), and their
// descendants. The processes are not this process's children: init reaps
// them.
func sweepCookies(match func(pid int, cookie []byte) bool) {
	self := os.Getpid()
	deadline := time.Now().Add(killBackstop)
	for {
		procs := listProcs()
		member := tree(procs, self, func(p procStat) bool {
			if p.dead() {
				return false
			}
			env, err := readEnviron(p.pid)
			if err != nil {
				return false
			}
			c := cookieOf(env)
			return c != nil && match(p.pid, c)
		})
		live := 0
		for _, p := range procs {
			if member[p.pid] && !p.dead() {
				live++
				killPid(p)
			}
		}
		if live == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(sweepPause)
	}
}

// sweepStaleCookies kills the commands of servers that died without a
// guardian to do it (an older binary, a guardian killed with its server):
// every process whose cookie names a server that no longer runs. A cookie's
// pid means something only in its holder's PID namespace: the commands of a
// server in a container (visible here under other pids) are never judged
// from outside it, where their server's pid names nothing or a stranger.
func sweepStaleCookies() {
	sweepCookies(func(holder int, cookie []byte) bool {
		if !inOwnPIDNamespace(holder) {
			return false
		}
		f := bytes.SplitN(cookie, []byte("."), 3)
		if len(f) != 3 {
			return false
		}
		pid, err1 := strconv.Atoi(string(f[0]))
		start, err2 := strconv.ParseUint(string(f[1]), 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		st, ok := readStat(pid)
		return !ok || st.start != start
	})
}
