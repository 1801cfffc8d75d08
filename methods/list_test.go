package methods

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
)

// numberPattern finds the numbers a description states ("16384", "21,600", "96KB").
var numberPattern = regexp.MustCompile(`\d[\d,]*`)

// limitValues are the constants a description may state, in every form it
// may state them: as is, and byte sizes in KB.
func limitValues() map[int64]string {
	named := map[string]int64{
		"SearchBudgetBytes": limits.SearchBudgetBytes, "SearchBudgetLines": limits.SearchBudgetLines,
		"ShellBudgetBytes": limits.ShellBudgetBytes, "ShellBudgetLines": limits.ShellBudgetLines,
		"ShellErrBudgetBytes": limits.ShellErrBudgetBytes, "ShellErrBudgetLines": limits.ShellErrBudgetLines,
		"MaxLineChars": limits.MaxLineChars, "ReadDefaultLimit": limits.ReadDefaultLimit, "ReadMaxLimit": limits.ReadMaxLimit,
		"GrepDefaultHeadLimit": limits.GrepDefaultHeadLimit, "GlobDefaultLimit": limits.GlobDefaultLimit, "GlobMaxLimit": limits.GlobMaxLimit,
		"CaptureMaxBytes": limits.CaptureMaxBytes, "CaptureMaxLines": limits.CaptureMaxLines, "SpillMaxBytes": limits.SpillMaxBytes,
		"BashDefaultTimeoutSeconds": limits.BashDefaultTimeoutSeconds, "BashMinTimeoutSeconds": limits.BashMinTimeoutSeconds,
		"BashMaxTimeoutSeconds": limits.BashMaxTimeoutSeconds, "StreamFullBytes": limits.StreamFullBytes,
		"StreamThrottledChunksPerSecond": limits.StreamThrottledChunksPerSecond,
		"EditMaxBytes":                   limits.EditMaxBytes, "EditMaxOps": limits.EditMaxOps, "EditContextLines": limits.EditContextLines,
		"SniffBytes": limits.SniffBytes, "BinaryNonPrintablePercent": limits.BinaryNonPrintablePercent,
		"GlobMaxBraceGroups": limits.GlobMaxBraceGroups, "IgnoredCountEntries": limits.IgnoredCountEntries,
		"ShellSessionsMax": limits.ShellSessionsMax,
		"ProcessMaxLive":   limits.ProcessMaxLive, "ProcessMaxExited": limits.ProcessMaxExited,
		"ProcessLogKeepBytes": limits.ProcessLogKeepBytes, "ProcessWriteMaxBytes": limits.ProcessWriteMaxBytes,
		"ProcessDefaultCols": limits.ProcessDefaultCols, "ProcessDefaultRows": limits.ProcessDefaultRows,
		"ProcessMinCols": limits.ProcessMinCols, "ProcessMaxCols": limits.ProcessMaxCols,
		"ProcessMinRows": limits.ProcessMinRows, "ProcessMaxRows": limits.ProcessMaxRows,
		"ProcessDefaultIdleMs": limits.ProcessDefaultIdleMs, "ProcessMinIdleMs": limits.ProcessMinIdleMs, "ProcessMaxIdleMs": limits.ProcessMaxIdleMs,
		"ProcessDefaultTimeoutMs": limits.ProcessDefaultTimeoutMs, "ProcessMaxTimeoutMs": limits.ProcessMaxTimeoutMs,
		"ProcessDefaultGraceMs": limits.ProcessDefaultGraceMs, "ProcessMaxGraceMs": limits.ProcessMaxGraceMs,
	}
	out := map[int64]string{}
	for name, v := range named {
		out[v] = name
		if v%limits.KB == 0 && strings.HasSuffix(name, "Bytes") {
			out[v/limits.KB] = name + "/KB"
		}
		if v%limits.MiB == 0 && strings.HasSuffix(name, "Bytes") {
			out[v/limits.MiB] = name + "/MiB"
		}
	}
	return out
}

// proseNumbers are numerals descriptions use that are not limits: the
// insert-before-first position and the tag's hex width.
var proseNumbers = map[int64]bool{0: true, 4: true}

