package procgroup

import (
	"strings"
	"testing"
)

// TestFindBashNamesEachPlaceOnce checks SPEC §6's Windows shell lookup:
// with no bash.exe anywhere, the error names each install place once,
// though ProgramFiles and ProgramW6432 name one directory (issue 34).
func TestFindBashNamesEachPlaceOnce(t *testing.T) {
	t.Setenv("TOOLRPC_BASH", "")
	dir := `C:\toolrpc-no-such-dir` // not t.TempDir: its RemoveAll fails under Wine 8
	t.Setenv("PATH", dir)
	t.Setenv("ProgramFiles", dir)
	t.Setenv("ProgramW6432", dir)
	_, err := findBash()
	if err == nil {
		t.Fatal("findBash found a bash.exe in an empty directory")
	}
	want := dir + `\Git\bin\bash.exe`
	if n := strings.Count(err.Error(), want); n != 1 {
		t.Fatalf("the error names %s %d times: %v", want, n, err)
	}
}
