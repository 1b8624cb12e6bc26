package search

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/history"
)

// Source is one harness's sessions, and what the search may assume of its
// files (the harness's Description says; see FromHarness).
type Source struct {
	// Harness names the harness, as in selectors.
	Harness string
	// Files lists the harness's session files (Path and ID at least).
	Files func() ([]history.Session, error)
	// Decoder decodes one of them.
	Decoder history.Decoder
	// RawSearch lets the raw-bytes prefilter rule a file out without
	// decoding it (contract.CapRawSearch); without it every file is
	// decoded (answers are still cached).
	RawSearch bool
	// SynthesizedWords are the words, lower case, the decoder writes
	// itself (contract.Description.SynthesizedWords): a query word inside
	// one proves nothing about a file's bytes.
	SynthesizedWords []string
	// Forks says a file may inherit another session's events
	// (contract.CapForks), so its own bytes may not hold all of its text.
	Forks bool
	// Inherits, for a source with Forks, names from a file's first line
	// the ids of the sessions (among this source's files) whose events it
	// inherits (contract.Inheritor); an id no file has means one that
	// cannot be named. The search then scans the parents' bytes with the
	// file's, and its answer depends on their keys too. A source with
	// Forks and no Inherits has every file decoded on every search, never
	// answered from the cache: nothing says which files a fork's answer
	// depends on.
	Inherits func(firstLine []byte) []string
	// Scope names the set of files Files lists, the same on every search
	// that lists the same harness under the same roots (FromHarness sets
	// it; "" means Harness). The index tags each entry with its source's
	// scope, so a search over some roots neither mistakes the entries of
	// other roots (another --claude-root, a harness that could not be
	// reached this time) for files that are gone, nor reuses an answer
	// kept for another set of roots.
	Scope string
}

// scope is s.Scope, or s.Harness when it is not set.
func (s *Source) scope() string {
	if s.Scope != "" {
		return s.Scope
	}
	return s.Harness
}

// ScopeOf is the Scope of harness's files under roots: the harness and its
// roots, cleaned and sorted, so the order they are given in does not
// matter.
func ScopeOf(harness string, roots []string) string {
	rs := make([]string, len(roots))
	for i, r := range roots {
		rs[i] = filepath.Clean(r)
	}
	slices.Sort(rs)
	return harness + "\x00" + strings.Join(slices.Compact(rs), "\x00")
}

// FromHarness returns the source of harness h, as desc (its Describe)
// describes it, with its sessions under roots (desc.DefaultRoots when none
// are given). Files are listed with ListSessions(FilesOnly) and decoded
// with Decode; ctx bounds every call. A listed file that is not under the
// roots is not searched: the search opens every file it is given, and
// only the harness's own roots are its to read.
func FromHarness(ctx context.Context, h contract.Harness, desc contract.Description, roots []string) Source {
	if len(roots) == 0 {
		roots = desc.DefaultRoots
	}
	// The index keys its entries by path: a relative root would key them
	// by where the command ran, and every run from another folder would
	// decode the same files again under other names.
	abs := make([]string, len(roots))
	for i, r := range roots {
		if a, err := filepath.Abs(r); err == nil {
			r = a
		}
		abs[i] = r
	}
	roots = abs
	src := Source{
		Harness:          desc.Name,
		Files:            func() ([]history.Session, error) { return listFiles(ctx, h, desc.Name, roots) },
		Decoder:          harnessDecoder{ctx: ctx, h: h, roots: roots},
		RawSearch:        slices.Contains(desc.Capabilities, contract.CapRawSearch),
		SynthesizedWords: desc.SynthesizedWords,
		Forks:            slices.Contains(desc.Capabilities, contract.CapForks),
		Scope:            ScopeOf(desc.Name, roots),
	}
	if inh, ok := h.(contract.Inheritor); ok && src.Forks {
		src.Inherits = inh.Inherits
	}
	return src
}

// fileLister is what a harness called in-process may offer besides
// ListSessions with FilesOnly (harness.Builtin does): the same listing as
// one slice. A search lists thousands of files on every run, and taking
// them one callback at a time copies each into memory grown for the
// purpose; in a one-shot process every fresh page of it is a page fault
// (about 2 ms of a warm search over 3,500 files).
type fileLister interface {
	ListFiles(ctx context.Context, roots []string) ([]history.Session, error)
}

// listFiles lists h's session files under roots by name, keeping those
// under the roots.
func listFiles(ctx context.Context, h contract.Harness, name string, roots []string) ([]history.Session, error) {
	under := rootSet(roots)
	var out []history.Session
	outside, first := 0, ""
	keep := func(s history.Session) error {
		if !under.holds(s.Path) {
			if outside == 0 {
				first = s.Path
			}
			outside++
			return nil
		}
		s.Harness = name
		out = append(out, s)
		return nil
	}
	var err error
	if fl, ok := h.(fileLister); ok {
		var all []history.Session
		all, err = fl.ListFiles(ctx, roots)
		out = all[:0] // kept in place: no copy
		for _, s := range all {
			keep(s)
		}
	} else {
		err = h.ListSessions(ctx, contract.SessionFilter{Roots: roots, FilesOnly: true}, keep)
	}
	if outside > 0 {
		skip := fmt.Errorf("%d listed file(s) outside the roots %v were not searched, such as %q", outside, roots, first)
		if err == nil {
			err = skip
		} else {
			err = fmt.Errorf("%w; %v", err, skip)
		}
	}
	return out, err
}

// roots are directories (or files) with a trailing separator, cleaned.
type roots []string

// rootSet prepares roots for holds.
func rootSet(rs []string) roots {
	out := make(roots, 0, len(rs))
	for _, r := range rs {
		r = filepath.Clean(r)
		if !strings.HasSuffix(r, string(filepath.Separator)) {
			r += string(filepath.Separator)
		}
		out = append(out, r)
	}
	return out
}

// holds reports whether path is one of the roots or lies under one, with
// no ".." in it that could lead back out.
func (rs roots) holds(path string) bool {
	if strings.Contains(path, "..") && filepath.Clean(path) != path {
		return false
	}
	for _, r := range rs {
		if strings.HasPrefix(path, r) || len(path) == len(r)-1 && r[:len(path)] == path {
			return true
		}
	}
	return false
}

// harnessDecoder decodes through the harness, resolving related files (a
// fork's parent) under the source's roots.
type harnessDecoder struct {
	ctx   context.Context
	h     contract.Harness
	roots []string
}

// Decode implements history.Decoder.
func (d harnessDecoder) Decode(sess history.Session, opts history.DecodeOptions, emit history.EmitFunc) (history.Summary, error) {
	return d.h.Decode(d.ctx, contract.DecodeRequest{Session: sess, Head: opts.Head, Roots: d.roots}, emit)
}
