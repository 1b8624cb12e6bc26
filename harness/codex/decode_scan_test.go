package codex

import (
	"reflect"
	"testing"

	"github.com/notesoup/notesoup/internal/scantest"
)

// checkScanAgrees asserts the scanner's contract (scantest.Agrees) and
// reports whether it took the line.
func checkScanAgrees(t *testing.T, line []byte) bool {
	t.Helper()
	return scantest.Agrees(t, line, func(l []byte) (fastLine, bool) { return scanLine(l, true) })
}

func TestScanLineAgreesWithUnmarshal(t *testing.T) {
	cases := []string{
		`{"timestamp":"t","ordinal":3,"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c"}}`,
		`{"ordinal":1.0,"type":"x","payload":{}}`,
		`{"ordinal":99999999999999999999,"type":"x","payload":{}}`,
		`{"ordinal":-0,"type":"x","payload":{"output":null,"arguments":null,"action":null}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c","status":"failed","result":{"isError":true}}}}`,
		`{"type":"event_msg","payload":{"type":"task_complete","error":{"message":"boom"}}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"a\nb"}]},"metadata":{"compaction_output":true}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"x"}]}}`,
		`{"Type":"x","payload":{}}`,
		`{"type":"x","payload":{"Call_ID":"c"}}`,
		`{"type":"x","type":"y","payload":{}}`,
		`{"type":"x","payload":{"content":[null]}}`,
		`{"type":"x","payload":{"content":"s"}}`,
		`{"type":"x","payload":{}} trailing`,
	}
	for _, c := range cases {
		checkScanAgrees(t, []byte(c))
	}
	taken := 0
	lines := scantest.EachRecordedLine(t, func(line []byte) {
		if checkScanAgrees(t, line) {
			taken++
		}
	}, "codex/*/*.jsonl")
	if taken < lines*3/4 {
		t.Errorf("the scanner took only %d of %d recorded lines", taken, lines)
	}
}

func FuzzScanLine(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-12-02T12:09:14.464Z","ordinal":13,"type":"response_item","payload":{"type":"function_call","status":"completed","id":"fc","name":"echo","namespace":"mcp__echo","arguments":"{}","call_id":"c"},"metadata":{"history_sequence":6}}`))
	f.Add([]byte(`{"type":"compacted","payload":{"message":"s","replacement_history":[]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkScanAgrees(t, line)
	})
}

// TestOutputItemsAgree: an output array of content items (MCP tools) is
// taken by the scanner and read exactly as the general path reads it, and
// every shape the scanner cannot mirror (a map keeps a duplicate's last
// value, a mistyped type or text) is left to encoding/json.
func TestOutputItemsAgree(t *testing.T) {
	line := func(output string) string {
		return `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":` + output + `}}`
	}
	tests := []struct {
		output string
		taken  bool // by the scanner
	}{
		{`[{"type":"input_text","text":"x"}]`, true},
		{`[]`, true},
		{`[{"type":"input_text","text":"a\nb \"q\" \u00e9"},{"type":"input_image","image_url":"data:..."},{"type":"output_text","text":""},{"text":"y","type":"text"}]`, true},
		{`[{"type":null,"text":1},{"type":"text","text":"z","extra":[1,{"a":null}]}]`, true},
		{"[{\"type\":\"text\",\"text\":\"bad \xff utf-8\"}]", true},
		{`[{"type":"text"}]`, false},
		{`[{"type":"text","text":null}]`, false},
		{`[{"type":"text","text":3}]`, false},
		{`[{"type":3,"text":"x"}]`, false},
		{`[{"type":"text","text":"a","text":"b"}]`, false},
		{`[{"type":"text","type":"image","text":"b"}]`, false},
		{`["text"]`, false},
		{`[null]`, false},
		{`[{"t\u0079pe":"text","text":"b"}]`, false},
		{`[{"type":"text","text":"a"},]`, false},
	}
	for _, tc := range tests {
		l := []byte(line(tc.output))
		if _, ok := scanLineItems(l, true, true); ok != tc.taken {
			t.Errorf("scanner took %s: %v, want %v", tc.output, ok, tc.taken)
		}
		for _, withText := range []bool{false, true} {
			f, fok := parseRecordFast(l, withText)
			g, err := parseRecordGeneral(l, withText)
			if fok && (err != nil || !reflect.DeepEqual(f, g)) {
				t.Errorf("%s (text %v): fast %+v, general %+v (%v)", tc.output, withText, f, g, err)
			}
		}
	}
}

// TestSessionMetaAgrees: a session_meta line is read by the scanner exactly
// as the general path reads it, and the shapes it cannot mirror (a
// duplicate, a case-folded or mistyped field) are left to encoding/json.
func TestSessionMetaAgrees(t *testing.T) {
	tests := []struct {
		line  string
		taken bool
	}{
		{`{"timestamp":"2026-01-02T03:04:05.678Z","ordinal":0,"type":"session_meta","payload":{"id":"t1","timestamp":"x","cwd":"/w","base_instructions":{"text":"long\n\"quoted\""},"git":null}}`, true},
		{`{"type":"session_meta","payload":{"session_id":"t2","history_base":{"thread_id":"p","end_ordinal_exclusive":7,"end_byte_offset":1234}},"metadata":[1]}`, true},
		{`{"type":"session_meta","payload":{"id":"t3","history_base":null,"forked_from_id":null}}`, true},
		{`{"type":"session_meta","payload":null}`, true},
		{`{"type":"session_meta","payload":{"ID":"t4"}}`, false},
		{`{"type":"session_meta","payload":{"id":"a","id":"b"}}`, false},
		{`{"type":"session_meta","payload":{"id":5}}`, false},
		{`{"type":"session_meta","payload":{"history_base":{"end_byte_offset":1.5}}}`, false},
		{`{"type":"session_meta","payload":"x"}`, false},
		{`{"type":"session_meta"}`, false},
	}
	for _, tc := range tests {
		if _, ok := scanMetaLine([]byte(tc.line), false); ok != tc.taken {
			t.Errorf("scanner took %s: %v, want %v", tc.line, ok, tc.taken)
		}
		for _, withText := range []bool{false, true} {
			f, fok := parseRecordFast([]byte(tc.line), withText)
			g, err := parseRecordGeneral([]byte(tc.line), withText)
			if fok && (err != nil || !reflect.DeepEqual(f, g)) {
				t.Errorf("%s (text %v): fast %+v %+v, general %+v %+v (%v)", tc.line, withText, f, f.meta, g, g.meta, err)
			}
		}
	}
}
