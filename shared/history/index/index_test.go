package index

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notesoup/notesoup/shared/history"
)

// TestCandidatesNeverMissAMatch: every document holding a case-insensitive
// match of a query (history.IndexFold, the matcher the search uses) is a
// candidate, for ASCII and non-ASCII queries, across case-fold orbits
// (Kelvin sign, long s, final sigma) and UTF-8 widths that differ within an
// orbit; and a document lacking a trigram is not.
func TestCandidatesNeverMissAMatch(t *testing.T) {
	alphabet := []string{"a", "B", "c", "é", "É", "k", "K", "\u212a", "s", "S", "\u017f", "σ", "ς", "Σ", " ", "caf", "ß", "ǅ", "ǆ", "Ǆ", "x"}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	var docs [][]string
	b := NewBuilder()
	for range 300 {
		var texts []string
		for range 1 + rng.IntN(4) {
			texts = append(texts, word(rng.IntN(40)))
		}
		docs = append(docs, texts)
		b.Add(texts...)
	}
	r, err := Open(b.Append(nil))
	if err != nil {
		t.Fatal(err)
	}
	if r.Docs() != uint32(len(docs)) {
		t.Fatalf("%d docs, want %d", r.Docs(), len(docs))
	}
	queries := []string{"café", "CAFÉ", "kks", "\u212aas", "σς", "ΣΣ", "ßa", "ǅǆ"}
	for range 400 {
		queries = append(queries, word(1+rng.IntN(5)))
	}
	found := 0
	for _, q := range queries {
		cands, all, err := r.Candidates(q)
		if err != nil {
			t.Fatal(err)
		}
		if all != (len(Fold(nil, q)) < 3) {
			t.Errorf("%q: all=%v with %d folded bytes", q, all, len(Fold(nil, q)))
		}
		for d, texts := range docs {
			match := false
			for _, tx := range texts {
				if at, _ := history.IndexFold(tx, q); at >= 0 {
					match = true
				}
			}
			if match {
				found++
			}
			if match && !all && !slices.Contains(cands, uint32(d)) {
				t.Errorf("query %q: doc %d %q matches and is no candidate", q, d, texts)
			}
		}
	}
	if found == 0 {
		t.Fatal("no query matched anything: the test proves nothing")
	}
	// A query none of whose trigrams exist has no candidates.
	if c, all, _ := r.Candidates("zzzqqq"); len(c) != 0 || all {
		t.Errorf("zzzqqq: %v %v", c, all)
	}
}

// TestFoldOrbits: runes of one simple-fold orbit fold alike.
func TestFoldOrbits(t *testing.T) {
	for _, tc := range [][2]string{{"K", "\u212a"}, {"k", "\u212a"}, {"s", "\u017f"}, {"σ", "ς"}, {"Σ", "ς"}, {"É", "é"}, {"ǅ", "Ǆ"}} {
		if a, b := string(Fold(nil, tc[0])), string(Fold(nil, tc[1])); a != b {
			t.Errorf("Fold(%q)=%q, Fold(%q)=%q", tc[0], a, tc[1], b)
		}
	}
	if string(Fold(nil, "ABC")) != "abc" {
		t.Errorf("Fold(ABC)=%q", Fold(nil, "ABC"))
	}
}

// TestOpenRejectsDamage: a truncated or altered index is ErrDamaged, never
// a panic or a wrong list read past its end.
func TestOpenRejectsDamage(t *testing.T) {
	b := NewBuilder()
	b.Add("hello world")
	b.Add("world peace")
	data := b.Append(nil)
	for cut := 0; cut < len(data); cut++ {
		r, err := Open(data[:cut])
		if err == nil {
			// A cut inside the postings is caught by the table's end.
			if _, _, err := r.Candidates("world"); err == nil {
				t.Errorf("cut at %d of %d: opened and read", cut, len(data))
			}
		} else if !errors.Is(err, ErrDamaged) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
	r, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if c, _, err := r.Candidates("WORLD"); err != nil || !slices.Equal(c, []uint32{0, 1}) {
		t.Errorf("WORLD: %v %v", c, err)
	}
	if c, _, err := r.Candidates("peace"); err != nil || !slices.Equal(c, []uint32{1}) {
		t.Errorf("peace: %v %v", c, err)
	}
	// Garbage postings: a document number beyond the count.
	bad := slices.Clone(data)
	bad[len(bad)-1] = 0x7f
	if r, err := Open(bad); err == nil {
		for _, q := range []string{"hello", "world", "peace", "ace"} {
			r.Candidates(q) // must not panic
		}
	}
}

// TestFoldAgreesWithTheOrbitWalk: the tables and the room made in advance
// fold every rune as foldRune does, and invalid bytes as U+FFFD, in both
// forms.
func TestFoldAgreesWithTheOrbitWalk(t *testing.T) {
	var want, in []byte
	for r := rune(0); r < 0x3000; r++ {
		in = utf8.AppendRune(in, r)
		want = utf8.AppendRune(want, foldRune(r))
	}
	in = append(in, 0xff, 'A', 0xc3)
	want = append(want, "\uFFFDa\uFFFD"...)
	if got := Fold([]byte("x"), string(in)); string(got) != "x"+string(want) {
		t.Errorf("Fold differs from the orbit walk")
	}
	if got := FoldBytes(nil, in); string(got) != string(want) {
		t.Errorf("FoldBytes differs from the orbit walk")
	}
	// Invalid bytes only: the folded text is three times as long.
	bad := bytes.Repeat([]byte{0xff}, 100)
	if got := FoldBytes(nil, bad); string(got) != strings.Repeat("\uFFFD", 100) {
		t.Errorf("invalid bytes: %q", got)
	}
}
