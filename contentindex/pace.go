package contentindex

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/limits"
)

// pacer keeps the thread it runs on at a share of one core: after work it
// sleeps as long as the work took beyond that share. percent 0 or 100
// disables it. The goroutine using it must be locked to its thread.
type pacer struct {
	percent int
	last    time.Duration // thread CPU time at the last tick
	owed    time.Duration
}

// minSleep is the shortest sleep a pacer takes; shorter debts accumulate.
const minSleep = 10 * time.Millisecond

func newPacer(percent int) pacer {
	p := pacer{percent: percent}
	p.last = threadCPU()
	return p
}

// tick charges the CPU used since the last tick and sleeps off the debt.
func (p *pacer) tick() {
	if p.percent <= 0 || p.percent >= 100 {
		return
	}
	now := threadCPU()
	used := now - p.last
	p.last = now
	p.owed += used * time.Duration(100-p.percent) / time.Duration(p.percent)
	if p.owed >= minSleep {
		time.Sleep(p.owed)
		p.owed = 0
		p.last = threadCPU()
	}
}

func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// lowerPriority locks the calling goroutine to its thread and gives the
// thread nice limits.IndexBuildNice and the idle I/O class. The goroutine
// must never unlock: when it returns, the runtime ends the thread instead
// of reusing it at low priority.
func lowerPriority() {
	runtime.LockOSThread()
	tid := unix.Gettid()
	_ = unix.Setpriority(unix.PRIO_PROCESS, tid, limits.IndexBuildNice)
	const ioprioWhoProcess, ioprioClassIdle, ioprioClassShift = 1, 3, 13
	_, _, _ = unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(tid), ioprioClassIdle<<ioprioClassShift)
}
