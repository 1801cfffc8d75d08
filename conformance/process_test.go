package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// The tests of SPEC §13 (processes), one per bullet, each run in LSP and MCP
// mode (and, through TestRemote_SuiteOverSSH, over ssh).

// procReply is ProcessReply (and ProcessInfo) of SPEC §13.
type procReply struct {
	ID       string `json:"id"`
	Pid      int    `json:"pid"`
	Mode     string `json:"mode"`
	State    string `json:"state"`
	Reason   string `json:"reason"`
	ExitCode *int   `json:"exitCode"`
	Signal   string `json:"signal"`
	Prompt   *struct {
		Text string `json:"text"`
		Echo bool   `json:"echo"`
	} `json:"prompt"`
	Ports             []int  `json:"ports"`
	Matched           string `json:"matched"`
	Output            string `json:"output"`
	Cursor            struct{ From, To int64 }
	Truncated         bool   `json:"truncated"`
	OmittedBytes      int64  `json:"omittedBytes"`
	Log               string `json:"log"`
	DescendantsKilled int    `json:"descendantsKilled"`
	Processes         []procReply
}

// procFace is one server face the process tools are called through.
type procFace struct {
	name string
	root string
	// call calls tool ("start", "read", …) and returns its reply or error.
	call func(t *testing.T, tool string, args map[string]any) (procReply, *rpcError)
	// texts returns the MCP text blocks of the last call (nil in LSP mode).
	texts func() []string
	lsp   *server
}

// ok calls tool and requires success.
func (f procFace) ok(t *testing.T, tool string, args map[string]any) procReply {
	t.Helper()
	r, e := f.call(t, tool, args)
	require.Nil(t, e, "%s %s: %v", f.name, tool, e)
	return r
}

// fails calls tool and requires an error of kind.
func (f procFace) fails(t *testing.T, kind, tool string, args map[string]any) *rpcError {
	t.Helper()
	_, e := f.call(t, tool, args)
	require.NotNil(t, e, "%s %s: want %s", f.name, tool, kind)
	require.Equal(t, kind, e.Kind, e.Message)
	return e
}

// onFaces runs f once against an LSP server and once against an MCP one.
func onFaces(t *testing.T, f func(t *testing.T, face procFace), opts ...option) {
	t.Run("lsp", func(t *testing.T) {
		s := start(t, opts...)
		face := procFace{name: "lsp", root: s.Root, lsp: s, texts: func() []string { return nil }}
		face.call = func(t *testing.T, tool string, args map[string]any) (procReply, *rpcError) {
			raw, e := s.request(t, "tools/process/"+tool, args)
			if e != nil {
				return procReply{}, e
			}
			return decode[procReply](t, raw), nil
		}
		f(t, face)
	})
	t.Run("mcp", func(t *testing.T) {
		s := mcpStart(t, mcpOptions{})
		var last []string
		face := procFace{name: "mcp", root: s.Dir, texts: func() []string { return last }}
		face.call = func(t *testing.T, tool string, args map[string]any) (procReply, *rpcError) {
			res, sc := s.callTool(t, "process_"+tool, args, nil)
			last = nil
			for _, c := range res.Content {
				last = append(last, textOf(c))
			}
			if res.IsError {
				_, e := decodeToolErr(t, sc)
				return procReply{}, e
			}
			return decode[procReply](t, sc), nil
		}
		f(t, face)
	})
}

// decodeToolErr reads an isError result's structuredContent.
func decodeToolErr(t *testing.T, sc json.RawMessage) (json.RawMessage, *rpcError) {
	var e rpcError
	require.NoError(t, json.Unmarshal(sc, &e))
	var d struct {
		Code string `json:"code"`
	}
	require.NoError(t, json.Unmarshal(e.Data, &d))
	e.Kind = d.Code
	return sc, &e
}

// wait builds a wait object.
func wait(timeoutMs int, until ...string) map[string]any {
	return map[string]any{"until": until, "timeoutMs": timeoutMs}
}

