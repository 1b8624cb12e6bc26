package claude

import (
	"encoding/json"
	"testing"

	"github.com/notesoup/notesoup/internal/scantest"
)

// infoView is what SessionInfo reads from a decoded line: every field, and
// the message content only as the typed prompt it may be.
type infoView struct {
	ok                          bool
	typ, cwd, ts, custom, ai    string
	isMeta, isSidechain, hasMsg bool
	isCompactSummary            bool
	contentText                 string
	contentIsString             bool
	prompt                      string // promptText of the content
}

func viewOf(ok bool, r infoRecord) infoView {
	v := infoView{ok: ok, typ: r.Type, cwd: r.Cwd, ts: r.Timestamp, custom: r.CustomTitle, ai: r.AITitle,
		isMeta: r.IsMeta, isSidechain: r.IsSidechain, hasMsg: r.Message != nil, isCompactSummary: r.IsCompactSummary}
	if r.Message != nil {
		v.contentIsString = json.Unmarshal(r.Message.Content, &v.contentText) == nil
		v.prompt = promptText(r.Message.Content)
	}
	return v
}

// checkInfo asserts that decodeInfo reads line exactly as encoding/json.
func checkInfo(t *testing.T, line []byte) {
	t.Helper()
	var want, got infoRecord
	wantOK := json.Unmarshal(line, &want) == nil
	gotOK := decodeInfo(line, &got)
	if w, g := viewOf(wantOK, want), viewOf(gotOK, got); w != g && (w.ok || g.ok) {
		t.Fatalf("line %q:\n encoding/json %+v\n decodeInfo    %+v", line, w, g)
	}
}

func TestDecodeInfoMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		fastPath bool // the scanner takes it without falling back
	}{
		{"user prompt", `{"type":"user","cwd":"/w","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi \u00e9\n"}}`, true},
		{"tool result array", `{"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]},"isSidechain":false}`, true},
		{"titles", `{"type":"custom-title","customTitle":"Mine"}`, true},
		{"prompt with an image", `{"type":"user","message":{"content":[{"type":"text","text":"look"},{"type":"image","source":{}}]}}`, true},
		{"compaction summary", `{"type":"user","isCompactSummary":true,"message":{"content":"This session is being continued"}}`, true},
		{"ai title", `{"type":"ai-title","aiTitle":"Theirs","isMeta":true}`, true},
		{"nulls keep zero values", `{"type":null,"cwd":null,"isMeta":null,"message":null}`, true},
		{"whitespace", " \t{ \"type\" : \"user\" , \"message\" : { \"content\" : \"x\" } } ", true},
		{"unknown keys skipped", `{"x":{"y":[1,2,{"z":null}]},"type":"assistant","n":-1.5e3}`, true},
		{"wrong type", `{"type":"user","isMeta":"yes"}`, false},
		{"wrong type in message", `{"message":"text"}`, false},
		{"duplicate key", `{"type":"user","type":"assistant"}`, false},
		{"case-folded key", `{"Type":"user"}`, false},
		{"escaped key", `{"ty\u0070e":"user"}`, false},
		{"trailing garbage", `{"type":"user"} x`, false},
		{"not an object", `["type","user"]`, false},
		{"truncated", `{"type":"user","message":{"content":"x`, false},
		{"invalid utf-8", "{\"cwd\":\"a\xffb\"}", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkInfo(t, []byte(tc.line))
			var r infoRecord
			if _, done := scanInfo([]byte(tc.line), &r); done != tc.fastPath {
				t.Errorf("fast path taken = %v, want %v", done, tc.fastPath)
			}
		})
	}
}

// TestDecodeInfoOnRealTranscripts runs every line Claude Code wrote in the
// recorded scenarios through both paths.
func TestDecodeInfoOnRealTranscripts(t *testing.T) {
	lines := scantest.EachRecordedLine(t, func(line []byte) { checkInfo(t, line) }, "claude/*/*.jsonl", "claude/*/*/*.jsonl")
	if lines < 100 {
		t.Fatalf("only %d lines in the recorded transcripts", lines)
	}
}

func FuzzDecodeInfo(f *testing.F) {
	for _, s := range []string{`{"type":"user","message":{"content":"hi"}}`, `{"type":"ai-title","aiTitle":"t","isMeta":false}`, `{"message":{"content":[1]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkInfo(t, line) })
}
