package gemini

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/harnesstest"
	"github.com/notesoup/notesoup/shared/history"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the recorded transcripts (review the diff)")

// transcriptsDir holds real chats recorded by e2e/record.sh from the pinned
// Gemini CLI, one folder per scenario laid out as ~/.gemini/tmp.
const transcriptsDir = "../../testdata/transcripts/gemini"

// recorded returns the recorded chat files, by scenario folder.
func recorded(t testing.TB) map[string][]string {
	dirs, err := filepath.Glob(filepath.Join(transcriptsDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "chats", "*.jsonl"))
		if len(files) > 0 {
			out[dir] = files
		}
	}
	if len(out) == 0 {
		t.Fatalf("no recorded transcripts under %s; run e2e/record.sh", transcriptsDir)
	}
	return out
}

// TestRecordedTranscripts decodes every recorded chat. Each must decode
// without refusal and keep the model's invariants (ascending seqs,
// symmetric pairing, no thought text, no session context, windows of its
// own session), must be listed by SessionFiles and Describe with its
// metadata's id, its project's directory and its first prompt, and must
// match its reviewed golden projection in testdata/golden.
func TestRecordedTranscripts(t *testing.T) {
	for dir, files := range recorded(t) {
		listed, err := SessionFiles([]string{dir}, "")
		if err != nil {
			t.Fatalf("%s: list: %v", dir, err)
		}
		for _, path := range files {
			t.Run(filepath.Base(dir)+"/"+filepath.Base(path), func(t *testing.T) {
				checkRecorded(t, path, listed)
			})
		}
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
	id, thoughts := rawFacts(t, path)
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
		for _, th := range thoughts {
			if strings.Contains(e.Text, th) {
				t.Errorf("seq %d shows thought text %q", e.Seq, th)
			}
		}
		if strings.Contains(e.Text, "<session_context>") {
			t.Errorf("seq %d shows the CLI's session context", e.Seq)
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
	if !sum.HeadKnown || len(sum.Notes) != 0 || sum.Notice != "" || sum.HeadWindow != sum.Windows[len(sum.Windows)-1] {
		t.Errorf("summary of a complete recorded chat: %+v", sum)
	}
	var found *history.Session
	for i := range listed {
		if listed[i].Path == path {
			found = &listed[i]
		}
	}
	if found == nil || !strings.HasPrefix(id, found.ID) {
		t.Fatalf("SessionFiles lists %+v, want %s named for a prefix of %s", listed, path, id)
	}
	desc, ok, err := Describe(path)
	title := ""
	for _, e := range events {
		if e.Role == history.RoleUser && e.Kind == history.KindMessage {
			title = OneLine(e.Text)
			break
		}
	}
	cwd, _ := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(path)), ".project_root"))
	if !ok || err != nil || desc.ID != id || desc.Cwd != strings.TrimSpace(string(cwd)) || desc.Title != title || desc.Started.IsZero() || desc.Updated.Before(desc.Started) {
		t.Errorf("Describe = %+v, %v, %v; want id %s cwd %s title %q", desc, ok, err, id, cwd, title)
	}
	compareGolden(t, path, events, sum)
}

// OneLine is the title Describe makes of a prompt.
func OneLine(s string) string { return harness.OneLine(s, TitleMax) }

// rawFacts reads the session id and every thought straight from the file,
// independently of the decoder.
func rawFacts(t *testing.T, path string) (id string, thoughts []string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for first := true; sc.Scan(); first = false {
		var v struct {
			SessionID string `json:"sessionId"`
			Thoughts  []struct {
				Subject     string `json:"subject"`
				Description string `json:"description"`
			} `json:"thoughts"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("recorded file is not JSONL: %v", err)
		}
		if first {
			id = v.SessionID
		}
		for _, th := range v.Thoughts {
			for _, s := range []string{th.Subject, th.Description} {
				if len(s) >= 8 {
					thoughts = append(thoughts, s)
				}
			}
		}
	}
	return id, thoughts
}

func render(e history.Event) string {
	s := fmt.Sprintf("%d @%d %s %s/%s %q", e.Seq, e.Line, e.Window, e.Kind, e.Role, e.Text)
	if e.ToolID != "" || e.ToolName != "" {
		s += fmt.Sprintf(" tool=%s#%s pair=%d", e.ToolName, e.ToolID, e.PairSeq)
	}
	if e.ToolInput != "" {
		s += " input=" + e.ToolInput
	}
	if e.IsError {
		s += " error"
	}
	return s
}

// compareGolden compares the full projection with its golden file, or
// writes it with -update.
func compareGolden(t *testing.T, path string, events []history.Event, sum history.Summary) {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "%s %s\n", render(e), e.Time.Format("2006-01-02T15:04:05.000Z07:00"))
	}
	fmt.Fprintf(&b, "windows=%v head=%s known=%v ordinal=%d\n", sum.Windows, sum.HeadWindow, sum.HeadKnown, sum.HeadOrdinal)
	scenario := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(path))))
	golden := filepath.Join("testdata", "golden", scenario, strings.TrimSuffix(filepath.Base(path), ".jsonl")+".golden")
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
		t.Fatalf("no golden projection for this recording (%v): review `go test ./harness/gemini -run TestRecordedTranscripts -update` and commit testdata/golden", err)
	}
	if string(want) != b.String() {
		t.Errorf("projection differs from %s:\n got:\n%s\nwant:\n%s", golden, b.String(), want)
	}
}

// TestRawSearchPromise: every word the decoder writes is in the line it
// came from, so a search may rule a chat out from its bytes.
func TestRawSearchPromise(t *testing.T) {
	var paths []string
	for _, files := range recorded(t) {
		paths = append(paths, files...)
	}
	harnesstest.RawSearchPromise(t, Plugin(), nil, paths...)
}