// longWait bounds a wait that must end on an event: a backstop for a loaded
// machine, not a timing assertion.
const longWait = 30000

// TestProcess_Tools (SPEC §13, §1): tools/list and the MCP tool list carry
// the five process tools, their descriptions stating the limits and when to
// prefer a process over bash.
func TestProcess_Tools(t *testing.T) {
	s := start(t)
	var tools []struct {
		Name, Description string
	}
	require.NoError(t, json.Unmarshal(s.call(t, "tools/list", nil), &tools))
	got := map[string]string{}
	for _, tl := range tools {
		got[tl.Name] = tl.Description
	}
	for _, n := range []string{"start", "read", "write", "signal", "list"} {
		d, ok := got["tools/process/"+n]
		require.True(t, ok, "tools/process/%s listed", n)
		require.NotEmpty(t, d)
	}
	require.Contains(t, got["tools/process/start"], "At most 32 live processes per session; 100 exited ones are kept")
	require.Contains(t, got["tools/process/start"], "instead of tools/bash")
	m := mcpStart(t, mcpOptions{})
	for _, n := range []string{"start", "read", "write", "signal", "list"} {
		tl, ok := m.tools["process_"+n]
		require.True(t, ok, "MCP tool process_%s", n)
		require.NotContains(t, tl.Description, "tools/", "MCP descriptions name MCP tools")
		if n == "start" {
			require.Contains(t, tl.Description, "At most 32 live processes per session; 100 exited ones are kept")
			require.Contains(t, tl.Description, "instead of bash")
		}
	}
}

// TestProcess_WaitTimeoutKeepsRunning (SPEC §13): a wait that times out
// answers reason timeout and the process keeps running.
func TestProcess_WaitTimeoutKeepsRunning(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		r := f.ok(t, "start", map[string]any{"command": "echo up; sleep 60", "wait": wait(300, "exit")})
		require.Equal(t, "timeout", r.Reason)
		require.Equal(t, "running", r.State)
		require.Nil(t, r.ExitCode)
		require.Equal(t, "up\n", r.Output)
		l := f.ok(t, "list", map[string]any{})
		require.Len(t, l.Processes, 1)
		require.Equal(t, "running", l.Processes[0].State)
		r = f.ok(t, "read", map[string]any{"id": r.ID, "wait": wait(0)})
		require.Equal(t, "timeout", r.Reason)
		require.Equal(t, "", r.Output, "the default since is where the last reply ended")
	})
}

// TestProcess_ExitFromWaitpid (SPEC §13.1 exit): `cmd & exit` answers on the
// shell's exit although the background child holds the output pipe; the
// child is killed and counted.
func TestProcess_ExitFromWaitpid(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		began := time.Now()
		r := f.ok(t, "start", map[string]any{"command": "sleep 300 & echo bg; exit 7", "wait": wait(longWait, "exit")})
		t.Logf("%s: exit answered after %v", f.name, time.Since(began).Round(time.Millisecond))
		require.Equal(t, "exit", r.Reason)
		require.Equal(t, "exited", r.State)
		require.Equal(t, 7, *r.ExitCode)
		require.Equal(t, 1, r.DescendantsKilled)
		require.Equal(t, "bg\n", r.Output)
	})
}

