// Command toolrpc-bench measures toolrpc the way a host drives it, side by
// side with the tools a host would otherwise spawn (rg, fdfind, wc, a raw
// shell pipeline), and prints one table: scenario, toolrpc figure, peer
// figure from the same run, ratio, goal, and whether the goal holds.
//
// Usage:
//
//	go run ./cmd/toolrpc-bench [--quick] [--runs N] [--json FILE] [--cache DIR] [--run REGEXP]
//
// It builds the server (go build into the cache dir, or uses --server),
// prepares its corpora — the Go tree (--goroot, default /usr/local/go), a
// generated text file of about 1 GB and 40M lines, a generated workspace
// whose node_modules/ is ignored, and the Linux source extracted from
// Debian's linux-source-6.1 tarball (--linux-tar) with Debian's two
// packaging lines removed from its .gitignore — and keeps them between runs in
// $XDG_CACHE_HOME/toolrpc-bench (else ~/.cache/toolrpc-bench; --cache to
// change). It installs nothing: when rg, fdfind, hyperfine or the kernel
// tarball is missing it prints the apt-get line and marks the rows that need
// them "peer not installed".
//
// # How things are driven
//
// Per-call rows use one long-lived server per corpus over stdio and time
// request → reply, as a host sees it; the cold read starts a fresh server
// per run (start not timed) so its line index is not cached; start-up rows
// time process start → initialize reply. Peers are spawned per call, as a
// host would, with their stdout read. Each figure is the median of --runs
// runs after one untimed warm-up, toolrpc and peer interleaved (A B A B) so
// drift hits both alike. Rows also compare what both sides found and note
// any difference.
//
// The exit status is 1 when a row could not be measured, 0 otherwise
// (missed goals are reported, not fatal).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// lookPath finds peer programs; tests replace it to simulate missing peers.
var lookPath = exec.LookPath

// config is the parsed command line.
type config struct {
	runs, cancelRuns, rttCalls int
	cache, server, goroot      string
	linuxTar                   string
	jsonFile, only             string
	bigBytes, bashBytes        int64
	nodePkgs                   int
	indexLinux                 string // tree of the Linux content index rows ("" = none)
	baseline                   string // a toolrpc binary without the load at initialize ("" = none)
}

// Full and --quick sizes.
const (
	fullRuns, quickRuns             = 5, 3
	fullCancelRuns, quickCancelRuns = 20, 5
	fullRTTCalls, quickRTTCalls     = 200, 50
	fullBigMB, quickBigMB           = 1000, 64
	fullBashMB, quickBashMB         = 1000, 100
	fullNodePkgs, quickNodePkgs     = 2000, 100
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func defaultCache() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "toolrpc-bench")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".cache", "toolrpc-bench")
	}
	return filepath.Join(os.TempDir(), "toolrpc-bench")
}

func run(args []string, stdout, stderr io.Writer) int {
	c, only, code := parseFlags(args, stderr)
	if code != 0 {
		return code
	}
	b, err := newBench(c, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolrpc-bench: %v\n", err)
		return 1
	}
	defer b.cleanup()
	m := describeMachine()
	m.Runs, m.Server = c.runs, b.bin
	rows, failed := measure(b, only, stderr)
	m.ServerRSSMB = b.closeServers()
	m.LoadAfter = loadAvg()

	printTable(stdout, m, rows)
	if missing := b.missingPeers(); len(missing) > 0 {
		fmt.Fprintf(stdout, "\npeers not installed: %s — install them with: %s\n", strings.Join(missing, ", "), b.installLine())
		fmt.Fprintf(stderr, "toolrpc-bench: peers not installed: %s — %s\n", strings.Join(missing, ", "), b.installLine())
	}
	if c.jsonFile != "" {
		if err := writeJSON(c.jsonFile, m, rows); err != nil {
			fmt.Fprintf(stderr, "toolrpc-bench: %v\n", err)
			return 1
		}
	}
	if failed {
		return 1
	}
	return 0
}

