package claude

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

var update = flag.Bool("update", false, "rewrite the golden projections of recorded transcripts")

// recorded lists the main transcripts the e2e recorder wrote from the real
// CLI (testdata/transcripts/claude/<scenario>/<sessionId>.jsonl).
func recorded(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "transcripts", "claude", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded Claude transcripts under testdata/transcripts/claude; run the e2e recorder")
	}
	return files
}

func goldenPath(file string) string {
	scenario := filepath.Base(filepath.Dir(file))
	return filepath.Join("..", "..", "testdata", "history", "claude", "golden", scenario+"__"+strings.TrimSuffix(filepath.Base(file), ".jsonl")+".golden")
}

// TestRecordedGolden decodes every recorded transcript and compares the
// projection with its reviewed golden file (go test -update rewrites them).
func TestRecordedGolden(t *testing.T) {
	for _, file := range recorded(t) {
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			abs, _ := filepath.Abs(file)
			sid := strings.TrimSuffix(filepath.Base(file), ".jsonl")
			got, sum, err := decodeFixture(t, abs, sid, "")
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			b.WriteString("windows:")
			for _, w := range sum.Windows {
				b.WriteString(" " + short(w, sid))
			}
			b.WriteString("\nhead: " + short(sum.HeadWindow, sid))
			if notice := IncompleteHistoryNotice(sum); notice != "" {
				b.WriteString("\nnotice: " + notice)
			}
			b.WriteString("\n")
			for _, l := range got {
				if len(l) > 200 {
					l = l[:200] + "…"
				}
				b.WriteString(l + "\n")
			}
			gp := goldenPath(file)
			if *update {
				if err := os.MkdirAll(filepath.Dir(gp), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(gp, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(gp)
			if err != nil {
				t.Fatalf("no golden for %s (review the projection, then go test -run TestRecordedGolden -update): %v", file, err)
			}
			if string(want) != b.String() {
				t.Errorf("projection of %s changed:\n--- got\n%s--- want\n%s", file, b.String(), want)
			}
		})
	}
}

// TestRecordedInvariants checks properties every real transcript must keep,
// independent of the goldens: seqs increase; every call whose result is in
// the file is paired with it; thinking and raw attachment payloads never
// surface; the last assistant text of the file is on the branch.
func TestRecordedInvariants(t *testing.T) {
	for _, file := range recorded(t) {
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			thinking, results, lastText := scanRaw(t, file)
			var evs []history.Event
			_, err := Decoder{}.Decode(history.Session{Path: file}, history.DecodeOptions{}, func(ev history.Event) error {
				evs = append(evs, ev)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var prev int64
			sawLast := false
			for _, ev := range evs {
				if ev.Seq <= prev {
					t.Errorf("seq %d after %d", ev.Seq, prev)
				}
				prev = ev.Seq
				for _, th := range thinking {
					if th != "" && strings.Contains(ev.Text, th) {
						t.Errorf("#%d shows thinking text %q", ev.Seq, th)
					}
				}
				if ev.Kind == history.KindToolUse && results[ev.ToolID] && ev.PairSeq == 0 {
					t.Errorf("call #%d %s has a result in the file but is unpaired", ev.Seq, ev.ToolID)
				}
				if ev.Text == lastText {
					sawLast = true
				}
			}
			if lastText != "" && !sawLast {
				t.Errorf("the file's last assistant text %q is not on the selected branch", lastText)
			}
		})
	}
}

func scanRaw(t *testing.T, file string) (thinking []string, results map[string]bool, lastText string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	results = map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, MaxLineBytes)
	for sc.Scan() {
		var rec struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || (rec.Type != "user" && rec.Type != "assistant") {
			continue
		}
		var blocks []struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			Thinking  string `json:"thinking"`
			ToolUseID string `json:"tool_use_id"`
		}
		if json.Unmarshal(rec.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch b.Type {
			case "thinking":
				thinking = append(thinking, b.Thinking)
			case "tool_result":
				results[b.ToolUseID] = true
			case "text":
				if rec.Type == "assistant" {
					lastText = b.Text
				}
			}
		}
	}
	return thinking, results, lastText
}

// TestRecordedListRead pages through every recorded session with
// history_list and reads every listed address: all fit the budget, paging
// backwards sees each listable event once, and reads never fail.
func TestRecordedListRead(t *testing.T) {
	for _, file := range recorded(t) {
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			proj := history.Project(Decoder{}, history.Session{Path: file}, history.DecodeOptions{})
			listable := 0
			for ev, err := range proj.Events {
				if err != nil {
					t.Fatal(err)
				}
				if history.Listable(ev) {
					listable++
				}
			}
			ro := proj.RenderOptions()
			q := history.ListQuery{Limit: 5}
			seen := 0
			for {
				p, err := history.List(proj.Events, q, ro)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Text) > history.MaxResponseBytes {
					t.Fatalf("page of %d bytes", len(p.Text))
				}
				for _, e := range p.Entries {
					seen++
					r, err := history.Read(proj.Events, history.ReadQuery{Seq: e.Seq}, ro)
					if err != nil {
						t.Fatalf("read #%d: %v", e.Seq, err)
					}
					if len(r.Text) > history.MaxResponseBytes {
						t.Fatalf("read #%d: %d bytes", e.Seq, len(r.Text))
					}
					if e.Kind == history.KindToolResult && e.PairSeq > 0 && r.Seq != e.PairSeq {
						t.Errorf("result #%d shows #%d, want its call #%d", e.Seq, r.Seq, e.PairSeq)
					}
				}
				if p.Older == 0 {
					break
				}
				q.Before = p.Older
			}
			if seen != listable {
				t.Errorf("paging saw %d entries, %d are listable", seen, listable)
			}
		})
	}
}
