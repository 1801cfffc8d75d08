package progress

import (
	"context"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/limits"
)

// Sink shows builds to a client, in its face's protocol.
type Sink interface {
	// Begin shows a build starting with status s (Percent 0). It may block
	// (an LSP client must accept the token first) until ctx ends. It
	// returns the Task that shows the rest of the build, or nil when the
	// build is not to be shown (the client refused, ctx ended).
	Begin(ctx context.Context, s Status) Task
}

// Task shows one build after its begin. A Reporter calls its methods from
// one goroutine: Reports, then End once.
type Task interface {
	// Report shows how far the build is.
	Report(s Status)
	// End shows that the build is over, with its last status.
	End(s Status)
}

// Reporter follows the builds of one session and shows each through its
// Sink: begin at once, a report at most every limits.ProgressReportInterval
// while the counters move, end when the build ends or the Reporter is
// closed. A nil *Reporter starts nil Meters. Its methods may be called
// concurrently.
type Reporter struct {
	sink     Sink
	interval time.Duration
	now      func() time.Time                                 // tests inject a clock
	ticks    func(d time.Duration) (<-chan time.Time, func()) // tests inject ticks

	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex // orders Start's wg.Add before Close's wg.Wait
	closed bool
	wg     sync.WaitGroup
}

// NewReporter returns a Reporter showing builds through sink; a nil sink
// gives a nil Reporter.
func NewReporter(sink Sink) *Reporter {
	if sink == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Reporter{sink: sink, interval: limits.ProgressReportInterval, now: time.Now, ticks: realTicks, ctx: ctx, cancel: cancel}
}

func realTicks(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// Start begins showing a build of kind over root and returns the Meter the
// build advances and must End. It returns at once: the client is spoken to
// on a goroutine of the Reporter's. After Close it returns nil.
func (r *Reporter) Start(kind Kind, root string) *Meter {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	m := newMeter(kind)
	title := kind.title(root)
	first := m.snapshot(title, 0) // the begin says 0 files, however soon it goes out
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.follow(m, first)
	}()
	return m
}

// Close stops following: a build still running is shown as ended, a begin
// still waiting for the client is given up. It returns once nothing more
// will be sent.
func (r *Reporter) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
}

// follow shows one build from begin (status first) to end.
func (r *Reporter) follow(m *Meter, first Status) {
	title := first.Title
	begin := first
	begin.Percent = 0
	task := r.sink.Begin(r.ctx, begin)
	if task == nil {
		return
	}
	// Ticks come four times an interval: the limiter, not the ticker, keeps
	// reports apart, and a report is never held back most of an extra
	// interval because its tick came a hair early.
	tick, stop := r.ticks(r.interval / 4)
	defer stop()
	lim := limiter{interval: r.interval}
	lim.sent(r.now()) // the begin counts as the first report
	last := first
	for {
		select {
		case <-m.ended:
			task.End(m.snapshot(title, last.Percent))
			return
		case <-r.ctx.Done():
			task.End(m.snapshot(title, last.Percent))
			return
		case <-tick:
			s := m.snapshot(title, last.Percent)
			if s != last && lim.allow(r.now()) {
				task.Report(s)
				lim.sent(r.now())
				last = s
			}
		}
	}
}

// limiter keeps reports an interval apart, counted from the moment the
// last one was written: a report whose write waited (behind a large grep
// reply, say) is not followed by a second one right after it, so a client
// never receives two within an interval.
type limiter struct {
	interval time.Duration
	last     time.Time // when the last report was written
}

// allow reports whether a report may go out at now.
func (l *limiter) allow(now time.Time) bool {
	return l.last.IsZero() || now.Sub(l.last) >= l.interval
}

// sent records that a report was written at now.
func (l *limiter) sent(now time.Time) { l.last = now }
