package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Row statuses besides a goal's verdict.
const (
	statusHolds        = "yes"
	statusMissed       = "NO"
	statusNoGoal       = "n/a"
	statusNoPeer       = "peer not installed"
	statusSkipped      = "skipped"
	statusErrorPrefix  = "error: "
	installHint        = "apt-get install ripgrep fd-find hyperfine"
	drivenLongLived    = "long-lived server"
	drivenFresh        = "fresh process"
	drivenFreshPerCall = "fresh server per run"
)

// goalKind is how a row's figures are judged.
type goalKind int

const (
	noGoal      goalKind = iota
	ratioAtMost          // toolrpc / peer ≤ limit
	ratioWithin          // lo ≤ toolrpc / peer ≤ limit
	valueAtMost          // toolrpc figure ≤ limit (in the row's unit)
	valueBelow           // toolrpc figure < limit (in the row's unit)
)

// goal is a row's target.
type goal struct {
	kind      goalKind
	lo, limit float64
}

func (g goal) String() string {
	switch g.kind {
	case ratioAtMost:
		return fmt.Sprintf("≤ %g×", g.limit)
	case ratioWithin:
		return fmt.Sprintf("%g–%g×", g.lo, g.limit)
	case valueAtMost:
		return fmt.Sprintf("≤ %g", g.limit)
	case valueBelow:
		return fmt.Sprintf("< %g", g.limit)
	}
	return "—"
}

// Row is one line of the table.
type Row struct {
	Scenario string `json:"scenario"`
	Driven   string `json:"driven"`
	// Unit is the unit of ToolrpcValue and PeerValue: "ms", "MB" or "calls/s".
	Unit         string    `json:"unit"`
	ToolrpcValue float64   `json:"toolrpc,omitempty"`
	Peer         string    `json:"peer,omitempty"` // the peer command
	PeerValue    float64   `json:"peerValue,omitempty"`
	Ratio        float64   `json:"ratio,omitempty"`
	Goal         string    `json:"goal"`
	Status       string    `json:"holds"`
	Runs         int       `json:"runs"`
	Samples      []float64 `json:"toolrpcSamples,omitempty"`
	PeerSamples  []float64 `json:"peerSamples,omitempty"`
	Note         string    `json:"note,omitempty"`

	goal      goal
	peerBins  []string
	peerShort string
	measured  bool
}

// judge sets Ratio, Goal and Status from the figures.
func (r *Row) judge() {
	r.Goal = r.goal.String()
	if r.goal.kind == valueAtMost || r.goal.kind == valueBelow {
		r.Goal += " " + r.Unit
	}
	if r.Status != "" { // skipped, error or peer missing
		return
	}
	if r.PeerValue > 0 && r.ToolrpcValue > 0 {
		r.Ratio = r.ToolrpcValue / r.PeerValue
	}
	ok := true
	switch r.goal.kind {
	case noGoal:
		r.Status = statusNoGoal
		return
	case ratioAtMost:
		ok = r.Ratio > 0 && r.Ratio <= r.goal.limit
	case ratioWithin:
		ok = r.Ratio >= r.goal.lo && r.Ratio <= r.goal.limit
	case valueAtMost:
		ok = r.ToolrpcValue <= r.goal.limit
	case valueBelow:
		ok = r.ToolrpcValue < r.goal.limit
	}
	r.Status = statusMissed
	if ok {
		r.Status = statusHolds
	}
}

// figure formats v in unit.
func figure(v float64, unit string) string {
	switch unit {
	case "ms":
		switch {
		case v >= 10000:
			return fmt.Sprintf("%.1f s", v/1000)
		case v >= 1000:
			return fmt.Sprintf("%.2f s", v/1000)
		case v >= 100:
			return fmt.Sprintf("%.0f ms", v)
		case v >= 10:
			return fmt.Sprintf("%.1f ms", v)
		}
		return fmt.Sprintf("%.2f ms", v)
	case "MB":
		return fmt.Sprintf("%.1f MB", v)
	case "calls/s":
		return fmt.Sprintf("%.0f calls/s", v)
	case "s":
		return fmt.Sprintf("%.2f s", v)
	case "%":
		return fmt.Sprintf("%.1f %%", v)
	case "ratio":
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}

// median returns the median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// millis converts durations to milliseconds.
func millis(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	return out
}

// machine describes where the table was measured.
type machine struct {
	When        string `json:"when"`
	CPU         string `json:"cpu"`
	Cores       int    `json:"cores"`
	MemGB       string `json:"mem"`
	Kernel      string `json:"kernel"`
	GoVersion   string `json:"go"`
	Commit      string `json:"commit,omitempty"`
	LoadBefore  string `json:"loadBefore"`
	LoadAfter   string `json:"loadAfter"`
	Runs        int    `json:"runs"`
	Server      string `json:"server"`
	ServerRSSMB string `json:"longLivedServerPeakRSS,omitempty"`
}

func describeMachine() machine {
	m := machine{When: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Cores: runtime.NumCPU(), GoVersion: runtime.Version(), LoadBefore: loadAvg()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if kb, err := statusKB(b, "MemTotal"); err == nil {
			m.MemGB = fmt.Sprintf("%.1f GB", float64(kb)/(1<<20))
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			m.Commit += " + uncommitted changes"
		}
	}
	return m
}

// loadAvg returns the 1/5/15-minute load averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// printTable writes the rows as a Markdown table, then the notes.
func printTable(w io.Writer, m machine, rows []Row) {
	fmt.Fprintf(w, "toolrpc-bench %s — %s, %d cores, %s, Linux %s, %s; server %s", m.When, m.CPU, m.Cores, m.MemGB, m.Kernel, m.GoVersion, m.Server)
	if m.Commit != "" {
		fmt.Fprintf(w, " at %s", m.Commit)
	}
	fmt.Fprintf(w, "\nload average (1/5/15 min): %s before, %s after; medians of %d runs, toolrpc and peer interleaved\n\n", m.LoadBefore, m.LoadAfter, m.Runs)
	fmt.Fprintln(w, "| scenario | driven | toolrpc | peer (same run) | ratio | goal | holds? |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	var notes []string
	for _, r := range rows {
		tr, peer, ratio := "—", "—", "—"
		if r.measured {
			tr = figure(r.ToolrpcValue, r.Unit)
		}
		if r.peerShort != "" {
			peer = r.peerShort
			if r.PeerValue > 0 {
				peer = figure(r.PeerValue, r.Unit) + " (" + r.peerShort + ")"
			}
		}
		if r.Ratio > 0 {
			ratio = fmt.Sprintf("%.2f×", r.Ratio)
		}
		cells := []string{r.Scenario, r.Driven, tr, peer, ratio, r.Goal, r.Status}
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		if r.Note != "" {
			notes = append(notes, fmt.Sprintf("- %s: %s", r.Scenario, r.Note))
		}
	}
	if m.ServerRSSMB != "" {
		notes = append(notes, "- peak RSS of the long-lived servers over the whole run: "+m.ServerRSSMB)
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nnotes:\n%s\n", strings.Join(notes, "\n"))
	}
}

// writeJSON writes the machine and the rows to path.
func writeJSON(path string, m machine, rows []Row) error {
	for i := range rows {
		if math.IsNaN(rows[i].Ratio) || math.IsInf(rows[i].Ratio, 0) {
			rows[i].Ratio = 0
		}
	}
	b, err := json.MarshalIndent(struct {
		Machine machine `json:"machine"`
		Rows    []Row   `json:"rows"`
	}{m, rows}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
