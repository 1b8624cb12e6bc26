package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/search"
)

// WithSearchCache names the search cache folder (SearchOptions.CacheDir,
// the folder whose index subfolder notesoup search builds) that
// history_list reads: a query over one session is then answered from the
// index when it proves the session's file unchanged, instead of decoding
// the whole session. history_list never writes the index. "" (the default)
// reads none.
func WithSearchCache(dir string) Option { return func(s *Service) { s.searchCache = dir } }

// DefaultSearchCache is where notesoup search keeps its cache by default:
// $XDG_CACHE_HOME/notesoup/search (os.UserCacheDir), "" when there is no
// cache folder.
func DefaultSearchCache() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "notesoup", "search")
}

// Narrowed returns o ready to list query's matches: when the search index
// answers query over o's session exactly as the decode would
// (indexedMatches), o's events are those matches and its notice the
// session's; otherwise o is returned unchanged and lists by its decode.
// Every front end that lists with a query goes through it (HistoryList, the
// CLI's history list), so none decodes a whole session the index answers.
func (s *Service) Narrowed(ctx context.Context, c Caller, o Opened, query string) Opened {
	if matches, notice, ok := s.indexedMatches(ctx, c, o, query); ok {
		o.Projection.Events = history.Slice(matches)
		o.Projection.Summary = func() history.Summary { return history.Summary{Notice: notice} }
		o.Render.Notice = func() string { return notice }
	}
	return o
}

// indexedMatches returns, from the search index, the events of o's session
// that hold query, and the session's notice, when the index can answer
// exactly as the decode would: a page of history_list with a query
// depends only on the events the query keeps (history.List skips every
// other event before looking at it), so listing these gives the page the
// whole decode gives. ok is false whenever that is not certain, and the
// caller decodes: no cache folder, the index off (NOTESOUP_SEARCH_INDEX=0),
// secrets shown (the index holds masked text only), a live head applied to
// the decode, a vault copy (decoded with the vault's roots), a session the
// index does not hold or cannot prove unchanged, any error.
func (s *Service) indexedMatches(ctx context.Context, c Caller, o Opened, query string) (events []history.Event, notice string, ok bool) {
	if query == "" || s.searchCache == "" || os.Getenv(indexEnv) == "0" || c.ShowSecrets {
		return nil, "", false
	}
	sess := o.Session
	if sess.Path == "" || strings.HasPrefix(sess.Path, s.VaultDir()+string(filepath.Separator)) {
		return nil, "", false
	}
	if c.Head != "" {
		// Open applies the caller's live head to its own session only.
		cur, err := s.current(ctx, c)
		if err != nil || cur == nil || cur.Path == sess.Path {
			return nil, "", false
		}
	}
	hz, err := s.host.Harness(ctx, sess.Harness)
	if err != nil {
		return nil, "", false
	}
	desc, err := hz.Describe(ctx)
	if err != nil {
		return nil, "", false
	}
	src := search.FromHarness(ctx, hz, desc, s.roots[sess.Harness])
	src.Harness = sess.Harness
	// The notice (Summary.Notice) comes from the index too: Pi's depends
	// on the whole tree (the selected branch's gaps), so a decode for it
	// would read the whole file again.
	return search.SessionMatches(src, sess, query, s.searchCache)
}