func TestToolDescriptionsStateOnlyLimits(t *testing.T) {
	allowed := limitValues()
	for _, tool := range List() {
		t.Run(tool.Name, func(t *testing.T) {
			desc := strings.NewReplacer("CRC-32C", "", "UTF-8", "", "RE2", "", "U+FFFD", "").Replace(tool.Description)
			for _, m := range numberPattern.FindAllString(desc, -1) {
				n, err := strconv.ParseInt(strings.ReplaceAll(m, ",", ""), 10, 64)
				require.NoError(t, err)
				if proseNumbers[n] {
					continue
				}
				_, ok := allowed[n]
				require.True(t, ok, "%s states %s, which is no limits constant", tool.Name, m)
			}
		})
	}
}

func TestToolDescriptionsStateTheirLimits(t *testing.T) {
	kb := func(n int) string { return strconv.Itoa(n / limits.KB) }
	want := map[string][]string{
		"tools/read": {strconv.Itoa(limits.ReadDefaultLimit), strconv.Itoa(limits.ReadMaxLimit),
			strconv.Itoa(limits.MaxLineChars), kb(limits.SearchBudgetBytes)},
		"tools/grep": {strconv.Itoa(limits.IgnoredCountEntries), strconv.Itoa(limits.GrepDefaultHeadLimit), strconv.Itoa(limits.MaxLineChars),
			kb(limits.SearchBudgetBytes), strconv.Itoa(limits.SearchBudgetLines)},
		"tools/glob": {strconv.Itoa(limits.IgnoredCountEntries), strconv.Itoa(limits.GlobDefaultLimit), strconv.Itoa(limits.GlobMaxLimit), kb(limits.SearchBudgetBytes)},
		"tools/bash": {strconv.Itoa(limits.BashDefaultTimeoutSeconds), strconv.Itoa(limits.BashMaxTimeoutSeconds),
			strconv.Itoa(limits.ShellBudgetLines), kb(limits.ShellBudgetBytes), kb(limits.CaptureMaxBytes)},
		"tools/edit": {strconv.Itoa(limits.EditMaxOps), strconv.Itoa(limits.EditMaxBytes), strconv.Itoa(limits.MaxLineChars)},
		"tools/process/start": {strconv.Itoa(limits.ProcessMaxLive), strconv.Itoa(limits.ProcessMaxExited),
			strconv.Itoa(limits.ProcessLogKeepBytes / limits.MiB), kb(limits.ShellBudgetBytes)},
		"tools/process/list": {strconv.Itoa(limits.ProcessMaxLive), strconv.Itoa(limits.ProcessMaxExited)},
	}
	listed := map[string]string{}
	for _, tool := range List() {
		listed[tool.Name] = tool.Description
	}
	for name, nums := range want {
		desc, ok := listed[name]
		require.True(t, ok, "%s is not listed", name)
		got := map[string]bool{}
		for _, m := range numberPattern.FindAllString(desc, -1) {
			got[strings.ReplaceAll(m, ",", "")] = true
		}
		for _, n := range nums {
			require.True(t, got[n], "%s description does not state %s: %q", name, n, desc)
		}
	}
}

// mustLookup returns the method called name, or panics.
func mustLookup(name string) Method {
	m, ok := Lookup(name)
	if !ok {
		panic("no method " + name)
	}
	return m
}

func TestAllIsTheOneSortedList(t *testing.T) {
	all := All()
	own := 0
	for _, m := range all {
		if m.Family == "" {
			own++
		}
	}
	require.Equal(t, 15, own, "toolrpc's own methods")
	for i, m := range all {
		got, ok := Lookup(m.Name)
		require.True(t, ok, m.Name)
		require.Equal(t, m.Name, got.Name)
		require.NotNil(t, m.Call, m.Name)
		if i > 0 {
			require.Less(t, all[i-1].Name, m.Name)
		}
	}
	_, ok := Lookup("tools/nope")
	require.False(t, ok)
	all[0].Name = "changed"
	require.NotEqual(t, "changed", All()[0].Name, "All returns a copy")
}
