package rope

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// check compares t with want in every way a Text can be read.
func check(t *testing.T, want []byte, got Text) {
	t.Helper()
	if !bytes.Equal(want, got.Bytes()) {
		t.Fatalf("text = %q, want %q", got.Bytes(), want)
	}
	if got.Len() != len(want) || got.Lines() != bytes.Count(want, nl) {
		t.Fatalf("Len, Lines = %d, %d; want %d, %d", got.Len(), got.Lines(), len(want), bytes.Count(want, nl))
	}
	for _, o := range []int{0, len(want) / 2, len(want), len(want) + 1} {
		if w, g := bytes.Count(want[:min(o, len(want))], nl), got.LinesBefore(o); w != g {
			t.Fatalf("LinesBefore(%d) = %d, want %d", o, g, w)
		}
	}
	off := 0
	for line := 0; ; line++ {
		s, ok := got.LineStart(line)
		if !ok {
			if off != -1 {
				t.Fatalf("LineStart(%d) not found, want %d", line, off)
			}
			break
		}
		if s != off {
			t.Fatalf("LineStart(%d) = %d, want %d", line, s, off)
		}
		i := bytes.IndexByte(want[off:], '\n')
		if i < 0 {
			off = -1
		} else {
			off += i + 1
		}
	}
}

func TestReplaceMatchesSlices(t *testing.T) {
	defer func(n int) { maxLeaf = n }(maxLeaf)
	maxLeaf = 3
	r := rand.New(rand.NewPCG(1, 2))
	want := []byte("one\ntwo\nthree\n")
	got := New(want)
	check(t, want, got)
	for i := 0; i < 2000; i++ {
		s := r.IntN(len(want) + 1)
		e := s + r.IntN(len(want)-s+1)
		with := []byte("x\nyz"[:r.IntN(5)])
		old := got
		oldWant := append([]byte(nil), want...)
		want = append(append(append([]byte(nil), want[:s]...), with...), want[e:]...)
		got = got.Replace(s, e, with)
		check(t, want, got)
		check(t, oldWant, old) // a snapshot never changes
		if sl := got.Slice(s, s+len(with)); !bytes.Equal(sl, with) {
			t.Fatalf("Slice = %q, want %q", sl, with)
		}
	}
}

func FuzzReplace(f *testing.F) {
	f.Add([]byte("a\nb\nc"), []byte{0, 1, 2, 3, 4, 5})
	f.Fuzz(func(t *testing.T, init, ops []byte) {
		defer func(n int) { maxLeaf = n }(maxLeaf)
		maxLeaf = 2
		want := append([]byte(nil), init...)
		got := New(init)
		for len(ops) >= 3 {
			s := int(ops[0]) % (len(want) + 1)
			e := s + int(ops[1])%(len(want)-s+1)
			with := bytes.Repeat([]byte{'\n', 'q'}[ops[2]%2:], int(ops[2]%4))
			ops = ops[3:]
			want = append(append(append([]byte(nil), want[:s]...), with...), want[e:]...)
			got = got.Replace(s, e, with)
		}
		check(t, want, got)
	})
}