// TestProcess_InputDetected (SPEC §13.1 input): a prompt is reported as
// awaitingInput with its text, in pipe and pty mode; answering it goes on.
func TestProcess_InputDetected(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		for _, tc := range []struct{ mode, cmd, prompt, answer string }{
			{"pty", `read -p 'Name? ' n; echo "hi $n"`, "Name? ", "bob\n"},
			{"pipe", `python3 -c 'print("hi " + input("> "))'`, "> ", "bob\n"},
			// A REPL on a pipe: node polls its stdin through epoll.
			{"pipe", `node -i`, "> ", "console.log('hi ' + 'bob')\n.exit\n"},
		} {
			r := f.ok(t, "start", map[string]any{"command": tc.cmd, "mode": tc.mode, "wait": wait(longWait, "input", "exit")})
			require.Equal(t, "input", r.Reason, tc.cmd)
			require.Equal(t, "awaitingInput", r.State)
			require.NotNil(t, r.Prompt)
			require.Equal(t, tc.prompt, r.Prompt.Text)
			require.True(t, r.Prompt.Echo)
			if f.name == "mcp" {
				texts := f.texts()
				require.Len(t, texts, 2)
				require.Contains(t, texts[0], "awaitingInput, reason input")
				require.Contains(t, texts[0], fmt.Sprintf("prompt: %q", tc.prompt))
				require.True(t, strings.HasSuffix(texts[1], tc.prompt), texts[1]) // node prints a banner first
			}
			r = f.ok(t, "write", map[string]any{"id": r.ID, "keys": []string{}, "data": tc.answer, "wait": wait(longWait, "exit")})
			require.Equal(t, "exit", r.Reason)
			require.Contains(t, r.Output, "hi bob\n")
		}
	})
}

// TestProcess_InputEchoOff (SPEC §13.1 prompt.echo): a passphrase prompt
// (ssh-keygen on a pty) reports echo false.
func TestProcess_InputEchoOff(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		r := f.ok(t, "start", map[string]any{"command": "ssh-keygen -q -t ed25519 -f key", "mode": "pty", "wait": wait(longWait, "input", "exit")})
		require.Equal(t, "input", r.Reason)
		require.NotNil(t, r.Prompt)
		require.Contains(t, r.Prompt.Text, "passphrase")
		require.False(t, r.Prompt.Echo)
	})
}

// TestProcess_NoInputWhenBusy (SPEC §13.1 input): a tree that sleeps, serves
// a socket or waits on a child is never reported as awaiting input.
func TestProcess_NoInputWhenBusy(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		for _, cmd := range []string{
			"sleep 5",
			`python3 -c 'import socket,select; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); select.select([s],[],[],10)'`,
		} {
			r := f.ok(t, "start", map[string]any{"command": cmd, "mode": "pty", "wait": wait(1500, "input", "exit")})
			require.Equal(t, "timeout", r.Reason, cmd)
			require.Equal(t, "running", r.State, cmd)
			require.Nil(t, r.Prompt)
		}
	})
}

// TestProcess_IdleEvent (SPEC §13.1 idle): no new output for idleMs.
func TestProcess_IdleEvent(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		idle := map[string]any{"until": []string{"idle"}, "idleMs": 200, "timeoutMs": longWait}
		r := f.ok(t, "start", map[string]any{"command": "echo a; sleep 60", "wait": idle})
		out := r.Output
		// A loaded machine can start the shell over 200 ms late: the tree
		// was silent that long, which is idle too; the next wait gets it.
		for tries := 0; r.Reason == "idle" && out == "" && tries < 50; tries++ {
			r = f.ok(t, "read", map[string]any{"id": r.ID, "wait": idle})
			out += r.Output
		}
		require.Equal(t, "idle", r.Reason)
		require.Equal(t, "a\n", out)
	})
}

// TestProcess_PatternEvent (SPEC §13.1 pattern): a rendered line matching
// the RE2 pattern ends the wait and is returned in matched.
func TestProcess_PatternEvent(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		r := f.ok(t, "start", map[string]any{"command": "echo starting; sleep 0.3; printf '\\033[32mready\\033[0m on :3000\\n'; sleep 60",
			"wait": map[string]any{"until": []string{"pattern"}, "pattern": `^ready on :\d+$`, "timeoutMs": longWait}})
		require.Equal(t, "pattern", r.Reason)
		require.Equal(t, "ready on :3000", r.Matched)
	})
}

