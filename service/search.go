package service

import (
	"context"
	"fmt"
	"os"

	"github.com/notesoup/notesoup/shared/history/search"
)

// SearchOptions configure Search.
type SearchOptions struct {
	// CacheDir holds the search index (and older cached answers); ""
	// disables both: every file is scanned and candidates decoded.
	CacheDir string
	// PerSession bounds the entries kept per session
	// (search.DefaultPerSession when 0).
	PerSession int
	// Index is kept for callers that set it: the persistent trigram index
	// (search.Options.Index) is the default now, off only with
	// NOTESOUP_SEARCH_INDEX=0 (then the raw prefilter and per-query
	// answers). Measured on the 1 GB corpus (BENCHMARKS.md, "Any new
	// query"), every kind of new query costs less CPU from the index than
	// from the raw engine, and one search decodes at most 128 MB into it,
	// so no first search pays the whole build.
	Index bool
	// Limit, with the index, stops once the newest Limit sessions with
	// matches are complete (0: all); Result.More then bounds how many
	// more may match. A front end that filters sessions after the search
	// (--case-sensitive) passes 0.
	Limit int
	// Emit, when set, is handed each session with matches in order
	// instead of the result holding them all (search.Options.Emit).
	Emit func(search.SessionHits) error
}

// indexEnv=0 turns the index off for every search (SearchOptions.Index).
const indexEnv = "NOTESOUP_SEARCH_INDEX"

// Search runs a literal query over every session of every harness (see
// package search): one source per harness the service reaches, built in or
// an external plugin, under the service's roots for it (WithRoots) or the
// harness's own. A harness that cannot be reached or described is named in
// the result's Errors and the others are still searched; the error is the
// query's own (empty, several lines, too many entries per session).
func (s *Service) Search(ctx context.Context, query string, opts SearchOptions) (search.Result, error) {
	var srcs []search.Source
	var errs []string
	for _, name := range s.host.Names() {
		h, err := s.host.Harness(ctx, name)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		desc, err := h.Describe(ctx)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		src := search.FromHarness(ctx, h, desc, s.roots[name])
		src.Harness = name // as the host named it, which it checked Describe against
		srcs = append(srcs, src)
		// Sessions the vault keeps whose originals are gone (vault.go).
		vsrc, ok, err := s.vaultSource(ctx, name, h, desc)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s vault: %v", name, err))
		}
		if ok {
			srcs = append(srcs, vsrc)
		}
	}
	index := opts.Index || os.Getenv(indexEnv) != "0"
	res, err := search.Search(query, search.Options{Sources: srcs, CacheDir: opts.CacheDir, PerSession: opts.PerSession, Index: index, Limit: opts.Limit, Emit: opts.Emit})
	if err != nil {
		return res, err
	}
	res.Errors = append(errs, res.Errors...)
	return res, nil
}
