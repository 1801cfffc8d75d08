package progress

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/limits"
)

// TestMain checks that Close leaves no goroutine of a Reporter behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a Sink that records what it is asked to show.
type recorder struct {
	mu     sync.Mutex
	events []event
	refuse bool
	at     func() time.Time
	// onReport, when set, runs inside each Report: a slow write.
	onReport func()
}

type event struct {
	kind      string
	s         Status
	start, at time.Time // when the write began and ended
}

func (r *recorder) add(kind string, s Status) {
	start := r.at()
	if kind == "report" && r.onReport != nil {
		r.onReport()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{kind: kind, s: s, start: start, at: r.at()})
}

func (r *recorder) Begin(_ context.Context, s Status) Task {
	if r.refuse {
		return nil
	}
	r.add("begin", s)
	return recTask{r}
}

type recTask struct{ r *recorder }

func (t recTask) Report(s Status) { t.r.add("report", s) }
func (t recTask) End(s Status)    { t.r.add("end", s) }

func (r *recorder) all() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.events...)
}

// fakeClock is a clock the test moves; ticks go out when the test says.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// newTestReporter returns a Reporter on a fake clock whose ticks the test
// sends on the returned channel (unbuffered: a send returns once the
// reporter has taken the tick).
func newTestReporter(sink *recorder) (*Reporter, *fakeClock, chan time.Time) {
	clock := &fakeClock{now: time.Unix(1e9, 0)}
	sink.at = clock.Now
	return newTestReporterOn(sink, clock)
}

// newTestReporterOn is newTestReporter on the given clock.
func newTestReporterOn(sink *recorder, clock *fakeClock) (*Reporter, *fakeClock, chan time.Time) {
	r := NewReporter(sink)
	tick := make(chan time.Time)
	r.now = clock.Now
	r.ticks = func(time.Duration) (<-chan time.Time, func()) { return tick, func() {} }
	return r, clock, tick
}

// TestReportRateLimit: ticks every 100 ms of the fake clock (a ticker that
// bunches after slow writes) with the counters moving at every tick yield
// at most one report per limits.ProgressReportInterval, begin counted.
func TestReportRateLimit(t *testing.T) {
	sink := &recorder{}
	r, clock, tick := newTestReporter(sink)
	m := r.Start(IndexBuild, "/src")
	tick <- clock.Now() // the begin has been sent
	m.SetTotal(1000)
	start := clock.Now()
	for range 50 {
		m.Add(20)
		clock.advance(100 * time.Millisecond)
		tick <- clock.Now()
		tick <- clock.Now() // a barrier: the tick before it has been handled
	}
	m.End()
	r.Close()
	evs := sink.all()
	require.Equal(t, "begin", evs[0].kind)
	require.Equal(t, "end", evs[len(evs)-1].kind)
	reports := evs[1 : len(evs)-1]
	elapsed := clock.Now().Sub(start)
	require.LessOrEqual(t, len(reports), int(elapsed/limits.ProgressReportInterval), "reports over %v", elapsed)
	require.GreaterOrEqual(t, len(reports), int(elapsed/limits.ProgressReportInterval)-1, "a report whenever one is allowed")
	prev := evs[0].at
	for _, e := range reports {
		require.GreaterOrEqual(t, e.at.Sub(prev), limits.ProgressReportInterval, "reports %v apart", e.at.Sub(prev))
		prev = e.at
	}
}