// TestProcess_PortEvent (SPEC §13.1 port): a dev server is up when its tree
// listens; the reply names the port.
func TestProcess_PortEvent(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		r := f.ok(t, "start", map[string]any{"command": "python3 -m http.server 0 --bind 127.0.0.1", "wait": wait(longWait, "port", "exit")})
		require.Equal(t, "port", r.Reason)
		require.Len(t, r.Ports, 1)
		out, err := exec.Command("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", fmt.Sprintf("http://127.0.0.1:%d/", r.Ports[0])).Output()
		if err == nil {
			require.Equal(t, "200", string(out))
		}
		r = f.ok(t, "signal", map[string]any{"id": r.ID, "signal": "INT", "wait": wait(longWait, "exit")})
		require.Equal(t, "exited", r.State)
	})
}

// TestProcess_RenderedOutput (SPEC §13.2): no escape byte and no control
// byte but \n and \t; a progress bar redrawn 500 times is one line.
func TestProcess_RenderedOutput(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		bar := `b=##################################################; for i in $(seq 0 500); do printf '\r\033[36m[%-50s]\033[0m %3d%%\033[K' "${b:0:$((i/10))}" $((i/5)); done; printf '\n\033]0;title\007done\ttab\n'`
		for _, mode := range []string{"pty", "pipe"} {
			r := f.ok(t, "start", map[string]any{"command": bar, "mode": mode, "wait": wait(longWait, "exit")})
			require.Equal(t, "["+strings.Repeat("#", 50)+"] 100%\ndone\ttab\n", r.Output, mode)
			requireClean(t, r.Output)
		}
	})
}

// requireClean fails on ESC or a C0 byte other than \n and \t.
func requireClean(t *testing.T, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			t.Fatalf("control byte %#x at %d in %q", c, i, s)
		}
	}
}

// TestProcess_AlternateScreen (SPEC §13.2): a program on the alternate
// screen (less) is shown as the screen's text under "[screen 120x40]".
func TestProcess_AlternateScreen(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		require.NoError(t, os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte("alpha\nbeta\n"), 0o644))
		r := f.ok(t, "start", map[string]any{"command": "less notes.txt", "mode": "pty", "wait": wait(longWait, "input", "exit")})
		require.Equal(t, "input", r.Reason)
		require.True(t, strings.HasPrefix(r.Output, "[screen 120x40]\nalpha\nbeta\n"), "%q", r.Output)
		requireClean(t, r.Output)
		r = f.ok(t, "write", map[string]any{"id": r.ID, "data": "q", "wait": wait(longWait, "exit")})
		require.Equal(t, "exited", r.State)
	})
}

// TestProcess_PipeMergesStreams (SPEC §13.2): pipe mode merges stdout and
// stderr in arrival order.
func TestProcess_PipeMergesStreams(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		r := f.ok(t, "start", map[string]any{"command": "echo one; sleep 0.1; echo two >&2; sleep 0.1; echo three", "wait": wait(longWait, "exit")})
		require.Equal(t, "one\ntwo\nthree\n", r.Output)
	})
}

// TestProcess_CursorAccounting (SPEC §13.3): replies from the default cursor
// add up to what was produced, a range read at any cursor accounts for
// every byte (delivered + omitted = to − from), a cut names the log, and
// reads never consume.
func TestProcess_CursorAccounting(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		cmd := `for i in $(seq 1 40000); do echo "line $i of the output"; done`
		r := f.ok(t, "start", map[string]any{"command": cmd, "wait": wait(longWait, "exit")})
		produced := r.Cursor.To
		require.Greater(t, produced, int64(96*1024))
		require.True(t, r.Truncated)
		require.Contains(t, r.Output, "Full output saved to "+r.Log)
		require.Equal(t, produced-r.Cursor.From, int64(len(r.Output)-markerLen(r.Output))+r.OmittedBytes)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 5; i++ {
			since := rng.Int64N(produced)
			a := f.ok(t, "read", map[string]any{"id": r.ID, "since": since, "wait": wait(0)})
			b := f.ok(t, "read", map[string]any{"id": r.ID, "since": since, "wait": wait(0)})
			require.Equal(t, a.Output, b.Output, "reads never consume")
			require.Equal(t, since, a.Cursor.From)
			require.Equal(t, produced, a.Cursor.To)
			require.Equal(t, produced-since, int64(len(a.Output)-markerLen(a.Output))+a.OmittedBytes, "delivered + omitted = produced")
		}
		log, err := os.ReadFile(r.Log)
		require.NoError(t, err)
		require.Equal(t, produced, int64(len(log)))
	})
}

