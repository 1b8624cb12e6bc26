package codex

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

var update = flag.Bool("update", false, "rewrite testdata/codex/golden from the recorded transcripts (review the diff)")

// transcriptsDir holds real rollouts recorded by e2e/record.sh from the
// pinned codex CLI, one directory per scenario.
const transcriptsDir = "../../testdata/transcripts/codex"

// TestRecordedTranscripts decodes every recorded rollout, with its scenario
// directory as the root where fork parents are found. Each must decode
// without refusal and keep the model's invariants (dense seqs, symmetric
// pairing, no reasoning text, windows of its own thread, a known head), must
// be found by ListSessions with its session_meta id and first own prompt,
// and must match its reviewed golden projection in testdata/codex/golden.
func TestRecordedTranscripts(t *testing.T) {
	scenarios, err := filepath.Glob(filepath.Join(transcriptsDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range scenarios {
		files, _ := filepath.Glob(filepath.Join(dir, "rollout-*.jsonl"))
		if len(files) == 0 {
			continue
		}
		listed, err := listSessions([]string{dir})
		if err != nil {
			t.Fatalf("%s: list: %v", dir, err)
		}
		for _, path := range files {
			n++
			t.Run(filepath.Base(dir)+"/"+filepath.Base(path), func(t *testing.T) {
				checkRecorded(t, dir, path, listed)
			})
		}
	}
	if n == 0 {
		t.Fatalf("no recorded transcripts under %s; run e2e/record.sh", transcriptsDir)
	}
}

func checkRecorded(t *testing.T, dir, path string, listed []history.Session) {
	var events []history.Event
	sum, err := Decoder{Roots: []string{dir}}.Decode(history.Session{Path: path}, history.DecodeOptions{}, func(e history.Event) error {
		events = append(events, e)
		return nil
	})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	id, cwd, reasoning := rawFacts(t, path)
	prefix := Name + ":" + id + ":"
	bySeq := map[int64]history.Event{}
	for i, e := range events {
		if e.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d", i, e.Seq)
		}
		bySeq[e.Seq] = e
		if !strings.HasPrefix(e.Window, prefix) {
			t.Errorf("seq %d window %q is not in thread %s", e.Seq, e.Window, id)
		}
		for _, r := range reasoning {
			if strings.Contains(e.Text, r) {
				t.Errorf("seq %d shows reasoning text %q", e.Seq, r)
			}
		}
	}
	for _, e := range events {
		if e.PairSeq == 0 {
			continue
		}
		p, ok := bySeq[e.PairSeq]
		if !ok || p.PairSeq != e.Seq || p.ToolID != e.ToolID || p.Kind == e.Kind {
			t.Errorf("seq %d pairs with %d, which does not pair back: %+v", e.Seq, e.PairSeq, p)
		}
	}
	if !sum.HeadKnown || len(sum.Notes) != 0 || sum.Notice != "" {
		t.Errorf("summary of a complete recorded rollout: %+v", sum)
	}
	if len(events) > 0 && sum.HeadWindow != events[len(events)-1].Window {
		t.Errorf("head window %s, last event in %s", sum.HeadWindow, events[len(events)-1].Window)
	}
	var found *history.Session
	for i := range listed {
		if filepath.Base(listed[i].Path) == filepath.Base(path) {
			found = &listed[i]
		}
	}
	title := ""
	for _, e := range events {
		if e.Role == history.RoleUser && e.Kind == history.KindMessage && e.Line > 0 { // own, not inherited
			title = OneLine(e.Text, TitleMax)
			break
		}
	}
	if found == nil || found.ID != id || found.Cwd != cwd || found.Title != title || found.Started.IsZero() || found.Updated.Before(found.Started) {
		t.Errorf("ListSessions entry = %+v, want id %s cwd %s title %q", found, id, cwd, title)
	}
	compareGolden(t, path, events, sum)
}

// rawFacts reads the session_meta's id and cwd and every reasoning text
// straight from the file, independently of the decoder.
func rawFacts(t *testing.T, path string) (id, cwd string, reasoning []string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	type text struct {
		Text string `json:"text"`
	}
	for first := true; sc.Scan(); first = false {
		var v struct {
			Type    string `json:"type"`
			Payload struct {
				ID      string          `json:"id"`
				Cwd     string          `json:"cwd"`
				Type    string          `json:"type"`
				Text    string          `json:"text"`
				Summary json.RawMessage `json:"summary"` // a string in turn_context
				Content any             `json:"content"`
				Item    struct {
					Type        string   `json:"type"`
					SummaryText []string `json:"summary_text"`
					RawContent  []string `json:"raw_content"`
				} `json:"item"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("recorded file is not JSONL: %v", err)
		}
		p := v.Payload
		if first {
			id, cwd = p.ID, p.Cwd
			continue
		}
		var found []string
		switch {
		case v.Type == "response_item" && p.Type == "reasoning":
			var summary []text
			if err := json.Unmarshal(p.Summary, &summary); err != nil {
				t.Fatalf("reasoning summary: %v", err)
			}
			for _, s := range summary {
				found = append(found, s.Text)
			}
			if items, ok := p.Content.([]any); ok {
				for _, it := range items {
					if m, ok := it.(map[string]any); ok {
						if s, ok := m["text"].(string); ok {
							found = append(found, s)
						}
					}
				}
			}
		case v.Type == "event_msg" && p.Type == "agent_reasoning":
			found = append(found, p.Text)
		case v.Type == "event_msg" && p.Item.Type == "Reasoning":
			found = append(append(found, p.Item.SummaryText...), p.Item.RawContent...)
		}
		for _, s := range found {
			if len(s) >= 8 {
				reasoning = append(reasoning, s)
			}
		}
	}
	return id, cwd, reasoning
}

// compareGolden compares the full projection with its golden file, or
// writes it with -update.
func compareGolden(t *testing.T, path string, events []history.Event, sum history.Summary) {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "%s %s\n", render(e), e.Time.Format("2006-01-02T15:04:05.000Z07:00"))
	}
	fmt.Fprintf(&b, "windows=%v head=%s known=%v ordinal=%d\n", sum.Windows, sum.HeadWindow, sum.HeadKnown, sum.HeadOrdinal)
	golden := filepath.Join(testdataDir, "golden", filepath.Base(filepath.Dir(path)), strings.TrimSuffix(filepath.Base(path), ".jsonl")+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("no golden projection for this recording (%v): review `go test ./harness/codex -run TestRecordedTranscripts -update` and commit testdata/codex/golden", err)
	}
	if string(want) != b.String() {
		t.Errorf("projection differs from %s:\n got:\n%s\nwant:\n%s", golden, b.String(), want)
	}
}