// TestReportSequence: begin at 0 %, percentages that never fall and never
// pass 100, no report while nothing moved, the listing reported without a
// percentage, end with the last count.
func TestReportSequence(t *testing.T) {
	sink := &recorder{}
	r, clock, tick := newTestReporter(sink)
	m := r.Start(IndexBuild, "/src")
	tick <- clock.Now() // the begin has been sent
	step := func() {
		clock.advance(limits.ProgressReportInterval)
		tick <- clock.Now()
		tick <- clock.Now() // a barrier: the tick before it has been handled
	}
	m.Add(7)
	step()
	step() // nothing moved: no report
	m.SetTotal(7)
	step()
	m.Add(3)
	step()
	m.Add(100) // more than the total: shown as the total
	step()
	m.End()
	r.Close()
	got := []string{}
	for _, e := range sink.all() {
		got = append(got, e.kind+" "+e.s.Message+" "+pct(e.s.Percent))
	}
	require.Equal(t, []string{
		"begin 0 files listed 0",
		"report 7 files listed -",
		"report 0 of 7 files 0",
		"report 3 of 7 files 42",
		"report 7 of 7 files 100",
		"end 7 of 7 files 100",
	}, got)
	require.Equal(t, "Indexing /src", sink.all()[0].s.Title)
}

func pct(p int) string {
	if p < 0 {
		return "-"
	}
	return strconv.Itoa(p)
}

// TestRefusedBuildShowsNothing: a sink that refuses the begin gets no
// report and no end, and the build does not wait for it.
func TestRefusedBuildShowsNothing(t *testing.T) {
	sink := &recorder{refuse: true}
	r, _, _ := newTestReporter(sink)
	m := r.Start(TableWalk, "/src")
	m.Add(5)
	m.End()
	r.Close()
	require.Empty(t, sink.all())
}

// TestCloseEndsRunningBuild: closing the reporter ends a build still
// running, and a nil Reporter and Meter do nothing.
func TestCloseEndsRunningBuild(t *testing.T) {
	sink := &recorder{}
	r, _, _ := newTestReporter(sink)
	m := r.Start(TableWalk, "/src")
	m.Add(5)
	r.Close()
	evs := sink.all()
	require.Len(t, evs, 2)
	require.Equal(t, "end", evs[1].kind)
	require.Equal(t, "5 files found", evs[1].s.Message)
	require.Equal(t, "Listing files in /src", evs[0].s.Title)
	require.Nil(t, r.Start(TableWalk, "/src"), "no build starts after Close")

	var nr *Reporter
	nm := nr.Start(IndexBuild, "/x")
	nm.Add(1)
	nm.SetTotal(2)
	nm.End()
	nr.Close()
}

// TestLimiter: one report per interval, counted from the end of the last
// write, on the injected clock.
func TestLimiter(t *testing.T) {
	l := limiter{interval: limits.ProgressReportInterval}
	t0 := time.Unix(1e9, 0)
	require.True(t, l.allow(t0))
	l.sent(t0)
	require.False(t, l.allow(t0.Add(limits.ProgressReportInterval-time.Nanosecond)))
	require.True(t, l.allow(t0.Add(limits.ProgressReportInterval)))
	l.sent(t0.Add(limits.ProgressReportInterval + time.Second)) // a write that waited a second
	require.False(t, l.allow(t0.Add(limits.ProgressReportInterval+time.Second+time.Millisecond)))
	require.Equal(t, 500*time.Millisecond, limits.ProgressReportInterval, "at most 2 reports a second (issue 27)")
}

// TestSlowWriteKeepsReportsApart: a report whose write takes a second (the
// client reads slowly) is not followed by another one sooner than an
// interval after the write ended, whatever ticks were waiting.
func TestSlowWriteKeepsReportsApart(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1e9, 0)}
	sink := &recorder{at: clock.Now}
	sink.onReport = func() { clock.advance(time.Second) } // the write takes a second
	r, _, tick := newTestReporterOn(sink, clock)
	m := r.Start(IndexBuild, "/src")
	tick <- clock.Now() // the begin has been sent
	m.SetTotal(100)
	for range 20 {
		m.Add(1)
		clock.advance(100 * time.Millisecond)
		tick <- clock.Now()
		tick <- clock.Now() // a barrier
	}
	m.End()
	r.Close()
	evs := sink.all()
	for i := 2; i < len(evs)-1; i++ { // reports after the first: at is when the write ended
		require.GreaterOrEqual(t, evs[i].start.Sub(evs[i-1].at), limits.ProgressReportInterval, "report %d", i)
	}
}