// markerLen is the length of a leading tail marker line of out, or 0.
func markerLen(out string) int {
	n := 0
	for _, prefix := range []string{"[omitted: ", "[truncated: "} {
		if strings.HasPrefix(out[n:], prefix) {
			n += strings.IndexByte(out[n:], '\n') + 1
		}
	}
	return n
}

// TestProcess_LogKeepsTail (SPEC §13.3): past 64 MiB the log drops its head;
// a since before what it holds starts at the oldest byte held and says so.
func TestProcess_LogKeepsTail(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MB")
	}
	onFaces(t, func(t *testing.T, f procFace) {
		r := f.ok(t, "start", map[string]any{"command": "yes 0123456789012345678901234567890123456789012345678 | head -c 104857600",
			"wait": wait(120000, "exit")})
		require.Equal(t, "exit", r.Reason)
		require.Equal(t, int64(100<<20), r.Cursor.To)
		r = f.ok(t, "read", map[string]any{"id": r.ID, "since": 0, "tailLines": 2, "wait": wait(0)})
		require.True(t, strings.HasPrefix(r.Output, "[omitted: "), r.Output[:min(len(r.Output), 200)])
		require.Contains(t, r.Output, "the log keeps the last 64 MB.]\n")
		require.Equal(t, int64(100<<20), int64(len(r.Output)-markerLen(r.Output))+r.OmittedBytes)
		fi, err := os.Stat(r.Log)
		require.NoError(t, err)
		require.GreaterOrEqual(t, fi.Size(), int64(64<<20))
		require.Less(t, fi.Size(), int64(100<<20))
	})
}

// TestProcess_LiveLimit (SPEC §13.4): a 33rd live process is refused with
// INVALID_ARGUMENT naming the live ones.
func TestProcess_LiveLimit(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		for i := 0; i < 32; i++ {
			f.ok(t, "start", map[string]any{"command": "sleep 300", "label": fmt.Sprintf("s%d", i), "wait": wait(0)})
		}
		e := f.fails(t, "INVALID_ARGUMENT", "start", map[string]any{"command": "sleep 300", "wait": wait(0)})
		require.Contains(t, e.Message, "p1 (s0)")
		require.Contains(t, e.Message, "p32 (s31)")
		f.ok(t, "signal", map[string]any{"id": "p5", "signal": "KILL"})
		f.ok(t, "start", map[string]any{"command": "true", "wait": wait(0)})
	})
}

// TestProcess_ConcurrentStartLimit checks SPEC §13.4: 40 tools/process/start
// calls written in one write, so the server handles them concurrently, start
// exactly limits.ProcessMaxLive (32) processes; the other 8 fail with
// INVALID_ARGUMENT naming the live ones. Both /proc and tools/process/list
// count 32 live processes.
func TestProcess_ConcurrentStartLimit(t *testing.T) {
	linuxOnly(t, "counts live processes in /proc")
	const n, maxLive = 40, 32
	s := start(t)
	mark := loadMark(t)
	kv := strings.SplitN(mark, "=", 2)
	var batch []byte
	ids := make([]json.RawMessage, n)
	s.mu.Lock()
	for i := range ids {
		s.nextID++
		ids[i] = json.RawMessage(strconv.Itoa(s.nextID))
		s.methods[compact(ids[i])] = "tools/process/start"
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ids[i], "method": "tools/process/start",
			"params": map[string]any{"command": "exec sleep 300", "label": fmt.Sprintf("c%d", i),
				"env": map[string]string{kv[0]: kv[1]}, "wait": wait(0)}})
		require.NoError(t, err)
		batch = append(batch, rawFrame(string(b))...)
	}
	s.mu.Unlock()
	s.writeRaw(batch)
	started, refused := 0, 0
	for _, id := range ids {
		f := s.wait(t, id)
		if f.Error == nil {
			started++
			continue
		}
		refused++
		require.Equal(t, "INVALID_ARGUMENT", f.Error.Kind, f.Error.Message)
		require.Contains(t, f.Error.Message, "32 processes are live")
		require.Regexp(t, `p\d+ \(c\d+\)`, f.Error.Message, "the refusal names the live processes")
	}
	require.Equal(t, maxLive, started, "starts that succeeded")
	require.Equal(t, n-maxLive, refused, "starts refused")
	var l procReply
	require.NoError(t, json.Unmarshal(s.call(t, "tools/process/list", map[string]any{}), &l))
	running := 0
	for _, p := range l.Processes {
		if p.State != "exited" {
			running++
		}
	}
	require.Equal(t, maxLive, running, "live processes in tools/process/list")
	require.Len(t, marked(mark), maxLive, "live processes in /proc")
}

