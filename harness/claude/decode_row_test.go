package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// rowRead is what the second pass takes from a row, however it reads it.
type rowRead struct {
	Rec        fullRecord
	Text       string
	Blocks     []fullBlock
	Err        string
	ResultText []string // each block's content, as a tool result reads it
	ResultErr  []string
}

// readGeneral reads a row the general way: parseFull, then contentText.
func readGeneral(line []byte) (rowRead, bool) {
	var r rowRead
	if parseFull(line, &r.Rec) != nil {
		return r, false
	}
	text, blocks, err := contentText(r.Rec.MessageContent)
	r.Text, r.Blocks, r.Err = text, blocks, errString(err)
	for _, b := range blocks {
		t, _, err := contentText(b.Content)
		r.ResultText, r.ResultErr = append(r.ResultText, t), append(r.ResultErr, errString(err))
	}
	return r, true
}

// readOnePass reads a row with parseRowTrusted.
func readOnePass(line []byte) (rowRead, bool) {
	var r rowRead
	var msg decodedContent
	has, ok := parseRowTrusted(line, &r.Rec, &msg)
	if has {
		r.Text, r.Blocks, r.Err = msg.text, msg.blocks, errString(msg.err)
	}
	for i := range r.Blocks {
		b := &r.Blocks[i]
		t, err := "", error(nil)
		if b.decoded != nil {
			t, err = b.decoded.text, b.decoded.err
		} else {
			t, _, err = contentText(b.Content)
		}
		r.ResultText, r.ResultErr = append(r.ResultText, t), append(r.ResultErr, errString(err))
		b.decoded = nil // compared through ResultText
	}
	return r, ok
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestRowOnePassAgrees: over validated rows, the one-pass read of the
// second pass reads exactly what parseFull and contentText read, on every
// recorded and hand-written transcript line and on the shapes the general
// walkers treat specially (duplicates, escaped keys, mistyped fields,
// non-object blocks, nested tool result content).
func TestRowOnePassAgrees(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u","message":{"role":"user","content":"hi \"there\"\n"}}`,
		`{"type":"assistant","uuid":"u","timestamp":"t","message":{"content":[{"type":"text","text":"a"},{"type":"thinking","thinking":"x"},{"type":"text","text":"b\u00e9"},{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"ls"}}]}}`,
		`{"type":"user","uuid":"u","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"out"},{"type":"image"},{"type":"text","text":"more"}],"is_error":true}]}}`,
		`{"type":"user","uuid":"u","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":"plain \\ out","is_error":null}]}}`,
		`{"type":"user","uuid":"u","message":{"content":[{"type":"tool_result","content":{"a":1}},{"type":"tool_result","content":7}]}}`,
		`{"type":"user","uuid":"u","message":{"content":{"a":1}}}`,
		`{"type":"user","uuid":"u","message":{"content":3}}`,
		`{"type":"user","uuid":"u","message":{"content":null}}`,
		`{"type":"user","uuid":"u","message":{"role":"user"}}`,
		`{"type":"user","uuid":"u","message":"not an object"}`,
		`{"type":"user","uuid":"u","message":{"content":"first"},"message":{"role":"x"}}`,
		`{"type":"user","uuid":"u","message":{"content":"first"},"message":{"content":"second"}}`,
		`{"type":"user","uuid":"u","type":7,"uuid":"v","message":{"content":[1,"s",null,{"type":"text","text":"t","text":"u"}]}}`,
		`{"typ\u0065":"user","uuid":"u","message":{"cont\u0065nt":"hidden","content":"shown"}}`,
		`{"type":"user","uuid":"u","isCompactSummary":true,"message":{"content":[{"type":"text","text":""},{"type":"text","text":5}]}}`,
		`{"type":"user","uuid":"u","isCompactSummary":"yes","message":{"content":[]}}`,
		`{"type":"system","uuid":"u","content":"note","rendered":[{"content":"r"}]}`,
		`  {"type":"user","uuid":"u","message":{"content":"padded"}}  `,
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "transcripts", "claude", "*", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "history", "claude", "*.jsonl"))
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	taken := 0
	for _, line := range lines {
		if !json.Valid([]byte(line)) {
			continue // the second pass only reads validated rows
		}
		want, wok := readGeneral([]byte(line))
		got, ok := readOnePass([]byte(line))
		if !ok {
			continue // read the general way
		}
		taken++
		if !wok || !reflect.DeepEqual(got, want) {
			t.Errorf("%.200s:\n one pass %+v\n general  %+v", line, got, want)
		}
	}
	if taken < 100 {
		t.Errorf("only %d rows taken in one pass", taken)
	}
}