// parseFlags parses the command line into a config and the --run filter
// (nil: every row). A non-zero code is the exit status of a bad command line,
// already explained on stderr.
func parseFlags(args []string, stderr io.Writer) (config, *regexp.Regexp, int) {
	fs := flag.NewFlagSet("toolrpc-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	quick := fs.Bool("quick", false, fmt.Sprintf("small corpora and %d runs, for a smoke run", quickRuns))
	fs.IntVar(&c.runs, "runs", fullRuns, "runs per row; each figure is their median")
	fs.IntVar(&c.cancelRuns, "cancel-runs", fullCancelRuns, "cancels measured by the cancel row")
	fs.IntVar(&c.rttCalls, "rtt-calls", fullRTTCalls, "sequential calls of the round-trip row (x10 for calls/second)")
	fs.StringVar(&c.cache, "cache", defaultCache(), "directory of the built server and the generated corpora, kept between runs")
	fs.StringVar(&c.server, "server", "", "use this toolrpc binary instead of building one")
	fs.StringVar(&c.goroot, "goroot", "/usr/local/go", "Go source tree searched by the grep and glob rows")
	fs.StringVar(&c.linuxTar, "linux-tar", linuxTarDefault, "kernel source tarball the Linux rows extract and search (apt-get install "+linuxPackage+")")
	fs.StringVar(&c.indexLinux, "index-linux", "", "extracted Linux source tree for the content index rows (default: the tree the Linux rows extract from --linux-tar)")
	fs.StringVar(&c.baseline, "baseline", "", "a toolrpc binary built before the load at initialize (issue 50), for the row that compares the first grep sent at once with it")
	fs.StringVar(&c.jsonFile, "json", "", "also write the rows as JSON to this file")
	fs.StringVar(&c.only, "run", "", "measure only rows whose name matches this regexp (the others are listed as skipped)")
	bigMB := fs.Int64("big-mb", fullBigMB, "size of the generated big text file in MB (10^6 bytes)")
	bashMB := fs.Int64("bash-mb", fullBashMB, "bytes the bash pipeline prints, in MB (10^6 bytes)")
	fs.IntVar(&c.nodePkgs, "node-pkgs", fullNodePkgs, fmt.Sprintf("packages in the generated node_modules (%d files each)", filesPerPackage))
	if err := fs.Parse(args); err != nil {
		return c, nil, 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "toolrpc-bench: unexpected argument %q\n", fs.Arg(0))
		return c, nil, 2
	}
	if *quick {
		c.quickDefaults(fs, bigMB, bashMB)
	}
	if c.runs < 1 || c.cancelRuns < 1 || c.rttCalls < 1 || *bigMB < 1 || *bashMB < 1 || c.nodePkgs < 1 {
		fmt.Fprintln(stderr, "toolrpc-bench: --runs, --cancel-runs, --rtt-calls, --big-mb, --bash-mb and --node-pkgs must be ≥ 1")
		return c, nil, 2
	}
	c.bigBytes, c.bashBytes = *bigMB*1000000, *bashMB*1000000
	var only *regexp.Regexp
	if c.only != "" {
		var err error
		if only, err = regexp.Compile(c.only); err != nil {
			fmt.Fprintf(stderr, "toolrpc-bench: --run: %v\n", err)
			return c, nil, 2
		}
	}
	if err := c.absolute(); err != nil {
		fmt.Fprintf(stderr, "toolrpc-bench: %v\n", err)
		return c, nil, 2
	}
	return c, only, 0
}

// quickDefaults applies the --quick sizes to every size flag not given.
func (c *config) quickDefaults(fs *flag.FlagSet, bigMB, bashMB *int64) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	quickDefault := func(name string, p *int, v int) {
		if !set[name] {
			*p = v
		}
	}
	quickDefault("runs", &c.runs, quickRuns)
	quickDefault("cancel-runs", &c.cancelRuns, quickCancelRuns)
	quickDefault("rtt-calls", &c.rttCalls, quickRTTCalls)
	quickDefault("node-pkgs", &c.nodePkgs, quickNodePkgs)
	if !set["big-mb"] {
		*bigMB = quickBigMB
	}
	if !set["bash-mb"] {
		*bashMB = quickBashMB
	}
}

// measure runs every scenario only selects (nil: all), printing progress on
// stderr, and reports whether a row could not be measured.
func measure(b *bench, only *regexp.Regexp, stderr io.Writer) ([]Row, bool) {
	var rows []Row
	failed := false
	for _, sc := range scenarios() {
		r := Row{Scenario: sc.name, Driven: sc.driven, Unit: sc.unit, goal: sc.goal, peerBins: sc.bins, peerShort: sc.peer, Peer: sc.peer}
		switch {
		case only != nil && !only.MatchString(sc.name):
			r.Status = statusSkipped
		default:
			fmt.Fprintf(stderr, "· %s …\n", sc.name)
			if err := sc.run(b, &r); err != nil {
				r.Status = statusErrorPrefix + err.Error()
				failed = true
			} else if !b.peerReady(&r) {
				r.Status = statusNoPeer
			}
		}
		r.judge()
		if r.measured {
			peer := ""
			if r.PeerValue > 0 {
				peer = " (peer " + figure(r.PeerValue, r.Unit) + ")"
			}
			fmt.Fprintf(stderr, "  %s%s → %s\n", figure(r.ToolrpcValue, r.Unit), peer, r.Status)
		}
		rows = append(rows, r)
	}
	return rows, failed
}

// absolute makes the path flags absolute, since servers and peers run in
// other directories.
func (c *config) absolute() error {
	for _, p := range []*string{&c.cache, &c.server, &c.goroot, &c.jsonFile, &c.linuxTar} {
		if *p == "" {
			continue
		}
		a, err := filepath.Abs(*p)
		if err != nil {
			return fmt.Errorf("path %s: %w", *p, err)
		}
		*p = a
	}
	return nil
}