// TestProcess_ExitedKept (SPEC §13.4): 100 exited processes are kept; the
// oldest is dropped past that.
func TestProcess_ExitedKept(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		for i := 0; i < 101; i++ {
			f.ok(t, "start", map[string]any{"command": "exit 0", "wait": wait(longWait, "exit")})
		}
		l := f.ok(t, "list", map[string]any{})
		require.Len(t, l.Processes, 100)
		require.Equal(t, "p2", l.Processes[0].ID)
		f.fails(t, "NOT_FOUND", "read", map[string]any{"id": "p1"})
		r := f.ok(t, "read", map[string]any{"id": "p2", "wait": wait(0)})
		require.Equal(t, 0, *r.ExitCode)
	})
}

// escapers is a tree whose members try every way out of a process group.
const escapers = "setsid sleep 301 & nohup sleep 302 >/dev/null 2>&1 & (sleep 303 &) ; sleep 304 & disown; echo ok; sleep 305"

// startEscapers starts escapers marked, and waits until all six sleeps run.
func startEscapers(t *testing.T, f procFace, mark string) {
	kv := strings.SplitN(mark, "=", 2)
	f.ok(t, "start", map[string]any{"command": escapers, "env": map[string]string{kv[0]: kv[1]}, "mode": "pty",
		"wait": map[string]any{"until": []string{"pattern"}, "pattern": "^ok$", "timeoutMs": longWait}})
	eventually(t, "the escapers run", func() (bool, string) {
		n := 0
		for _, p := range marked(mark) {
			if strings.HasPrefix(p.cmdline, "sleep") {
				n++
			}
		}
		return n == 5, fmt.Sprint(marked(mark))
	})
}

// TestProcess_ShutdownKillsAll (SPEC §13.4): shutdown and stdin EOF leave
// no process of the session, however it left its group.
func TestProcess_ShutdownKillsAll(t *testing.T) {
	for _, how := range []string{"shutdown", "eof"} {
		t.Run(how, func(t *testing.T) {
			s := start(t)
			f := procFace{name: "lsp", lsp: s, call: func(t *testing.T, tool string, args map[string]any) (procReply, *rpcError) {
				raw, e := s.request(t, "tools/process/"+tool, args)
				if e != nil {
					return procReply{}, e
				}
				return decode[procReply](t, raw), nil
			}}
			mark := loadMark(t)
			startEscapers(t, f, mark)
			began := time.Now()
			if how == "shutdown" {
				s.call(t, "shutdown", nil)
			}
			require.NoError(t, s.stdin.Close())
			s.waitExit(t)
			require.Empty(t, liveMarked(mark), "survivors after %s", how)
			t.Logf("%s: server gone, no survivor, after %v", how, time.Since(began).Round(time.Millisecond))
		})
	}
	t.Run("mcp eof", func(t *testing.T) {
		m := mcpStart(t, mcpOptions{})
		f := procFace{name: "mcp", call: func(t *testing.T, tool string, args map[string]any) (procReply, *rpcError) {
			_, sc := m.ok(t, "process_"+tool, args)
			return decode[procReply](t, sc), nil
		}}
		mark := loadMark(t)
		startEscapers(t, f, mark)
		m.closeAndWait(t)
		require.Empty(t, liveMarked(mark))
	})
}

