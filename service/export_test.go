package service

import "context"

// IndexAnswers says whether history_list would answer query over the
// session selector names from the search index (tests prove the index
// path was taken, not only that its answer agrees).
func IndexAnswers(ctx context.Context, s *Service, c Caller, selector, query string) bool {
	o, err := s.Open(ctx, c, selector)
	if err != nil {
		return false
	}
	_, _, ok := s.indexedMatches(ctx, c, o, query)
	return ok
}
