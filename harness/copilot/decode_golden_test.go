package copilot

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

// transcriptsDir holds real sessions recorded by e2e/record.sh from the
// pinned Copilot CLI, one folder per scenario laid out as
// $COPILOT_HOME/session-state.
const transcriptsDir = "../../testdata/transcripts/copilot"

// recorded returns the recorded events.jsonl files, by scenario folder.
func recorded(t testing.TB) map[string][]string {
	dirs, err := filepath.Glob(filepath.Join(transcriptsDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*", eventsFile))
		if len(files) > 0 {
			out[dir] = files
		}
	}
	if len(out) < 5 {
		t.Fatalf("%d recorded scenarios under %s, want 5; run e2e/record.sh", len(out), transcriptsDir)
	}
	return out
}

// TestRecordedTranscripts decodes every recorded session. Each must decode
// without refusal and keep the model's invariants (ascending seqs,
// symmetric pairing, no reasoning or system prompt shown, windows of its
// own session), must be listed by SessionFiles and Describe with its
// folder's id, workspace.yaml's cwd and name, and must match its reviewed
// golden projection in testdata/golden.
func TestRecordedTranscripts(t *testing.T) {
	for dir, files := range recorded(t) {
		listed, err := SessionFiles([]string{dir}, "")
		if err != nil {
			t.Fatalf("%s: list: %v", dir, err)
		}
		for _, path := range files {
			t.Run(filepath.Base(dir), func(t *testing.T) {
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
	facts := rawFacts(t, path)
	prefix := Name + ":" + facts.id + ":"
	bySeq := map[int64]history.Event{}
	var last int64
	for _, e := range events {
		if e.Seq <= last {
			t.Errorf("seq %d after %d", e.Seq, last)
		}
		last = e.Seq
		bySeq[e.Seq] = e
		if !strings.HasPrefix(e.Window, prefix) {
			t.Errorf("seq %d window %q is not in session %s", e.Seq, e.Window, facts.id)
		}
		for _, hidden := range facts.hidden {
			if strings.Contains(e.Text, hidden) {
				t.Errorf("seq %d shows hidden text %.60q", e.Seq, hidden)
			}
		}
	}
	for _, e := range events {
		if e.Kind == history.KindToolUse && e.PairSeq == 0 {
			t.Errorf("seq %d: a recorded call without its result: %+v", e.Seq, e)
		}
		if e.PairSeq == 0 {
			continue
		}
		p, ok := bySeq[e.PairSeq]
		if !ok || p.PairSeq != e.Seq || p.ToolID != e.ToolID || p.Kind == e.Kind {
			t.Errorf("seq %d pairs with %d, which does not pair back: %+v", e.Seq, e.PairSeq, p)
		}
	}
	if !sum.HeadKnown || len(sum.Notes) != 0 || sum.Notice != "" || sum.HeadWindow != sum.Windows[len(sum.Windows)-1] {
		t.Errorf("summary of a complete recorded session: %+v", sum)
	}
	if len(sum.Windows) != facts.compactions+1 {
		t.Errorf("%d windows, want one more than the %d applied compactions", len(sum.Windows), facts.compactions)
	}
	var found *history.Session
	for i := range listed {
		if listed[i].Path == path {
			found = &listed[i]
		}
	}
	if found == nil || found.ID != facts.id {
		t.Fatalf("SessionFiles lists %+v, want %s as %s", listed, path, facts.id)
	}
	desc, ok, err := Describe(path)
	ws, werr := readWorkspace(filepath.Join(filepath.Dir(path), workspaceFile))
	if werr != nil || ws.ID != facts.id || ws.Name == "" || ws.Cwd == "" {
		t.Fatalf("workspace.yaml: %+v, %v", ws, werr)
	}
	if !ok || err != nil || desc.ID != facts.id || desc.Cwd != ws.Cwd || desc.Title != OneLine(ws.Name) || desc.Started.IsZero() || desc.Updated.Before(desc.Started) {
		t.Errorf("Describe = %+v, %v, %v; want id %s cwd %s title %q", desc, ok, err, facts.id, ws.Cwd, ws.Name)
	}
	compareGolden(t, path, events, sum)
}

// OneLine is the title Describe makes of a name or prompt.
func OneLine(s string) string { return harness.OneLine(s, TitleMax) }

// facts are what a test reads straight from a recorded file, independently
// of the decoder.
type facts struct {
	id          string
	compactions int
	// hidden are texts the decoder must never show: reasoning, the system
	// prompt, the CLI's transformed prompt.
	hidden []string
}

func rawFacts(t *testing.T, path string) facts {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out facts
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var v struct {
			Type string `json:"type"`
			Data struct {
				SessionID          string `json:"sessionId"`
				Success            bool   `json:"success"`
				ReasoningText      string `json:"reasoningText"`
				TransformedContent string `json:"transformedContent"`
				Content            any    `json:"content"`
			} `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("recorded file is not JSONL: %v", err)
		}
		switch v.Type {
		case evStart:
			out.id = v.Data.SessionID
		case evCompactionComplete:
			if v.Data.Success {
				out.compactions++
			}
		case "system.message":
			if s, ok := v.Data.Content.(string); ok && len(s) > 200 {
				out.hidden = append(out.hidden, s[:200])
			}
		}
		if v.Data.ReasoningText != "" {
			out.hidden = append(out.hidden, v.Data.ReasoningText)
		}
		if strings.HasPrefix(v.Data.TransformedContent, "<current_datetime>") {
			out.hidden = append(out.hidden, "<current_datetime>")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
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
	scenario := filepath.Base(filepath.Dir(filepath.Dir(path)))
	golden := filepath.Join("testdata", "golden", scenario+".golden")
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
		t.Fatalf("no golden projection for this recording (%v): review `go test ./harness/copilot -run TestRecordedTranscripts -update` and commit testdata/golden", err)
	}
	if string(want) != b.String() {
		t.Errorf("projection differs from %s:\n got:\n%s\nwant:\n%s", golden, b.String(), want)
	}
}

// TestRawSearchPromise: every word the decoder writes is in the line it
// came from, so a search may rule a session out from its bytes.
func TestRawSearchPromise(t *testing.T) {
	var paths []string
	for _, files := range recorded(t) {
		paths = append(paths, files...)
	}
	harnesstest.RawSearchPromise(t, Plugin(), SynthesizedWords, append(paths, harnesstest.OversizedLine(t, toolsSession, 4))...)
}

// toolsSession is the recorded tools scenario's events.jsonl.
var toolsSession = filepath.Join(transcriptsDir, "tools", "0c0c0c0c-7c1d-4f3e-9a2b-000000000001", eventsFile)

// TestOversizedLineSkipped: one event over the bound is skipped with a
// notice; the rest of the session stays readable at stable addresses.
func TestOversizedLineSkipped(t *testing.T) {
	for _, after := range []int{1, 3, 7} {
		harnesstest.OversizedLineSkipped(t, Plugin(), toolsSession, after, skippedText)
	}
}