// liveMarked lists the live processes carrying mark.
func liveMarked(mark string) []proc {
	var out []proc
	for _, p := range marked(mark) {
		if alive(p.pid) {
			out = append(out, p)
		}
	}
	return out
}

// TestProcess_ServerSIGKILLKillsAll (SPEC §13.4, §1): the server's SIGKILL
// leaves no process of the session (the guardian kills them).
func TestProcess_ServerSIGKILLKillsAll(t *testing.T) {
	s := start(t)
	f := procFace{name: "lsp", lsp: s, call: func(t *testing.T, tool string, args map[string]any) (procReply, *rpcError) {
		raw, e := s.request(t, "tools/process/"+tool, args)
		if e != nil {
			return procReply{}, e
		}
		return decode[procReply](t, raw), nil
	}}
	mark := loadMark(t)
	startEscapers(t, f, mark)
	killed := time.Now()
	p, err := os.FindProcess(s.pid())
	require.NoError(t, err)
	require.NoError(t, p.Kill())
	d := untilNoneMarked(t, mark, killed)
	t.Logf("no survivor %v after the server's SIGKILL", d.Round(time.Millisecond))
}

// TestProcess_CancelledStartKills (SPEC §13.4): a start cancelled before it
// answers kills its process.
func TestProcess_CancelledStartKills(t *testing.T) {
	s := start(t)
	mark := loadMark(t)
	kv := strings.SplitN(mark, "=", 2)
	id := s.send(t, "tools/process/start", map[string]any{"command": "echo go; sleep 300", "env": map[string]string{kv[0]: kv[1]},
		"wait": wait(longWait, "exit")})
	eventually(t, "the process runs", func() (bool, string) { return len(liveMarked(mark)) >= 1, "" })
	s.notify(t, "$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
	fr := s.wait(t, id)
	require.NotNil(t, fr.Error)
	require.EqualValues(t, -32800, fr.Error.Code)
	eventually(t, "the process is killed", func() (bool, string) { m := liveMarked(mark); return len(m) == 0, fmt.Sprint(m) })
	var l procReply
	require.NoError(t, json.Unmarshal(s.call(t, "tools/process/list", map[string]any{}), &l))
	require.Empty(t, l.Processes)
}

// TestProcess_SignalEscalates (SPEC §13.4, §13): TERM to a process that
// traps it is followed by KILL after graceMs; the reply comes once the tree
// is dead.
func TestProcess_SignalEscalates(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		r := f.ok(t, "start", map[string]any{"command": `trap 'echo trapped' TERM; echo ready; while :; do sleep 0.1; done`,
			"wait": map[string]any{"until": []string{"pattern"}, "pattern": "^ready$", "timeoutMs": longWait}})
		r = f.ok(t, "signal", map[string]any{"id": r.ID, "signal": "TERM", "graceMs": 300})
		require.Equal(t, "signal", r.Reason)
		require.Equal(t, "exited", r.State)
		require.Equal(t, "SIGKILL", r.Signal)
		require.Contains(t, r.Output, "trapped")
	})
}

// TestProcess_StdinEOF (SPEC §13.4): eof closes a pipe process's stdin; a
// later write is INVALID_ARGUMENT.
func TestProcess_StdinEOF(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		r := f.ok(t, "start", map[string]any{"command": "sort; sleep 60", "wait": wait(longWait, "input")})
		require.Equal(t, "input", r.Reason)
		r = f.ok(t, "write", map[string]any{"id": r.ID, "data": "b\na\n", "eof": true,
			"wait": map[string]any{"until": []string{"pattern"}, "pattern": "^b$", "timeoutMs": longWait}})
		require.Equal(t, "a\nb\n", r.Output)
		f.fails(t, "INVALID_ARGUMENT", "write", map[string]any{"id": r.ID, "data": "c\n"})
	})
}

