package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/filekey"
)

// hasAlnumEscapeRef is the definition: any six bytes that are an escape.
func hasAlnumEscapeRef(b []byte) bool {
	for i := 0; i+6 <= len(b); i++ {
		if isAlnumEscape(b[i : i+6]) {
			return true
		}
	}
	return false
}

// TestHasAlnumEscape checks the kernel-based escape search against the
// definition at every position and alignment, inside and past the
// kernel's blocks.
func TestHasAlnumEscape(t *testing.T) {
	cases := []struct {
		esc  string
		want bool
	}{
		{`\u0041`, true}, {`\u005A`, true}, {`\u005a`, true}, {`\u007a`, true},
		{`\u0030`, true}, {`\u0039`, true}, {`\u0061`, true},
		{`\u001b`, false}, {`\u00e9`, false}, {`\u0040`, false}, {`\u005b`, false},
		{`\u007b`, false}, {`\u002f`, false}, {`\u003a`, false}, {`\u0060`, false},
		{`\u004`, false}, {`u0041`, false}, {`\x0041`, false}, {`\u1041`, false},
		{`\\u0041`, true}, // a literal backslash before "u0041": counted, only a decode
	}
	for _, c := range cases {
		for pad := 0; pad < 70; pad++ {
			for tail := 0; tail < 40; tail += 3 {
				// Backslashes in the padding make the probe stop
				// often; one at its very end would turn "u0041" into
				// an escape, so it is replaced.
				b := []byte(strings.Repeat("x\\n3", pad/4+1)[:pad] + c.esc + strings.Repeat("y", tail))
				if strings.HasSuffix(string(b[:pad]), "\\") {
					b[pad-1] = 'z'
				}
				got := hasAlnumEscape(b)
				if got != hasAlnumEscapeRef(b) || got != c.want {
					t.Fatalf("%q: hasAlnumEscape %v, definition %v, want %v", b, got, hasAlnumEscapeRef(b), c.want)
				}
			}
		}
	}
}

// TestScanAcrossChunks runs the real read loop with tiny chunks, so atoms
// and escapes fall across every chunk boundary, and checks the verdict.
func TestScanAcrossChunks(t *testing.T) {
	const filler = `{"text":"the brown fox \u001b[0m jumps"}` + "\n"
	cases := []struct {
		name, query, insert string
		want                bool
	}{
		{"atoms present", "corpus-needle-1", "CORPUS-Needle-1", true},
		{"one atom missing", "corpus-needle-1", "corpus-needl-1", false},
		{"escaped letter", "corpus-needle-1", `c\u006frpus`, true},
		{"single letter atom", "j", "J", true},
		{"two letter atom", "zq", "zQ", true},
		{"digit atom, not a control byte", "corpus 9", "corpus \x19", false},
	}
	dir := t.TempDir()
	for _, c := range cases {
		p := newPlan(c.query, nil)
		for _, chunk := range []int{newScanner(p).overlap() + 1, 16, 23, 64} {
			for at := 0; at <= len(filler); at++ {
				text := filler[:at] + c.insert + filler[at:] + filler
				if got := scanCandidate(t, filepath.Join(dir, "t.jsonl"), text, p, chunk); got != c.want {
					t.Fatalf("%s: chunk %d, insert at %d: candidate %v, want %v", c.name, chunk, at, got, c.want)
				}
			}
		}
	}
}

func TestAnchorsPickRareBytes(t *testing.T) {
	cases := []struct {
		atom   string
		o1, o2 int
	}{
		{"a", 0, 0},
		{"corpus", 3, 4}, // p and u
		{"needle", 3, 4}, // d and l
		{"jq", 0, 1},     // both rare
		{"xaaaaz", 0, 5}, // far apart
		{"e9", 0, 1},     // a digit
		{"aaaq", 0, 3},   // q, and the first of equally common bytes
	}
	for _, c := range cases {
		o1, o2 := anchors(c.atom)
		if o1 != c.o1 || o2 != c.o2 {
			t.Errorf("anchors(%q) = %d, %d, want %d, %d", c.atom, o1, o2, c.o1, c.o2)
		}
	}
}

// TestLazyScanSettles places two atoms at every pair of positions in a
// file read in small chunks, in either order and with one or the other
// missing, so the lazy scan's rescan (an atom found late, the next one
// before it) is exercised, and checks the verdict against the text.
func TestLazyScanSettles(t *testing.T) {
	const line = `{"text":"lorem ipsum \u001b[0m dolor"}` + "\n"
	filler := strings.Repeat(line, 4)
	p := newPlan("alpha-omega", nil)
	if len(p.atoms) != 2 {
		t.Fatalf("plan atoms %v", p.atoms)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	for _, chunk := range []int{16, 40} {
		for i := 0; i <= len(filler); i += 7 {
			for j := 0; j <= len(filler); j += 11 {
				for _, words := range [][2]string{{"ALPHA", "omega"}, {"omega", "Alpha"}, {"alpha", "omeg"}, {"omegA", "alph"}} {
					// words[0] at i, words[1] at j (j measured after
					// the first insertion).
					text := filler[:i] + words[0] + filler[i:]
					k := min(j, len(text))
					text = text[:k] + words[1] + text[k:]
					want := strings.Contains(strings.ToLower(text), "alpha") && strings.Contains(strings.ToLower(text), "omega")
					if got := scanCandidate(t, path, text, p, chunk); got != want {
						t.Fatalf("chunk %d, %q at %d and %q at %d: candidate %v, want %v", chunk, words[0], i, words[1], j, got, want)
					}
				}
			}
		}
	}
}

// scanCandidate writes text to path and reports whether the raw scan, read
// in chunks of chunk bytes, leaves the file a candidate for plan p.
func scanCandidate(t *testing.T, path, text string, p plan, chunk int) bool {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f, _, err := filekey.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := &worker{buf: make([]byte, chunk)}
	sc := newScanner(p)
	done, _, _, _, err := w.scan(f, int64(len(text)), sc, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return done || sc.candidate()
}
