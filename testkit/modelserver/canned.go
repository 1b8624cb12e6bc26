package modelserver

import "fmt"

// Markers of each harness's compaction (summarizer) request, as observed
// from the pinned versions (see e2e/scenarios/*-compact.json):
const (
	// claudeCompactMarker is in the instruction Claude Code appends to the
	// last user message ("… an <analysis> block followed by a <summary>
	// block"; the retry asks for "<summary></summary> tags").
	claudeCompactMarker = "<summary>"
	// piCompactMarker opens Pi's summarizer system prompt ("You are a
	// context summarization assistant"), used for compactions and branch
	// summaries alike.
	piCompactMarker = "context summarization"
	// codexCompactMarker opens the user message of Codex's compaction
	// request ("You are performing a CONTEXT CHECKPOINT COMPACTION").
	codexCompactMarker = "CONTEXT CHECKPOINT COMPACTION"
)

// CompactionRules returns rules answering the compaction/summarizer request
// of each harness with summary, in the shape that harness expects (Claude
// Code keeps only the <summary> body). Put them first in Script.Rules so a
// compaction, whenever the agent decides on one, never consumes a turn.
func CompactionRules(summary string) []Rule {
	return []Rule{
		{Name: "claude-compaction", Match: Match{Protocol: Anthropic, LastUserContains: claudeCompactMarker},
			Reply: Reply{Text: fmt.Sprintf("<analysis>\nScripted compaction.\n</analysis>\n<summary>\n%s\n</summary>", summary)}},
		{Name: "pi-compaction", Match: Match{Protocol: Chat, SystemContains: piCompactMarker},
			Reply: Reply{Text: summary}},
		{Name: "codex-compaction", Match: Match{Protocol: Responses, LastUserContains: codexCompactMarker},
			Reply: Reply{Text: summary}},
	}
}
