package search

import (
	"bytes"
	"strings"
)

// A raw-bytes prefilter proves, without decoding, that a transcript holds no
// event a history_list query would match, so only candidate files are
// decoded. It is used only where that proof holds:
//
//   - The query is ASCII. A match is found by history.IndexFold, which for an
//     ASCII query compares bytes with ASCII case folding, so every matched
//     letter or digit is that byte of the decoded text.
//   - The proof is over the query's atoms: its maximal runs of ASCII letters
//     and digits. Every atom of a match lies inside one JSON string value of
//     the file, or in text a decoder adds (a separator, a prefix). A letter
//     or digit inside a JSON string is written literally unless the writer
//     chose a \u00XX escape for it, and decoders join values only with
//     separators (spaces, newlines, backticks, "__"), never letter to letter.
//     So each atom of a match appears in the raw bytes, case-folded, unless
//     the file escapes a letter or digit as \u00XX (then the file is
//     decoded) or the atom is part of a word a decoder synthesizes (then the
//     atom proves nothing and is not required).
//   - The file holds all of its events. A Codex fork that inherits its
//     parent's rows through history_base is decoded instead.
//
// Requiring every atom somewhere in the file, not side by side, is weaker
// than the match itself: it may let a file through that then decodes to no
// match, never the reverse.

// synthesizedWords are the words decoders write into event text or tool
// names themselves (Pi's "Ran `cmd`" and "[request failed] ", Codex's
// "[turn failed] "). An atom that is part of one may match text that is not
// in the file.
var synthesizedWords = []string{"ran", "request", "failed", "turn"}

// plan is a query prepared for the raw scan.
type plan struct {
	// atoms are the lower-cased atoms the file must contain, longest first
	// (the longest is usually the rarest, so a miss is found soonest).
	atoms []string
	// anchors[i] is the offset of atoms[i]'s rarest byte, where the search
	// for it starts (see indexAnchored).
	anchors []int
	// ok is false when the query cannot be prefiltered: not ASCII, or no
	// atom that proves anything. Every file is then decoded.
	ok bool
}

// newPlan prepares query for the prefilter.
func newPlan(query string) plan {
	for i := 0; i < len(query); i++ {
		if query[i] >= 0x80 {
			return plan{}
		}
	}
	var atoms []string
	seen := map[string]bool{}
	for _, a := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !isAlnum(byte(r)) }) {
		if seen[a] || synthesized(a) {
			continue
		}
		seen[a] = true
		atoms = append(atoms, a)
	}
	if len(atoms) == 0 {
		return plan{}
	}
	// Longest first; drop atoms contained in a longer one (implied).
	for i := 1; i < len(atoms); i++ {
		for j := i; j > 0 && len(atoms[j]) > len(atoms[j-1]); j-- {
			atoms[j], atoms[j-1] = atoms[j-1], atoms[j]
		}
	}
	kept := atoms[:0]
	for _, a := range atoms {
		implied := false
		for _, k := range kept {
			if strings.Contains(k, a) {
				implied = true
				break
			}
		}
		if !implied {
			kept = append(kept, a)
		}
	}
	anchors := make([]int, len(kept))
	for i, a := range kept {
		anchors[i] = rarest(a)
	}
	return plan{atoms: kept, anchors: anchors, ok: true}
}

// byteRank orders lower-case letters and digits from rarest to most common
// in transcripts (prose, code, JSON keys), so a search starts at the byte
// with the fewest false starts.
const byteRank = "qjzx9876vk5w4y3bf2gh1mp0udcl_sniortae"

// rarest returns the offset of a's rarest byte.
func rarest(a string) int {
	best, rank := 0, len(byteRank)+1
	for i := 0; i < len(a); i++ {
		r := strings.IndexByte(byteRank, a[i])
		if r < 0 {
			r = len(byteRank)
		}
		if r < rank {
			best, rank = i, r
		}
	}
	return best
}

// indexAnchored finds a in b by searching for a[at:] (vectorised bytes.Index
// starting at a rare byte skips ahead further between candidates than one
// starting at a common one) and checking the at bytes before each hit.
func indexAnchored(b []byte, a string, at int) int {
	tail := []byte(a[at:])
	for off := at; off <= len(b)-len(tail); {
		i := bytes.Index(b[off:], tail)
		if i < 0 {
			return -1
		}
		start := off + i - at
		if string(b[start:start+at]) == a[:at] {
			return start
		}
		off += i + 1
	}
	return -1
}

func synthesized(atom string) bool {
	for _, w := range synthesizedWords {
		if strings.Contains(w, atom) {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// scanner runs a plan over a file's bytes, chunk by chunk.
type scanner struct {
	p       plan
	found   []bool
	missing int
	// escaped is set once the file escapes a letter or digit as \u00XX;
	// the atoms' absence then proves nothing.
	escaped bool
}

func newScanner(p plan) *scanner {
	return &scanner{p: p, found: make([]bool, len(p.atoms)), missing: len(p.atoms)}
}

// overlap is how many bytes of one chunk the next must repeat so that an
// atom or an escape across the boundary is still seen.
func (s *scanner) overlap() int {
	n := len(`\u0041`) - 1
	for _, a := range s.p.atoms {
		if len(a)-1 > n {
			n = len(a) - 1
		}
	}
	return n
}

// feed scans one lower-cased chunk (which repeats the previous chunk's
// last overlap() bytes) for the atoms. done reports that the answer is
// settled: every atom was found (the file is a candidate).
func (s *scanner) feed(folded []byte) (done bool) {
	for i, a := range s.p.atoms {
		if !s.found[i] && indexAnchored(folded, a, s.p.anchors[i]) >= 0 {
			s.found[i] = true
			s.missing--
		}
	}
	return s.missing == 0
}

// feedRaw folds a chunk into scratch (grown as needed) and feeds it.
func (s *scanner) feedRaw(chunk []byte, scratch *[]byte) bool {
	if cap(*scratch) < len(chunk) {
		*scratch = make([]byte, len(chunk))
	}
	f := (*scratch)[:len(chunk)]
	if foldLower(f, chunk) {
		s.escaped = true
	}
	return s.feed(f)
}

// candidate reports, after the whole file was fed, whether it may match.
func (s *scanner) candidate() bool { return s.missing == 0 || s.escaped }

// hasAlnumEscape reports whether b holds a JSON \u00XX escape of an ASCII
// letter or digit. An escaped backslash before it ("\\u0041") is a literal
// backslash, not an escape; counting it anyway only costs a decode.
func hasAlnumEscape(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`\u00`))
		if i < 0 || i+6 > len(b) {
			return false
		}
		if c, ok := hexByte(b[i+4], b[i+5]); ok && isAlnum(c) {
			return true
		}
		b = b[i+4:]
	}
}

func hexByte(h, l byte) (byte, bool) {
	hv, ok1 := hexVal(h)
	lv, ok2 := hexVal(l)
	return hv<<4 | lv, ok1 && ok2
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
