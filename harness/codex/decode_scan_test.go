package codex

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// checkScanAgrees asserts the scanner's contract: whenever it takes a line
// it decodes exactly what json.Unmarshal decodes into fastLine, and it never
// takes a line json.Unmarshal rejects.
func checkScanAgrees(t *testing.T, line []byte) {
	t.Helper()
	got, ok := scanLine(line, true)
	var want fastLine
	err := json.Unmarshal(line, &want)
	if !ok {
		return
	}
	if err != nil {
		t.Fatalf("scanner took %q, which json.Unmarshal rejects: %v", line, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scanner and json.Unmarshal differ on %q:\n scan %+v\n json %+v", line, got, want)
	}
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
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "transcripts", "codex", "*", "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no recordings")
	}
	taken, lines := 0, 0
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			lines++
			checkScanAgrees(t, sc.Bytes())
			if _, ok := scanLine(sc.Bytes(), true); ok {
				taken++
			}
		}
		f.Close()
	}
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
