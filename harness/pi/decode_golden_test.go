package pi

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

var update = flag.Bool("update", false, "rewrite testdata/pi/golden from the recorded transcripts (review the diff)")

// transcriptsDir holds real sessions recorded by e2e/record.sh from the
// pinned pi CLI, one directory per scenario.
const transcriptsDir = "../../testdata/transcripts/pi"

// TestRecordedTranscripts decodes every recorded pi session. Each must decode
// without refusal and keep the model's invariants (ascending seqs, symmetric
// pairing, no thinking text, windows of its own session, a known head), must
// be found by ListSessions with its header's id and first prompt, and must
// match its reviewed golden projection in testdata/pi/golden.
func TestRecordedTranscripts(t *testing.T) {
	scenarios, err := filepath.Glob(filepath.Join(transcriptsDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range scenarios {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
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
				checkRecorded(t, path, listed)
			})
		}
	}
	if n == 0 {
		t.Fatalf("no recorded transcripts under %s; run e2e/record.sh", transcriptsDir)
	}
}

func checkRecorded(t *testing.T, path string, listed []history.Session) {
	var events []history.Event
	sum, err := Decoder{}.Decode(history.Session{Path: path}, history.DecodeOptions{}, func(e history.Event) error {
		events = append(events, e)
		return nil
	})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	id, cwd, thinking := rawFacts(t, path)
	prefix := Name + ":" + id + ":"
	bySeq := map[int64]history.Event{}
	var last int64
	for _, e := range events {
		if e.Seq <= last {
			t.Errorf("seq %d after %d", e.Seq, last)
		}
		last = e.Seq
		bySeq[e.Seq] = e
		if !strings.HasPrefix(e.Window, prefix) {
			t.Errorf("seq %d window %q is not in session %s", e.Seq, e.Window, id)
		}
		for _, th := range thinking {
			if strings.Contains(e.Text, th) {
				t.Errorf("seq %d shows thinking text %q", e.Seq, th)
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
		t.Errorf("summary of a complete recorded session: %+v", sum)
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
		if e.Role == history.RoleUser && e.Kind == history.KindMessage {
			title = OneLine(e.Text, TitleMax)
			break
		}
	}
	if found == nil || found.ID != id || found.Cwd != cwd || found.Title != title || found.Started.IsZero() || found.Updated.Before(found.Started) {
		t.Errorf("ListSessions entry = %+v, want id %s cwd %s title %q", found, id, cwd, title)
	}
	compareGolden(t, path, events, sum)
}

// rawFacts reads the header's id and cwd and every thinking text straight
// from the file, independently of the decoder.
func rawFacts(t *testing.T, path string) (id, cwd string, thinking []string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for first := true; sc.Scan(); first = false {
		var v struct {
			ID      string `json:"id"`
			Cwd     string `json:"cwd"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("recorded file is not JSONL: %v", err)
		}
		if first {
			id, cwd = v.ID, v.Cwd
			continue
		}
		var blocks []struct {
			Type     string `json:"type"`
			Thinking string `json:"thinking"`
		}
		if json.Unmarshal(v.Message.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "thinking" && len(b.Thinking) >= 8 {
					thinking = append(thinking, b.Thinking)
				}
			}
		}
	}
	return id, cwd, thinking
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
		t.Fatalf("no golden projection for this recording (%v): review `go test ./harness/pi -run TestRecordedTranscripts -update` and commit testdata/pi/golden", err)
	}
	if string(want) != b.String() {
		t.Errorf("projection differs from %s:\n got:\n%s\nwant:\n%s", golden, b.String(), want)
	}
}
