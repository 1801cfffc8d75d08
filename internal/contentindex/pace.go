package contentindex

import (
	"time"

	"github.com/toolrpc/toolrpc/internal/progress"
)

// pacer keeps the thread it runs on at a share of one core: after work it
// sleeps as long as the work took beyond that share. percent 0 or 100
// disables it. The goroutine using it must be locked to its thread.
type pacer struct {
	percent int
	last    time.Duration // thread CPU time at the last tick
	owed    time.Duration
	// meter, while a build runs, counts the files it has indexed, for the
	// build's progress (it rides with the pacer to the builder); nil
	// otherwise.
	meter *progress.Meter
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
