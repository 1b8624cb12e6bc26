package modelserver

import (
	"strings"
	"testing"
)

// TestCompactionRules sends each harness's summarizer request shape (the
// markers as the real CLIs send them) and an ordinary request, and checks
// only the former is answered by the canned rule.
func TestCompactionRules(t *testing.T) {
	tests := []struct {
		pc             int
		system, user   string
		wantCompaction bool
	}{
		{0, "agent", "history…\n\nCRITICAL: Respond with TEXT ONLY. … an <analysis> block followed by a <summary> block", true},
		{0, "agent", "Print a greeting", false},
		{1, "You are a context summarization assistant. Your task is to read a conversation", "<conversation>…</conversation>", true},
		{1, "You are a coding assistant", "Read notes.txt", false},
		{2, "developer", "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary", true},
		{2, "developer", "Run echo", false},
	}
	for _, tc := range tests {
		pc := protocolCases[tc.pc]
		s := &Script{Rules: CompactionRules("SUMMARY-42"), Turns: []Reply{{Text: "ordinary turn"}}}
		srv := start(t, s, "")
		post(t, srv.URL()+pc.path, pc.req(tc.system, tc.user, false), nil)
		answer := srv.Requests()[0].Answer
		if got := strings.HasSuffix(answer, "-compaction"); got != tc.wantCompaction {
			t.Errorf("%s %q: answered by %q, compaction rule wanted: %v", pc.p, tc.user, answer, tc.wantCompaction)
		}
		if tc.wantCompaction && !strings.HasPrefix(answer, "rule "+map[Protocol]string{Anthropic: "claude", Chat: "pi", Responses: "codex"}[pc.p]) {
			t.Errorf("%s: answered by %q, want that harness's rule", pc.p, answer)
		}
	}
}
