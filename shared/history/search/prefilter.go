package search

import "strings"

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
//     decoded) or the atom is part of a word the harness says its decoder
//     synthesizes (then the atom proves nothing and is not required).
//     The harness promises all this by listing contract.CapRawSearch; the
//     files of any other harness are decoded.
//   - The file holds all of its events, or the harness names the files
//     it inherits from (contract.Inheritor) and their bytes are scanned
//     with it. A file that may inherit from files no one names is decoded.
//
// Requiring every atom somewhere in the file, not side by side, is weaker
// than the match itself: it may let a file through that then decodes to no
// match, never the reverse.
//
// The raw bytes are searched as they are read, never lower-cased into a
// copy: an atom is found by a vector kernel (pair.go) that stops only
// where its three rarest bytes all appear, each in either case, at their
// distances (every occurrence of the atom in any case has them there), and
// each stop is checked byte by byte. Escapes are looked for the same way
// (a backslash, 'u', and a plausible hex digit, then checked). The file is
// cut into chunks that repeat the last overlap() bytes of the previous
// one, so nothing that straddles a boundary is missed.

// plan is a query prepared for the raw scan.
type plan struct {
	// atoms are the lower-cased atoms the file must contain, longest first
	// (the longest is usually the rarest, so a miss is found soonest).
	atoms []string
	// probes[i] finds candidate starts of atoms[i].
	probes []probe
	// ok is false when the query cannot be prefiltered: not ASCII, or no
	// atom that proves anything. Every file is then decoded.
	ok bool
}

// newPlan prepares query for the prefilter of a harness whose decoder
// writes the words synthesized itself (Description.SynthesizedWords): an
// atom that is part of one may match text that is not in the file.
func newPlan(query string, synthesized []string) plan {
	for i := 0; i < len(query); i++ {
		if query[i] >= 0x80 {
			return plan{}
		}
	}
	var atoms []string
	seen := map[string]bool{}
	for _, a := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !isAlnum(byte(r)) }) {
		if seen[a] || partOfAny(a, synthesized) {
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
	probes := make([]probe, len(kept))
	for i, a := range kept {
		probes[i] = atomProbe(a)
	}
	return plan{atoms: kept, probes: probes, ok: true}
}

// byteRank orders lower-case letters and digits from rarest to most common
// in transcripts (prose, code, JSON keys), so a search starts at the byte
// with the fewest false starts.
const byteRank = "qjzx9876vk5w4y3bf2gh1mp0udcl_sniortae"

// rank is c's place in byteRank (rarer is lower).
func rank(c byte) int {
	if r := strings.IndexByte(byteRank, c); r >= 0 {
		return r
	}
	return len(byteRank)
}

// anchors returns the offsets of a's two rarest bytes, first < second; a
// one-byte atom has one offset, returned twice.
func anchors(a string) (int, int) {
	best, next := 0, -1
	for i := 1; i < len(a); i++ {
		switch {
		case rank(a[i]) < rank(a[best]):
			best, next = i, best
		case next < 0 || rank(a[i]) < rank(a[next]):
			next = i
		}
	}
	if next < 0 {
		return best, best
	}
	return min(best, next), max(best, next)
}

// foldMask is what to OR into a text byte before comparing it with the
// atom byte c: 0x20 folds a letter to lower case (c|0x20 is c only for c
// and its upper case); digits compare exactly (0x20 would fold control
// bytes onto them).
func foldMask(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return 0x20
	}
	return 0
}

// probe finds candidate starts of an atom: its two rarest bytes, and the
// rarest between them (if any), each in either case, at their distances.
type probe struct {
	q pairQuery
	// at is the offset in the atom of the first byte tested.
	at int
}

func atomProbe(a string) probe {
	o1, o2 := anchors(a)
	q := pairQuery{d: o2 - o1, c1: a[o1], m1: foldMask(a[o1]), c2: a[o2], m2: foldMask(a[o2])}
	// The third test: the rarest other byte between the two, if any.
	q.c3, q.m3 = q.c1, q.m1
	best := -1
	for i := o1 + 1; i < o2; i++ {
		if best < 0 || rank(a[i]) < rank(a[best]) {
			best = i
		}
	}
	if best >= 0 {
		q.d3, q.c3, q.m3 = best-o1, a[best], foldMask(a[best])
	}
	return probe{q: q, at: o1}
}

// escapeProbe finds candidate \u00XX escapes of a letter or digit
// (0x30-0x7a): a backslash, 'u', and '3' to '7' three bytes on. A JSON
// writer escapes control bytes (\u001b) far more often, and those fail
// the test, as does a "\n" before a line number.
var escapeProbe = pairQuery{d: 4, c1: '\\', c2: '3', r2: '7' - '3', d3: 1, c3: 'u'}

