package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// uuidClause is a part of the notice that names uuids: records missing
// from the file, or (group 1 set) the compact boundaries a fork cut at.
var uuidClause = regexp.MustCompile(`\((compact boundary )?uuid ([^)]*)\)`)

// TestGapNoticeNamesOnlyMissingRecords decodes every fixture and recorded
// transcript and checks that no gap note or notice names, as missing, a
// record the file holds. A fork of a compacted session relinks the
// boundary's logical parent after it, so that parent is in the file: the
// notice names the boundary as the cut instead.
func TestGapNoticeNamesOnlyMissingRecords(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/history/claude/*.jsonl")
	files = append(files, recorded(t)...)
	forkCuts := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		present := func(uuid string) bool { return bytes.Contains(data, []byte(`"uuid":"`+uuid+`"`)) }
		boundary := func(uuid string) bool {
			for _, l := range bytes.Split(data, []byte("\n")) {
				if bytes.Contains(l, []byte(`"uuid":"`+uuid+`"`)) && bytes.Contains(l, []byte(`"subtype":"compact_boundary"`)) {
					return true
				}
			}
			return false
		}
		sid := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		if strings.HasPrefix(file, "../../testdata/history/") {
			sid = fixtureSID
			if strings.HasPrefix(filepath.Base(file), "fork_") {
				sid = forkSID
			}
		}
		abs, _ := filepath.Abs(file)
		_, sum, err := decodeFixture(t, abs, sid, "")
		if err != nil {
			continue // the refusal fixtures
		}
		for _, n := range sum.Notes {
			if n.Kind != history.NoteGap {
				continue
			}
			cut := strings.HasPrefix(n.Message, forkCutPrefix)
			if cut {
				forkCuts++
			}
			// A note may name a record the file holds only as the
			// compact boundary a fork cut at.
			if present(n.Ref) && !(cut && boundary(n.Ref)) {
				t.Errorf("%s: gap note names %s, which the file holds, as missing: %s", file, n.Ref, n.Message)
			}
		}
		notice := IncompleteHistoryNotice(sum)
		for _, m := range uuidClause.FindAllStringSubmatch(notice, -1) {
			for _, u := range strings.Split(strings.TrimSuffix(m[2], "…"), ", ") {
				u, _, _ = strings.Cut(u, " and ")
				if present(u) && !(m[1] != "" && boundary(u)) {
					t.Errorf("%s: the notice names %s, which the file holds, as missing:\n%s", file, u, notice)
				}
			}
		}
	}
	if forkCuts < 2 {
		t.Errorf("only %d fork cuts met; the fixtures hold at least two (fork_relinked.jsonl and the recorded fork-compacted fork)", forkCuts)
	}
}
