package procgroup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows every command runs in its own Job Object created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE. The shell is created suspended,
// assigned to the job, then resumed, so every process it starts is in the
// job from its first instruction (a child cannot leave a job). Kill
// terminates the job and waits until it holds no process. The server holds
// the only handle on the job: when the server dies, even killed by
// TerminateProcess, the system closes the handle and kills the job. No
// guardian is needed.

// Mode reports how Kill finds a command's processes: "job".
func Mode() string { return "job" }

// ModeEnv is accepted for compatibility; Windows always uses a job.
const ModeEnv = "TOOLRPC_KILL_MODE"

// Guard does nothing on Windows: Job Objects outlive no server.
func Guard() {}

// GuardianPid returns 0: there is no guardian on Windows.
func GuardianPid() int { return 0 }

// Start runs the command. The caller must call Wait.
func Start(spec Spec) (*Group, error) { return StartContext(context.Background(), spec) }

// StartContext is Start, except that a ctx already done when the command is
// about to be spawned fails the start with ctx's error.
func StartContext(ctx context.Context, spec Spec) (*Group, error) {
	if spec.TTY != nil {
		return nil, fmt.Errorf("start %q: %w", spec.Command, ErrNoTTY)
	}
	shell, err := findBash()
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", spec.Command, err)
	}
	job, err := newKillOnCloseJob()
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", spec.Command, err)
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	g := newGroup(hex.EncodeToString(b[:]), &spec)
	g.sys.job = job
	cmd := exec.Command(shell, "-c", spec.Command)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), spec.Env...)
	cmd.Env = append(cmd.Env, CookieEnv+"="+g.cookie)
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
	closeAfterStart, err := g.pipes(cmd, &spec)
	if err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	if err = ctx.Err(); err == nil {
		err = cmd.Start()
	}
	closeAll(closeAfterStart)
	if err == nil {
		if err = assignAndResume(job, cmd.Process.Pid); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	if err != nil {
		windows.CloseHandle(job)
		closeAll(g.outs)
		if g.stdinW != nil {
			_ = g.stdinW.Close()
		}
		return nil, fmt.Errorf("start %q: %w", spec.Command, err)
	}
	g.cmd, g.pid = cmd, cmd.Process.Pid
	g.serve(&spec)
	return g, nil
}

// bashPlaces are where Git for Windows and MSYS2 install bash.exe, each
// once: a 64-bit process sees ProgramFiles and ProgramW6432 name the same
// directory, which the bash-missing message named twice (issue 34).
func bashPlaces() []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if k := strings.ToLower(p); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	for _, env := range []string{"ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"} {
		if d := os.Getenv(env); d != "" {
			add(filepath.Join(d, `Git\bin\bash.exe`))
			add(filepath.Join(d, `Git\usr\bin\bash.exe`))
		}
	}
	if d := os.Getenv("LOCALAPPDATA"); d != "" {
		add(filepath.Join(d, `Programs\Git\bin\bash.exe`))
	}
	add(`C:\msys64\usr\bin\bash.exe`)
	add(`C:\tools\msys64\usr\bin\bash.exe`)
	return out
}

// findBash returns bash.exe from Git for Windows or MSYS2: TOOLRPC_BASH, then
// PATH (skipping System32's bash.exe, which is WSL's launcher and runs the
// command in a Linux VM that cannot see Windows paths), then the usual
// install places.
func findBash() (string, error) {
	if p := os.Getenv("TOOLRPC_BASH"); p != "" {
		return p, nil
	}
	sys := strings.ToLower(filepath.Join(os.Getenv("SystemRoot"), "System32"))
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if strings.ToLower(filepath.Clean(dir)) == sys || strings.Contains(strings.ToLower(dir), `\windowsapps`) {
			continue
		}
		p := filepath.Join(dir, "bash.exe")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	places := bashPlaces()
	for _, p := range places {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("tools/bash needs bash.exe from Git for Windows (https://git-scm.com/download/win) or MSYS2 (https://www.msys2.org); none on PATH or in %s; or set TOOLRPC_BASH", strings.Join(places, ", "))
}

func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("set job object limits: %w", err)
	}
	return job, nil
}

// assignAndResume puts the suspended process pid in job, then resumes its
// threads (it has one, the main thread).
func assignAndResume(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("assign process %d to job: %w", pid, err)
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("thread snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d: %w", te.ThreadID, err)
		}
		_, rerr := windows.ResumeThread(th)
		windows.CloseHandle(th)
		if rerr != nil {
			return fmt.Errorf("resume thread %d: %w", te.ThreadID, rerr)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("resume process %d: no thread found", pid)
	}
	return nil
}

// groupSys is the command's job.
type groupSys struct{ job windows.Handle }

// release closes the job once the shell is reaped.
func (g *Group) release() { _ = windows.CloseHandle(g.sys.job) }

// statusOf is how the shell ended.
func statusOf(ps *os.ProcessState) Status { return Status{ExitCode: ps.ExitCode()} }

// setPipeSize does nothing: Windows pipes are sized at creation.
func setPipeSize(*os.File) {}

func (g *Group) copyOut(r *os.File, w io.Writer) {
	defer g.readers.Done()
	buf := make([]byte, readBufBytes)
	_, _ = io.CopyBuffer(w, r, buf)
}

func (g *Group) watchExit() {
	defer close(g.exited)
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(g.pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	_, _ = windows.WaitForSingleObject(h, windows.INFINITE)
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

// Kill terminates the job: every process the command started. After Kill
// returns, the job holds no live process (or killBackstop passed).
func (g *Group) Kill() {
	g.killOnce.Do(func() {
		close(g.killed)
		_ = windows.TerminateJobObject(g.sys.job, 1)
		deadline := time.Now().Add(killBackstop)
		for time.Now().Before(deadline) {
			var acct jobAccounting
			if windows.QueryInformationJobObject(g.sys.job, windows.JobObjectBasicAccountingInformation,
				uintptr(unsafe.Pointer(&acct)), uint32(unsafe.Sizeof(acct)), nil) != nil || acct.ActiveProcesses == 0 {
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// ErrNoTTY is why Start refuses a Spec with TTY set: Windows has no
// controlling terminal to give the shell (a ConPTY is not one).
var ErrNoTTY = errors.New("pty mode is not supported on Windows")

// killBackstop bounds how long Kill waits for the job to empty.
var killBackstop = 30 * time.Second

// Pids returns nil: a job's members are not listed here.
func (g *Group) Pids() []int { return nil }

// Signal refuses: Windows has no process-group signals. Kill (a process's
// KILL) terminates the job.
func (g *Group) Signal(sig syscall.Signal) error {
	return fmt.Errorf("signal %v: Windows has no process-group signals, only KILL: %w", sig, errors.ErrUnsupported)
}

// Unread returns 0: unread pipe bytes are not counted here.
func (g *Group) Unread() int { return 0 }