// TestProcess_BadInput (SPEC §13.4, §10): each bad request gets a clear
// error that names the tool called (never bash's), and the process and the
// server keep going.
func TestProcess_BadInput(t *testing.T) {
	onFaces(t, func(t *testing.T, f procFace) {
		r := f.ok(t, "start", map[string]any{"command": "cat", "wait": wait(0)})
		done := f.ok(t, "start", map[string]any{"command": "true", "wait": wait(longWait, "exit")})
		for _, tc := range []struct {
			kind, tool string
			args       map[string]any
		}{
			{"NOT_FOUND", "read", map[string]any{"id": "p99"}},
			{"NOT_FOUND", "signal", map[string]any{"id": "nope", "signal": "INT"}},
			{"INVALID_ARGUMENT", "write", map[string]any{"id": done.ID, "data": "x"}},
			{"INVALID_ARGUMENT", "write", map[string]any{"id": r.ID, "keys": []string{"Hyper-x"}}},
			{"INVALID_ARGUMENT", "start", map[string]any{"command": "true", "cols": 0}},
			{"INVALID_ARGUMENT", "start", map[string]any{"command": "true", "mode": "tty"}},
			{"INVALID_ARGUMENT", "write", map[string]any{"id": r.ID, "data": tenMB()}}, // one frame, 40× the write cap, under the 64 MiB frame cap
			{"INVALID_ARGUMENT", "read", map[string]any{"id": r.ID, "wait": map[string]any{"until": []string{"pattern"}, "pattern": "(?<=x)"}}},
			{"INVALID_ARGUMENT", "read", map[string]any{"id": r.ID, "wait": map[string]any{"timeoutMs": 1e9}}},
			{"INVALID_ARGUMENT", "read", map[string]any{"id": r.ID, "since": 1 << 40}},
			{"INVALID_ARGUMENT", "signal", map[string]any{"id": r.ID, "signal": "USR1"}},
			{"INVALID_ARGUMENT", "start", map[string]any{"command": ""}},
		} {
			f.fails(t, tc.kind, tc.tool, tc.args)
		}
		for _, tc := range []struct {
			kind, tool string
			args       map[string]any
			says       string
		}{
			{"PERMISSION_DENIED", "start", map[string]any{"command": "true", "cwd": ".."}, "process/start: cwd"},
			{"NOT_FOUND", "start", map[string]any{"command": "true", "cwd": "gone"}, "process/start: cwd"},
			{"INVALID_ARGUMENT", "start", map[string]any{"command": "true", "env": map[string]string{"A=B": "x"}}, "process/start: env"},
			{"INVALID_ARGUMENT", "read", map[string]any{"id": r.ID, "wait": map[string]any{"until": []string{"never"}}},
				"is not one of exit, input, idle, pattern, port"},
		} {
			e := f.fails(t, tc.kind, tc.tool, tc.args)
			require.Contains(t, e.Message, tc.says, "the error names the tool called")
		}
		r = f.ok(t, "write", map[string]any{"id": r.ID, "data": "still here\n",
			"wait": map[string]any{"until": []string{"pattern"}, "pattern": "still", "timeoutMs": longWait}})
		require.Equal(t, "still here\n", r.Output)
	})
}

// tenMB is the 10 MB data of TestProcess_BadInput, built once for both faces
// when the test first asks. Not a package variable: this test binary is also
// the server under test, and every server it starts would carry the 10 MB
// (the oversized-frame tests read that server's peak RSS).
var tenMB = sync.OnceValue(func() string { return strings.Repeat("x", 10<<20) })

// textOf is the text of a content block ("" for other kinds).
func textOf(c mcp.Content) string {
	if tc, ok := c.(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}
