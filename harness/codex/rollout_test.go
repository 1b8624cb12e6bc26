package codex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rolloutLines are Codex 0.171.0 record shapes (codex.md §4, §6, §8).
const (
	lineMeta       = `{"timestamp":"2026-12-02T11:00:00.000Z","ordinal":0,"type":"session_meta","payload":{"session_id":"%[1]s","id":"%[1]s","timestamp":"2026-12-02T11:00:00.000Z","cwd":"/w/c","history_mode":"paginated"}}`
	lineUser       = `{"timestamp":"2026-12-02T11:00:01.000Z","ordinal":%d,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Plan the release"}]},"metadata":{"user_input_order":0}}`
	lineUsage      = `{"timestamp":"2026-12-02T11:00:02.000Z","ordinal":%d,"type":"token_usage_record","payload":{"thread_id":"t","response_id":"r","usage":{"input_tokens":%d,"output_tokens":20,"total_tokens":%d}}}`
	lineTokenCount = `{"timestamp":"2026-12-02T11:00:02.500Z","ordinal":%d,"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":%d,"output_tokens":0,"total_tokens":%d}}}}`
	lineNullInfo   = `{"timestamp":"2026-12-02T11:00:02.600Z","ordinal":%d,"type":"event_msg","payload":{"type":"token_count","info":null}}`
	lineCompacted  = `{"timestamp":"2026-12-02T11:00:03.100Z","ordinal":%d,"type":"compacted","payload":{"message":"Another language model started to solve this problem and produced a summary:\nSUMMARY: planned","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Plan the release"}]}]}}`
)

// liveRollout builds a rollout from steps: "user", "usage N", "count N",
// "null", "compacted", "torn" (a partial last line).
func liveRollout(id string, steps ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, lineMeta+"\n", id)
	for i, s := range steps {
		ord := i + 1
		var n int
		switch {
		case s == "user":
			fmt.Fprintf(&b, lineUser+"\n", ord)
		case s == "compacted":
			fmt.Fprintf(&b, lineCompacted+"\n", ord)
		case s == "fork":
			fmt.Fprintf(&b, `{"timestamp":"2026-12-02T11:00:00.500Z","ordinal":%d,"type":"session_meta","payload":{"id":"x","forked_from_id":"p"}}`+"\n", ord)
		case s == "null":
			fmt.Fprintf(&b, lineNullInfo+"\n", ord)
		case s == "big":
			b.WriteString("BIG\n") // replaced with a line longer than a read chunk
		case s == "torn":
			b.WriteString(`{"timestamp":"2026-12-02T11:00:09.000Z","type":"token_usage_record","payload":{"usage":{"total_tokens":999999`)
		default:
			var kind string
			fmt.Sscanf(s, "%s %d", &kind, &n)
			if kind == "usage" {
				fmt.Fprintf(&b, lineUsage+"\n", ord, n-20, n)
			} else {
				fmt.Fprintf(&b, lineTokenCount+"\n", ord, n, n)
			}
		}
	}
	return b.String()
}

func TestMeasureRollout(t *testing.T) {
	tests := []struct {
		name        string
		steps       []string
		tokens      int64
		compactions int
	}{
		{"no usage yet", []string{"user"}, 0, 0},
		{"usage record", []string{"user", "usage 40000"}, 40000, 0},
		{"later token_count wins", []string{"user", "usage 40000", "count 41000"}, 41000, 0},
		{"later usage record wins", []string{"user", "count 41000", "usage 50000"}, 50000, 0},
		{"null info ignored", []string{"user", "usage 40000", "null"}, 40000, 0},
		{"compaction resets", []string{"user", "usage 80000", "compacted"}, 0, 1},
		{"usage after compaction", []string{"user", "usage 80000", "compacted", "count 0", "usage 3000"}, 3000, 1},
		{"two compactions", []string{"user", "compacted", "usage 5", "compacted"}, 0, 2},
		{"torn last line skipped", []string{"user", "usage 40000", "torn"}, 40000, 0},
		{"fork", []string{"fork", "user", "compacted"}, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "rollout-x.jsonl")
			if err := os.WriteFile(p, []byte(liveRollout("t", tc.steps...)), 0o600); err != nil {
				t.Fatal(err)
			}
			m, err := measureRollout(p)
			if err != nil {
				t.Fatal(err)
			}
			if forked := slices.Contains(tc.steps, "fork"); m.Forked != forked {
				t.Errorf("Forked = %v, want %v", m.Forked, forked)
			}
			if m.ContextTokens != tc.tokens || m.Compactions != tc.compactions {
				t.Errorf("got %+v, want tokens %d compactions %d", m, tc.tokens, tc.compactions)
			}
		})
	}
	if _, err := measureRollout("/etc/passwd"); err == nil || !strings.Contains(err.Error(), "not a Codex rollout") {
		t.Errorf("non-rollout path: err = %v", err)
	}
	if _, err := measureRollout(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Errorf("missing rollout: no error")
	}
}

