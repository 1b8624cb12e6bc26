package history

import "testing"

// BenchmarkListSearch measures history_list's own cost (search, snippets,
// paging) over a stream of events, excluding any decoding: MB/s of event
// text scanned for a literal, case-insensitive query.
func BenchmarkListSearch(b *testing.B) {
	const n, size = 20_000, 4096
	events := generated(n, size)
	b.SetBytes(int64(n) * size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := List(events, ListQuery{Query: "Needle"}, RenderOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