// partOfAny reports whether atom is part of one of the words, which are
// lower case like the atom (a harness that sent another case is folded
// here, so its words still count).
func partOfAny(atom string, words []string) bool {
	for _, w := range words {
		if strings.Contains(strings.ToLower(w), atom) {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// equalFoldAtom reports whether b is the lower-case atom a with ASCII
// letters in either case.
func equalFoldAtom(b []byte, a string) bool {
	for i := 0; i < len(a); i++ {
		if b[i]|foldMask(a[i]) != a[i] {
			return false
		}
	}
	return true
}

// indexAtom returns the first start of atom a (with probe p) in b, in
// either case, or -1.
func indexAtom(b []byte, a string, p *probe) int {
	if len(b) < len(a) {
		return -1
	}
	// Starts run over [0, len(b)-len(a)]; the probe's bytes are at
	// start+at and start+at+d, so s is b[at:] cut where the atom would run
	// off the end, and a hit at i in s is a start at i in b.
	s := b[p.at : len(b)-len(a)+1+p.at+p.q.d]
	for from := 0; ; {
		i := indexPair(s[from:], &p.q)
		if i < 0 {
			return -1
		}
		at := from + i
		if equalFoldAtom(b[at:], a) {
			return at
		}
		from = at + 1
	}
}

// scanner runs a plan over a file's bytes, chunk by chunk.
//
// It is lazy by default: a chunk is searched only for the first atom not
// yet found (the atoms are in plan order, rarest first), and for the next
// one only once that is found. A file that lacks the first atom, which is
// most files, is then read by the kernel once for the atoms, not once per
// atom. The price is that an atom whose search started in a later chunk
// was not looked for in the chunks before: rescan says when the file must
// be read again, eagerly (every atom not found, every chunk), to settle
// the answer. Several files fed to one scanner (a fork and the files it
// inherits from) are scanned eagerly: found atoms add up over
// them, so every one must be looked for in each.
type scanner struct {
	p     plan
	found []bool
	// missing counts the atoms not found.
	missing int
	// escaped is set once the file escapes a letter or digit as \u00XX;
	// the atoms' absence then proves nothing.
	escaped bool
	// eager searches every atom not found in every chunk.
	eager bool
	// active is the atom a lazy scan searches, started at file offset
	// from (-1: not started in this file).
	active int
	from   int64
}

func newScanner(p plan) *scanner {
	return &scanner{p: p, found: make([]bool, len(p.atoms)), missing: len(p.atoms), from: -1}
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

// startFile readies a lazy scan for a file's first chunk.
func (s *scanner) startFile() { s.from = -1 }

// feed scans one chunk of raw file bytes that starts at file offset pos
// (and repeats the previous chunk's last overlap() bytes) for the atoms,
// in either case, and for escapes. done reports that the answer is
// settled: every atom was found, or an escaped letter makes their absence
// prove nothing (either way the file is a candidate).
func (s *scanner) feed(b []byte, pos int64) (done bool) {
	if s.eager {
		for i, a := range s.p.atoms {
			if !s.found[i] && indexAtom(b, a, &s.p.probes[i]) >= 0 {
				s.found[i] = true
				s.missing--
			}
		}
	} else {
		for s.active < len(s.p.atoms) {
			i := s.active
			if s.found[i] { // found by an earlier eager pass
				s.active++
				continue
			}
			if s.from < 0 {
				s.from = pos
			}
			if indexAtom(b, s.p.atoms[i], &s.p.probes[i]) < 0 {
				break
			}
			s.found[i] = true
			s.missing--
			s.active++
			s.from = -1 // the next atom starts with this chunk
		}
	}
	if s.missing > 0 && !s.escaped && hasAlnumEscape(b) {
		s.escaped = true
	}
	return s.candidate()
}

// rescan reports, after a lazy scan of a whole file that did not settle
// the answer, whether the file must be scanned again eagerly before its
// verdict holds: the atom being searched was not looked for from the
// file's start. (An atom after it was not looked for at all, but the
// file already lacks the active one, which is enough to rule it out.)
func (s *scanner) rescan() bool {
	return !s.eager && s.missing > 0 && s.from != 0
}

// candidate reports, after the whole file was fed, whether it may match.
func (s *scanner) candidate() bool { return s.missing == 0 || s.escaped }

// hasAlnumEscape reports whether b holds a JSON \u00XX escape of an ASCII
// letter or digit. An escaped backslash before it ("\\u0041") is a literal
// backslash, not an escape; counting it anyway only costs a decode.
func hasAlnumEscape(b []byte) bool {
	if len(b) < len(`\u0041`) {
		return false
	}
	// The probe reads the byte four on; the escape needs one more.
	s := b[:len(b)-1]
	for from := 0; ; {
		i := indexPair(s[from:], &escapeProbe)
		if i < 0 {
			return false
		}
		at := from + i
		if isAlnumEscape(b[at : at+6]) {
			return true
		}
		from = at + 1
	}
}

// isAlnumEscape reports whether e (six bytes) is \u00XX escaping a letter
// or digit.
func isAlnumEscape(e []byte) bool {
	if e[0] != '\\' || e[1] != 'u' || e[2] != '0' || e[3] != '0' {
		return false
	}
	c, ok := hexByte(e[4], e[5])
	return ok && isAlnum(c)
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