// TestContextTokensMatchesTheWholeScan: reading back from the end gives the
// same context size as the forward scan of the whole rollout, whatever the
// steps and however the lines fall across the chunks it reads.
func TestContextTokensMatchesTheWholeScan(t *testing.T) {
	big := `{"timestamp":"2026-12-02T11:00:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"` + strings.Repeat("log line with a \"token\" word\\n", 12000) + `"}}`
	if len(big) < tailChunk {
		t.Fatalf("the long line (%d bytes) must span more than one chunk (%d)", len(big), tailChunk)
	}
	steps := []string{"user", "usage 100", "count 200", "null", "compacted", "usage 300", "torn", "fork", "big"}
	rng := rand.New(rand.NewPCG(7, 11))
	cases := [][]string{
		{}, {"user"}, {"usage 5"}, {"usage 5", "compacted"}, {"compacted", "usage 7"}, {"usage 9", "torn"},
		{"usage 9", "big"}, {"usage 9", "big", "big"}, {"big", "count 4", "big", "null", "big"},
	}
	for i := 0; i < 60; i++ {
		var c []string
		for j := rng.IntN(12); j > 0; j-- {
			c = append(c, steps[rng.IntN(len(steps))])
		}
		cases = append(cases, c)
	}
	dir := t.TempDir()
	for i, c := range cases {
		text := strings.ReplaceAll(liveRollout("01a2cccc-0000-7000-8000-00000000000c", c...), "BIG\n", big+"\n")
		p := filepath.Join(dir, fmt.Sprintf("rollout-%d.jsonl", i))
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		want, err := measureRollout(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := contextTokens(p)
		if err != nil || got != want.ContextTokens {
			t.Errorf("steps %v: contextTokens = %d, %v; the whole scan says %d", c, got, err, want.ContextTokens)
		}
	}
	// The recorded rollouts of the real Codex.
	files, _ := filepath.Glob("../../testdata/transcripts/codex/*/*.jsonl")
	more, _ := filepath.Glob("../../testdata/transcripts/codex/*/*/*/*/*.jsonl")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no recorded Codex rollouts under testdata/transcripts/codex")
	}
	for _, p := range files {
		want, err := measureRollout(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := contextTokens(p); err != nil || got != want.ContextTokens {
			t.Errorf("%s: contextTokens = %d, %v; the whole scan says %d", p, got, err, want.ContextTokens)
		}
	}
}

func TestRolloutHasBoot(t *testing.T) {
	const thread = "01a23c4f-37fd-7b13-b022-321b4a7c041f"
	boot := `{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<notesoup-boot window=\"codex:` + thread + `:0\">notes</notesoup-boot>"}]}}` + "\n"
	long := `{"type":"response_item","payload":"` + strings.Repeat("x", 200<<10) + `"}` + "\n"
	tests := []struct {
		name, text string
		ord        int
		want       bool
	}{
		{"boot of the window", `{"type":"session_meta"}` + "\n" + boot, 0, true},
		{"after a long line, no final newline", long + strings.TrimSuffix(boot, "\n"), 0, true},
		{"another window's boot", boot, 1, false},
		{"no boot", long, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "rollout-x.jsonl")
			if err := os.WriteFile(p, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := rolloutHasBoot(p, bootMarker(thread, tc.ord))
			if err != nil || got != tc.want {
				t.Errorf("rolloutHasBoot = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	if got, err := rolloutHasBoot(filepath.Join(t.TempDir(), "gone.jsonl"), bootMarker(thread, 0)); got || err != nil {
		t.Errorf("missing rollout: %v, %v; want false, nil", got, err)
	}
}
