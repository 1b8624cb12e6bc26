package modelserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// geminiBody is a GenerateContentRequest as the Gemini CLI sends it: its
// session context as a user content, the prompt, a model call and the
// function response.
func geminiBody(lastIsResult bool) map[string]any {
	contents := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "<session_context>ctx</session_context>"}, map[string]any{"text": "read notes.txt"}}},
	}
	if lastIsResult {
		contents = append(contents,
			map[string]any{"role": "model", "parts": []any{map[string]any{"text": "thinking", "thought": true}, map[string]any{"functionCall": map[string]any{"name": "read_file", "args": map[string]any{"file_path": "notes.txt"}}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "read_file", "response": map[string]any{"output": "buy milk"}}}}})
	}
	return map[string]any{"contents": contents, "systemInstruction": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "You are Gemini CLI"}}}}
}

// reassembleGemini rebuilds a reply from GenerateContentResponse chunks:
// every chunk has one candidate of role model; only the last carries
// finishReason and usageMetadata.
func reassembleGemini(t *testing.T, chunks []map[string]any) got {
	t.Helper()
	var g got
	for i, c := range chunks {
		cands, _ := c["candidates"].([]any)
		if len(cands) != 1 {
			t.Fatalf("chunk %d has %d candidates, want 1", i, len(cands))
		}
		cand := cands[0].(map[string]any)
		if str(t, cand, "content.role") != "model" {
			t.Fatalf("chunk %d role %v", i, cand["content"])
		}
		_, finish := cand["finishReason"]
		_, usage := c["usageMetadata"]
		if last := i == len(chunks)-1; finish != last || usage != last {
			t.Fatalf("chunk %d of %d: finishReason %v usageMetadata %v; only the last chunk carries them", i, len(chunks), finish, usage)
		}
		if finish {
			g.Stop = str(t, cand, "finishReason")
			g.InputTokens = num(t, c, "usageMetadata.promptTokenCount")
			g.OutputTokens = num(t, c, "usageMetadata.candidatesTokenCount")
		}
		for _, p := range dig(t, cand, "content.parts").([]any) {
			part := p.(map[string]any)
			switch {
			case part["functionCall"] != nil:
				fc := part["functionCall"].(map[string]any)
				args, _ := json.Marshal(fc["args"])
				id, _ := fc["id"].(string)
				g.Calls = append(g.Calls, call{ID: id, Name: fc["name"].(string), Input: string(args)})
			case part["thought"] == true:
				g.Thinking += part["text"].(string)
			default:
				g.Text += part["text"].(string)
			}
		}
	}
	return g
}

func TestGeminiGenerateContent(t *testing.T) {
	for _, stream := range []bool{true, false} {
		for _, tc := range protocolReplies {
			name := tc.name + "/generate"
			if stream {
				name = tc.name + "/stream"
			}
			t.Run(name, func(t *testing.T) {
				srv := start(t, &Script{Turns: []Reply{tc.reply}, Usage: Usage{InputTokens: 1234}}, "")
				url := srv.URL() + "/v1beta/models/gemini-test:generateContent"
				if stream {
					url = srv.URL() + "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
				}
				status, ctype, body := post(t, url, geminiBody(false), nil)
				if status != 200 {
					t.Fatalf("status %d: %s", status, body)
				}
				var chunks []map[string]any
				if stream {
					if !strings.HasPrefix(ctype, "text/event-stream") {
						t.Fatalf("content-type %q, want text/event-stream", ctype)
					}
					for _, e := range parseSSE(t, body) {
						if e.name != "" {
							t.Fatalf("event name %q: the Gemini API sends data lines only", e.name)
						}
						chunks = append(chunks, obj(t, e.data))
					}
				} else {
					chunks = append(chunks, obj(t, string(body)))
				}
				g := reassembleGemini(t, chunks)
				// The real API sends no call ids: the CLI makes its own.
				for i, c := range g.Calls {
					if c.ID != tc.reply.ToolCalls[i].ID {
						t.Fatalf("call %d id %q, want the scripted %q or none", i, c.ID, tc.reply.ToolCalls[i].ID)
					}
				}
				checkReply(t, g, tc.reply, srv.cfg.Script.usageFor(tc.reply), "STOP", "STOP", "")
				if m := str(t, chunks[0], "modelVersion"); m != "gemini-test" {
					t.Fatalf("modelVersion %q, want the model of the path", m)
				}
			})
		}
	}
}

func TestGeminiRequestView(t *testing.T) {
	yes, no := true, false
	sc := &Script{
		Rules: []Rule{
			{Name: "after-result", Match: Match{Protocol: Gemini, LastIsToolResult: &yes, SystemContains: "Gemini CLI"}, Reply: Reply{Text: "done"}},
			{Name: "prompt", Match: Match{Protocol: Gemini, LastIsToolResult: &no, LastUserContains: "read notes.txt"}, Reply: Reply{Text: "reading"}},
		},
		Turns: []Reply{{Text: "unused"}},
	}
	srv := start(t, sc, "")
	for _, lastIsResult := range []bool{false, true} {
		if status, _, body := post(t, srv.URL()+"/v1beta/models/m:generateContent", geminiBody(lastIsResult), nil); status != 200 {
			t.Fatalf("status %d: %s", status, body)
		}
	}
	// countTokens is auxiliary; any other method is off script.
	if status, _, body := post(t, srv.URL()+"/v1beta/models/m:countTokens", geminiBody(false), nil); status != 200 || !strings.Contains(string(body), "totalTokens") {
		t.Fatalf("countTokens: %d %s", status, body)
	}
	if status, _, body := post(t, srv.URL()+"/v1beta/models/m:embedContent", geminiBody(false), nil); status != 404 || !strings.Contains(string(body), "NOT_FOUND") {
		t.Fatalf("embedContent: %d %s", status, body)
	}
	reqs := srv.ModelRequests(Gemini)
	if len(reqs) != 2 || reqs[0].Answer != "rule prompt" || reqs[1].Answer != "rule after-result" {
		t.Fatalf("answers %+v", reqs)
	}
	if reqs[0].LastUserText != "<session_context>ctx</session_context>\nread notes.txt" || !reqs[1].LastIsToolResult {
		t.Fatalf("views: %q %v", reqs[0].LastUserText, reqs[1].LastIsToolResult)
	}
	msgs, err := reqs[1].Messages()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Role+": "+m.Text)
	}
	want := []string{"system: You are Gemini CLI", "user: <session_context>ctx</session_context>\nread notes.txt",
		`assistant: call read_file {"file_path":"notes.txt"}`, `tool: {"output":"buy milk"}`}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("messages:\n%q\nwant\n%q", texts, want)
	}
	if p := srv.Problems(); len(p) != 1 || !strings.Contains(p[0], "embedContent") {
		t.Fatalf("problems %q, want the embedContent request only", p)
	}
}

func TestGeminiError(t *testing.T) {
	srv := start(t, &Script{Turns: []Reply{{Error: &HTTPError{Status: 429, Message: "slow down"}}}}, "")
	status, _, body := post(t, srv.URL()+"/v1beta/models/m:streamGenerateContent?alt=sse", geminiBody(false), nil)
	m := obj(t, string(body))
	if status != 429 || num(t, m, "error.code") != 429 || str(t, m, "error.status") != "RESOURCE_EXHAUSTED" || str(t, m, "error.message") != "slow down" {
		t.Fatalf("error answer %d %s", status, body)
	}
}