// bench is the state of one run: the server binary, the corpora (prepared
// on first use) and the long-lived servers.
type bench struct {
	cfg      config
	bin      string
	stateDir string // data dir of every server of this run
	log      io.Writer

	big     *bigFile
	node    *nodeTree
	linux   *linuxTree
	servers map[string]*server // long-lived, by root
	// indexServers hold, per tree name, the servers of the content index
	// rows.
	indexServers map[string]*indexedServer
	missing      map[string]bool // peer programs not installed
	bashRSS      int64           // peak RSS of the bash row's server, bytes
	// bashReader holds the bash row's toolrpc samples and those of the
	// pipeline piped into cat, measured in the same turns.
	bashReader *Row
}

func newBench(c config, log io.Writer) (*bench, error) {
	if err := os.MkdirAll(c.cache, 0o755); err != nil {
		return nil, fmt.Errorf("cache %s: %w", c.cache, err)
	}
	if err := prepareGoTree(c.goroot); err != nil {
		return nil, err
	}
	b := &bench{cfg: c, log: log, servers: map[string]*server{}, indexServers: map[string]*indexedServer{}, missing: map[string]bool{}, bin: c.server}
	for _, sc := range scenarios() {
		for _, p := range sc.bins {
			if !b.installed(p) {
				b.missing[p] = true
			}
		}
	}
	if b.bin == "" {
		b.bin = filepath.Join(c.cache, "bin", "toolrpc")
		fmt.Fprintf(log, "building %s…\n", b.bin)
		cmd := exec.Command("go", "build", "-o", b.bin, "github.com/toolrpc/toolrpc/cmd/toolrpc")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("build server (run from inside the module): %w", err)
		}
	}
	var err error
	if b.stateDir, err = os.MkdirTemp(c.cache, "state-"); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	return b, nil
}

// installed reports whether a peer program (or, for linuxPackage, the
// kernel tarball) is there.
func (b *bench) installed(p string) bool {
	if p == linuxPackage {
		_, err := os.Stat(b.cfg.linuxTar)
		return err == nil
	}
	_, err := lookPath(p)
	return err == nil
}

// installLine is the apt-get line that installs what is missing.
func (b *bench) installLine() string {
	if b.missing[linuxPackage] {
		return installHint + " " + linuxPackage
	}
	return installHint
}

// peerReady reports whether every program the row's peer needs is installed.
func (b *bench) peerReady(r *Row) bool {
	for _, p := range r.peerBins {
		if b.missing[p] {
			return false
		}
	}
	return true
}

// missingPeers lists the missing peer programs.
func (b *bench) missingPeers() []string {
	var ps []string
	for p := range b.missing {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

func (b *bench) bigFile() (bigFile, error) {
	if b.big == nil {
		bf, err := prepareBigFile(b.cfg.cache, b.cfg.bigBytes, b.log)
		if err != nil {
			return bf, err
		}
		b.big = &bf
	}
	return *b.big, nil
}

func (b *bench) nodeTree() (nodeTree, error) {
	if b.node == nil {
		nt, err := prepareNodeTree(b.cfg.cache, b.cfg.nodePkgs, b.log)
		if err != nil {
			return nt, err
		}
		b.node = &nt
	}
	return *b.node, nil
}

// fresh starts a new server on root; the caller closes it.
func (b *bench) fresh(root string) (*server, error) {
	return startServer(serverConfig{bin: b.bin, root: root, dataDir: b.stateDir})
}

// longLived returns the run's server on root, starting it on first use.
func (b *bench) longLived(root string) (*server, error) {
	if s := b.servers[root]; s != nil {
		return s, nil
	}
	s, err := b.fresh(root)
	if err != nil {
		return nil, err
	}
	b.servers[root] = s
	return s, nil
}

// closeServers shuts the long-lived servers down and returns their peak
// RSS figures.
func (b *bench) closeServers() string {
	var parts []string
	roots := make([]string, 0, len(b.servers))
	for root := range b.servers {
		roots = append(roots, root)
	}
	sort.Strings(roots)
	for _, root := range roots {
		s := b.servers[root]
		if rss, err := statusBytes(s.pid(), "VmHWM"); err == nil {
			parts = append(parts, fmt.Sprintf("%.1f MB (root %s)", float64(rss)/(1<<20), root))
		}
		if err := s.close(); err != nil {
			fmt.Fprintf(b.log, "toolrpc-bench: close server on %s: %v\n", root, err)
		}
	}
	b.servers = map[string]*server{}
	for _, is := range b.indexServers {
		for _, s := range []*server{is.s, is.scan} {
			if s != nil {
				_ = s.close()
			}
		}
	}
	b.indexServers = map[string]*indexedServer{}
	return strings.Join(parts, ", ")
}

// cleanup closes what is left and removes the run's state dir.
func (b *bench) cleanup() {
	b.closeServers()
	if b.stateDir != "" {
		if err := os.RemoveAll(b.stateDir); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(b.log, "toolrpc-bench: %v\n", err)
		}
	}
}
