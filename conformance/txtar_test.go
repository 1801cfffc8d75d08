package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The data cases in testdata/*.txtar: frames a client sends, frames the
// server must answer with. The format is the go-sdk conformance pattern, parsed
// here (txtar is "-- name --" sections, not worth a dependency):
//
//	Guards against: <the bug this case catches>     (comment, required)
//	-- root/dir/file.txt --                          fixture written into the workspace root
//	-- root/blob.dat (quoted) --                     fixture whose content is one Go-quoted string
//	-- client --
//	initialize                  initialize + initialized on ${ROOT}, ${DATA}, session "txtar"; reply not recorded
//	{"jsonrpc":"2.0",...}       a frame: the line is the body, Content-Length added
//	frame "<Go-quoted body>"    a frame whose body is arbitrary bytes (bad JSON, bad UTF-8)
//	raw "<Go-quoted bytes>"     bytes written as they are (broken headers)
//	# comment
//	-- server --
//	{...}                       every frame the server sent, in order, normalised
//	exit N                      the server's exit status
//
// The client waits for the reply to each request (a JSON object with a method
// and a string or number id) before sending the next line, so the order of
// frames is deterministic. After the last line the client closes stdin
// (EOF = shutdown + exit), unless the last line was the exit notification.
// ${ROOT}, ${DATA} and ${SESSION} are substituted in client lines. Fixture
// mtimes are 2020-01-01 plus one minute per fixture, in file order, so the
// last fixture is the newest.
//
// Normalisation keeps what the contract fixes and hides what it does not:
// error.message becomes "<message>", a notice becomes "<notice: N N …>" (the
// numbers it names), an error's data.reason (TOOL_BINARY_CONTENT's) "<reason>",
// durationMs "<ms>", a process's pid "<pid>" and each of its ports "<port>"
// (§13: the kernel picks them), serverInfo.version "<version>",
// initialize's capabilities "<capabilities>" and sandbox "<sandbox>", the tools/list result
// "<tools>", the root and data dirs "$ROOT" and "$DATA", and a spill file's
// millisecond stamp "<ms>". Tags are kept: fixtures are fixed, so the
// CRC-32C tag is too.

var update = flag.Bool("update", false, "rewrite the -- server -- section of testdata/*.txtar from the server under test")

// txtarSessionID is the session id of the initialize directive.
const txtarSessionID = "txtar"

// txtarWait bounds the wait for one reply, so a server that never answers
// fails its case with a diff instead of hanging the suite.
var txtarWait = time.Minute

// archive is a parsed txtar file.
type archive struct {
	Comment string
	Files   []archiveFile
}

type archiveFile struct {
	Name string
	Data string
}

// sectionName reports whether line is a "-- name --" section header.
func sectionName(line string) (string, bool) {
	l := strings.TrimSuffix(line, "\n")
	if len(l) < 7 || !strings.HasPrefix(l, "-- ") || !strings.HasSuffix(l, " --") {
		return "", false
	}
	name := strings.TrimSpace(l[3 : len(l)-3])
	return name, name != ""
}

// parseArchive splits data into its comment and sections.
func parseArchive(data string) archive {
	var a archive
	var body strings.Builder
	name, inFile := "", false
	flush := func() {
		if inFile {
			a.Files = append(a.Files, archiveFile{Name: name, Data: body.String()})
		} else {
			a.Comment = body.String()
		}
		body.Reset()
	}
	for line := range strings.SplitAfterSeq(data, "\n") {
		if n, ok := sectionName(line); ok {
			flush()
			name, inFile = n, true
			continue
		}
		body.WriteString(line)
	}
	flush()
	return a
}

// format renders a; every non-empty section ends with a newline.
func (a archive) format() string {
	var b strings.Builder
	b.WriteString(fixNL(a.Comment))
	for _, f := range a.Files {
		fmt.Fprintf(&b, "-- %s --\n%s", f.Name, fixNL(f.Data))
	}
	return b.String()
}

func fixNL(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

func (a archive) file(name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return "", false
}

// clientStep is one line of a -- client -- section.
type clientStep struct {
	init  bool   // the initialize directive
	bytes []byte // what to write (the body, when framed)
	frame bool   // bytes is a body to frame with Content-Length after substitution
	wait  string // compact id of the reply to wait for, "" for none
	meth  string // method of a request or notification
}

var errNotStep = errors.New("not a client step")

// parseClientLine parses one client line; it returns errNotStep for blank
// lines and comments.
func parseClientLine(line string) (clientStep, error) {
	line = strings.TrimSpace(line)
	switch {
	case line == "" || strings.HasPrefix(line, "#"):
		return clientStep{}, errNotStep
	case line == "initialize":
		return clientStep{init: true, meth: "initialize"}, nil
	case strings.HasPrefix(line, "frame "), strings.HasPrefix(line, "raw "):
		kind, quoted, _ := strings.Cut(line, " ")
		s, err := strconv.Unquote(strings.TrimSpace(quoted))
		if err != nil {
			return clientStep{}, fmt.Errorf("parse %s line %q: %w", kind, line, err)
		}
		return clientStep{bytes: []byte(s), frame: kind == "frame"}, nil
	case strings.HasPrefix(line, "{"), strings.HasPrefix(line, "["):
		if !json.Valid([]byte(line)) {
			return clientStep{}, fmt.Errorf("parse client line %q: not JSON (use frame \"...\" for malformed bodies)", line)
		}
		st := clientStep{bytes: []byte(line), frame: true}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Method != nil {
			st.meth = *m.Method
			if id := compact(m.ID); id != "" && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
				st.wait = id
			}
		}
		return st, nil
	}
	return clientStep{}, fmt.Errorf("parse client line %q: want initialize, a JSON frame, frame \"...\" or raw \"...\"", line)
}

// lineDiff renders a line diff of want and got, "-" for want-only lines and
// "+" for got-only lines.
func lineDiff(want, got []string) string {
	n, m := len(want), len(got)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if want[i] == got[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && want[i] == got[j]:
			fmt.Fprintf(&b, "  %s\n", want[i])
			i, j = i+1, j+1
		case j >= m || (i < n && lcs[i+1][j] >= lcs[i][j+1]):
			fmt.Fprintf(&b, "- %s\n", want[i])
			i++
		default:
			fmt.Fprintf(&b, "+ %s\n", got[j])
			j++
		}
	}
	return b.String()
}

var (
	spillStamp = regexp.MustCompile(`(bash-std(?:out|err))-\d+-(\d+)\.log`)
	number     = regexp.MustCompile(`\d+`)
)

// normaliser turns frames into the stable lines of a -- server -- section.
type normaliser struct {
	paths    *strings.Replacer
	methodOf map[string]string // compact request id -> method
}

func (n *normaliser) line(f *frame) string {
	dec := json.NewDecoder(bytes.NewReader(f.Raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "!invalid " + strconv.Quote(string(f.Raw))
	}
	if m, ok := v.(map[string]any); ok {
		if e, ok := m["error"].(map[string]any); ok {
			if _, ok := e["message"].(string); ok {
				e["message"] = "<message>"
			}
			if d, ok := e["data"].(map[string]any); ok {
				if _, ok := d["reason"].(string); ok {
					d["reason"] = "<reason>"
				}
			}
		}
		if r, ok := m["result"]; ok && f.Method == "" {
			switch n.methodOf[compact(f.ID)] {
			case "tools/list":
				m["result"] = "<tools>"
			case "initialize":
				if rm, ok := r.(map[string]any); ok {
					if _, ok := rm["capabilities"]; ok {
						rm["capabilities"] = "<capabilities>"
					}
					if _, ok := rm["sandbox"]; ok {
						rm["sandbox"] = "<sandbox>" // this machine's paths and mechanisms (SPEC §14)
					}
					if si, ok := rm["serverInfo"].(map[string]any); ok {
						if _, ok := si["version"]; ok {
							si["version"] = "<version>"
						}
					}
				}
			}
		}
	}
	v = n.walk("", v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "!unencodable " + strconv.Quote(string(f.Raw))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (n *normaliser) walk(key string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = n.walk(k, e)
		}
	case []any:
		elem := ""
		if key == "ports" {
			elem = "port"
		}
		for i, e := range x {
			x[i] = n.walk(elem, e)
		}
	case json.Number:
		switch key {
		case "durationMs":
			return "<ms>"
		case "pid", "port":
			return "<" + key + ">"
		}
	case string:
		if key == "notice" {
			return "<notice: " + strings.Join(number.FindAllString(x, -1), " ") + ">"
		}
		return spillStamp.ReplaceAllString(n.paths.Replace(x), "$1-<ms>-$2.log")
	}
	return v
}

// TestTxtar runs every testdata/*.txtar case against the server; each case's
// comment names the SPEC sections it checks (§1–§13) on a "Section:" line.
func TestTxtar(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runTxtar(t, file)
		})
	}
}

func runTxtar(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	a := parseArchive(string(data))
	require.Regexp(t, `(?m)^Guards against: \S`, a.Comment, "%s: the comment must name the bug the case guards against", file)
	require.Regexp(t, `(?m)^Section: SPEC §\d`, a.Comment, "%s: the comment must name the SPEC sections the case checks", file)
	client, ok := a.file("client")
	require.True(t, ok, "%s: no -- client -- section", file)
	var steps []clientStep
	for i, line := range strings.Split(client, "\n") {
		st, err := parseClientLine(line)
		if errors.Is(err, errNotStep) {
			continue
		}
		require.NoError(t, err, "%s: client line %d", file, i+1)
		steps = append(steps, st)
	}

	root, dataDir := t.TempDir(), t.TempDir()
	mtime := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range a.Files {
		rel, ok := strings.CutPrefix(f.Name, "root/")
		if !ok {
			continue
		}
		content := f.Data
		if r, ok := strings.CutSuffix(rel, " (quoted)"); ok {
			rel = r
			content, err = strconv.Unquote(strings.TrimSpace(f.Data))
			require.NoError(t, err, "%s: fixture %s", file, f.Name)
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		mtime = mtime.Add(time.Minute)
		require.NoError(t, os.Chtimes(p, mtime, mtime))
	}

	vars := strings.NewReplacer("${ROOT}", root, "${DATA}", dataDir, "${SESSION}", txtarSessionID)
	n := &normaliser{
		paths:    strings.NewReplacer(root, "$ROOT", dataDir, "$DATA"),
		methodOf: map[string]string{},
	}
	s := start(t, withoutInitialize(), withRoot(root), withDataDir(dataDir), withSessionID(txtarSessionID))
	hidden := map[*frame]bool{} // replies to the initialize directive
	lastExit := false
	for _, st := range steps {
		if st.init {
			id := `"txtar-init"`
			s.writeMsg(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "initialize", "params": map[string]any{
				"rootUri": "file://" + root, "capabilities": map[string]any{},
				"initializationOptions": map[string]any{"dataDir": dataDir, "sessionId": txtarSessionID},
			}})
			f := s.waitTimeout(json.RawMessage(id), txtarWait)
			require.NotNil(t, f, "no reply to the initialize directive")
			require.Nil(t, f.Error, "initialize directive failed")
			hidden[f] = true
			s.notify(t, "initialized", map[string]any{})
			continue
		}
		lastExit = st.meth == "exit" && st.wait == ""
		before := len(s.frames())
		b := []byte(vars.Replace(string(st.bytes)))
		if st.frame {
			b = rawFrame(string(b))
		}
		s.writeRaw(b)
		if st.wait == "" {
			continue
		}
		n.methodOf[st.wait] = st.meth
		waitReply(s, before, st.wait)
	}
	if !lastExit {
		s.stdin.Close()
	}
	status := s.waitExit(t)

	var got []string
	for _, f := range s.frames() {
		if !hidden[f] {
			got = append(got, n.line(f))
		}
	}
	got = append(got, fmt.Sprintf("exit %d", status))

	if *update {
		out := "\n"
		if len(got) > 0 {
			out = strings.Join(got, "\n") + "\n"
		}
		i := slices.IndexFunc(a.Files, func(f archiveFile) bool { return f.Name == "server" })
		if i < 0 {
			a.Files = append(a.Files, archiveFile{Name: "server"})
			i = len(a.Files) - 1
		}
		a.Files[i].Data = out
		require.NoError(t, os.WriteFile(file, []byte(a.format()), 0o644))
		return
	}
	server, ok := a.file("server")
	require.True(t, ok, "%s: no -- server -- section (run with -update to write it)", file)
	var want []string
	for _, l := range strings.Split(server, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	if !slices.Equal(want, got) {
		t.Errorf("%s: server frames mismatch (-want +got):\n%s", file, lineDiff(want, got))
	}
}

// waitReply waits until a reply with the compact id arrives after the first
// skip frames, or txtarWait passes (the diff then shows it missing).
func waitReply(s *server, skip int, id string) {
	deadline := time.Now().Add(txtarWait)
	for time.Now().Before(deadline) {
		for _, f := range s.frames()[skip:] {
			if f.Method == "" && compact(f.ID) == id {
				return
			}
		}
		select {
		case <-s.readDone:
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// TestParseArchive is a harness self-test: it checks the suite's own machinery,
// no section of the protocol.
func TestParseArchive(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want archive
	}{
		{"empty", "", archive{}},
		{"comment only", "Guards against: x\n", archive{Comment: "Guards against: x\n"}},
		{"sections", "c\n-- client --\n{}\n-- server --\nexit 0\n", archive{Comment: "c\n", Files: []archiveFile{{"client", "{}\n"}, {"server", "exit 0\n"}}}},
		{"no final newline", "-- a --\nx", archive{Files: []archiveFile{{"a", "x"}}}},
		{"not a header", "-- --\n--a --\n-- b --", archive{Comment: "-- --\n--a --\n", Files: []archiveFile{{"b", ""}}}},
		{"name with spaces", "-- root/x y (quoted) --\n\"a\"\n", archive{Files: []archiveFile{{"root/x y (quoted)", "\"a\"\n"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, parseArchive(tc.in))
		})
	}
}

// TestParseClientLine is a harness self-test: it checks the suite's own
// machinery, no section of the protocol.
func TestParseClientLine(t *testing.T) {
	cases := []struct {
		name    string
		line    string
		want    clientStep
		wantErr error
	}{
		{"blank", "  ", clientStep{}, errNotStep},
		{"comment", "# x", clientStep{}, errNotStep},
		{"initialize", "initialize", clientStep{init: true, meth: "initialize"}, nil},
		{"request", `{"jsonrpc":"2.0","id":7,"method":"m"}`, clientStep{bytes: []byte(`{"jsonrpc":"2.0","id":7,"method":"m"}`), frame: true, wait: "7", meth: "m"}, nil},
		{"string id", `{"id":"a b","method":"m"}`, clientStep{bytes: []byte(`{"id":"a b","method":"m"}`), frame: true, wait: `"a b"`, meth: "m"}, nil},
		{"object id is not awaited", `{"id":{},"method":"m"}`, clientStep{bytes: []byte(`{"id":{},"method":"m"}`), frame: true, meth: "m"}, nil},
		{"notification", `{"method":"exit"}`, clientStep{bytes: []byte(`{"method":"exit"}`), frame: true, meth: "exit"}, nil},
		{"batch", `[{"id":1,"method":"m"}]`, clientStep{bytes: []byte(`[{"id":1,"method":"m"}]`), frame: true}, nil},
		{"frame", `frame "{\"id\":1,"`, clientStep{bytes: []byte(`{"id":1,`), frame: true}, nil},
		{"raw", `raw "Content-Length: x\r\n\r\n"`, clientStep{bytes: []byte("Content-Length: x\r\n\r\n")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseClientLine(tc.line)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, got)
		})
	}
	for _, bad := range []string{`{"id":`, `frame abc`, `raw "x`, `hello`} {
		_, err := parseClientLine(bad)
		require.Error(t, err, bad)
		require.NotErrorIs(t, err, errNotStep, bad)
	}
}

// TestLineDiff is a harness self-test: it checks the suite's own machinery, no
// section of the protocol.
func TestLineDiff(t *testing.T) {
	require.Equal(t, "  a\n- b\n+ B\n  c\n+ d\n", lineDiff([]string{"a", "b", "c"}, []string{"a", "B", "c", "d"}))
	require.Equal(t, "", lineDiff(nil, nil))
}

// TestNormaliser is a harness self-test: it checks the suite's own machinery,
// no section of the protocol.
func TestNormaliser(t *testing.T) {
	n := &normaliser{paths: strings.NewReplacer("/r", "$ROOT", "/d", "$DATA"), methodOf: map[string]string{"1": "tools/list", `"i"`: "initialize"}}
	cases := []struct {
		name, raw, want string
	}{
		{"message and big id", `{"jsonrpc":"2.0","id":18446744073709551616,"error":{"code":-32601,"message":"no <m>"}}`,
			`{"error":{"code":-32601,"message":"<message>"},"id":18446744073709551616,"jsonrpc":"2.0"}`},
		{"tools/list", `{"id":1,"result":[{"name":"x"}]}`, `{"id":1,"result":"<tools>"}`},
		{"initialize", `{"id":"i","result":{"capabilities":{"a":1},"serverInfo":{"name":"toolrpc","version":"1"},"scratchDir":"/d/scratch/s"}}`,
			`{"id":"i","result":{"capabilities":"<capabilities>","scratchDir":"$DATA/scratch/s","serverInfo":{"name":"toolrpc","version":"<version>"}}}`},
		{"volatile fields", `{"id":2,"result":{"durationMs":12,"notice":"Lines 1–2000 of 51234. Next: offset=2001.","spill":"/d/x/bash-stdout-1733100000000-3.log","path":"/r/a"}}`,
			`{"id":2,"result":{"durationMs":"<ms>","notice":"<notice: 1 2000 51234 2001>","path":"$ROOT/a","spill":"$DATA/x/bash-stdout-<ms>-3.log"}}`},
		{"process", `{"id":3,"result":{"id":"p1","pid":4242,"reason":"port","ports":[8080,41234],"log":"/d/scratch/s/process/p1.log"}}`,
			`{"id":3,"result":{"id":"p1","log":"$DATA/scratch/s/process/p1.log","pid":"<pid>","ports":["<port>","<port>"],"reason":"port"}}`},
		{"error data reason", `{"id":4,"error":{"code":-32001,"message":"m","data":{"code":"TOOL_BINARY_CONTENT","reason":"NUL byte"}}}`,
			`{"error":{"code":-32001,"data":{"code":"TOOL_BINARY_CONTENT","reason":"<reason>"},"message":"<message>"},"id":4}`},
		{"invalid", `{`, `!invalid "{"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &frame{Raw: json.RawMessage(tc.raw)}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(f.Raw, &m)
			f.ID = m.ID
			require.Equal(t, tc.want, n.line(f))
		})
	}
}

func FuzzParseArchive(f *testing.F) {
	f.Add("Guards against: x\n-- client --\ninitialize\n-- server --\nexit 0\n")
	f.Add("-- a --\nx")
	f.Add("-- --\n-- b --\n\n-- c --")
	f.Fuzz(func(t *testing.T, in string) {
		a := parseArchive(in)
		// Formatting and parsing again is stable: the archive survives -update.
		b := parseArchive(a.format())
		require.Equal(t, len(a.Files), len(b.Files))
		require.Equal(t, a.format(), b.format())
	})
}

func FuzzParseClientLine(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	f.Add(`frame "{\"id\":1,"`)
	f.Add(`raw "Content-Length: 1\r\n\r\n"`)
	f.Add(`[1,2]`)
	f.Add(`{"id":-0.5e3,"method":""}`)
	f.Fuzz(func(t *testing.T, line string) {
		st, err := parseClientLine(line)
		if err != nil {
			return
		}
		if st.wait != "" {
			require.True(t, json.Valid([]byte(st.wait)), "wait id %q", st.wait)
		}
		if !st.init {
			require.NotNil(t, st.bytes)
		}
	})
}
