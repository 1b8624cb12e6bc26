package modelserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// replies used by every protocol test: plain text, thinking + text + one
// call, parallel calls (one with a long input that spans several deltas),
// and a multi-byte text longer than one delta.
var protocolReplies = []struct {
	name  string
	reply Reply
}{
	{"text", Reply{Text: "Hello there."}},
	{"thinking-text-tool", Reply{Thinking: "I should look at the file first.", Text: "Let me check.",
		ToolCalls: []ToolCall{{Name: "read", Input: json.RawMessage(`{"path": "notes.txt"}`)}}}},
	{"parallel-tools", Reply{ToolCalls: []ToolCall{
		{Name: "bash", Input: json.RawMessage(`{"command":"echo one two three four five six seven eight nine ten"}`)},
		{Name: "ls", ID: "call_fixed"},
	}, Usage: &Usage{InputTokens: 99000, OutputTokens: 7, CacheReadTokens: 500}}},
	{"long-utf8", Reply{Text: strings.Repeat("héllo wörld ✓ ", 9)}},
}

func TestAnthropicStream(t *testing.T) {
	for _, tc := range protocolReplies {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t, &Script{Turns: []Reply{tc.reply}, Usage: Usage{InputTokens: 1234}}, "")
			status, ctype, body := post(t, srv.URL()+"/v1/messages?beta=true", map[string]any{
				"model": "claude-test", "stream": true, "max_tokens": 100,
				"messages": []any{map[string]any{"role": "user", "content": "hi"}},
			}, nil)
			if status != 200 || !strings.HasPrefix(ctype, "text/event-stream") {
				t.Fatalf("status %d content-type %q, want 200 text/event-stream; body %s", status, ctype, body)
			}
			g := reassembleAnthropic(t, parseSSE(t, body))
			checkReply(t, g, tc.reply, srv.cfg.Script.usageFor(tc.reply), "tool_use", "end_turn", "toolu_")
		})
	}
}

// reassembleAnthropic checks the Messages event grammar
// (message_start ping (block_start delta* block_stop)* message_delta
// message_stop, event name == data.type, block indexes 0..n-1 in order) and
// rebuilds the reply.
func reassembleAnthropic(t *testing.T, evs []sseEvent) got {
	t.Helper()
	var g got
	if len(evs) < 3 {
		t.Fatalf("only %d events", len(evs))
	}
	for _, e := range evs {
		if d := obj(t, e.data); d["type"] != e.name {
			t.Fatalf("event name %q but data.type %v", e.name, d["type"])
		}
	}
	if evs[0].name != "message_start" || evs[len(evs)-1].name != "message_stop" || evs[len(evs)-2].name != "message_delta" {
		t.Fatalf("stream must start with message_start and end with message_delta, message_stop; got %s … %s, %s",
			evs[0].name, evs[len(evs)-2].name, evs[len(evs)-1].name)
	}
	start := obj(t, evs[0].data)
	g.InputTokens = num(t, start, "message.usage.input_tokens")
	if str(t, start, "message.role") != "assistant" || !strings.HasPrefix(str(t, start, "message.id"), "msg_") {
		t.Fatalf("message_start message: %s", evs[0].data)
	}
	open := -1
	next := 0
	var kind string
	var buf strings.Builder
	var cur call
	for _, e := range evs[1 : len(evs)-2] {
		d := obj(t, e.data)
		switch e.name {
		case "ping":
		case "content_block_start":
			if open != -1 {
				t.Fatalf("block %d started while block %d open", num(t, d, "index"), open)
			}
			if idx := num(t, d, "index"); idx != next {
				t.Fatalf("block index %d, want %d", idx, next)
			}
			open = next
			kind = str(t, d, "content_block.type")
			buf.Reset()
			if kind == "tool_use" {
				cur = call{ID: str(t, d, "content_block.id"), Name: str(t, d, "content_block.name")}
			}
		case "content_block_delta":
			if idx := num(t, d, "index"); idx != open {
				t.Fatalf("delta for block %d while block %d open", idx, open)
			}
			switch dt := str(t, d, "delta.type"); {
			case kind == "text" && dt == "text_delta":
				buf.WriteString(str(t, d, "delta.text"))
			case kind == "thinking" && dt == "thinking_delta":
				buf.WriteString(str(t, d, "delta.thinking"))
			case kind == "thinking" && dt == "signature_delta":
				if str(t, d, "delta.signature") == "" {
					t.Fatal("empty signature")
				}
			case kind == "tool_use" && dt == "input_json_delta":
				buf.WriteString(str(t, d, "delta.partial_json"))
			default:
				t.Fatalf("delta type %s inside a %s block", dt, kind)
			}
		case "content_block_stop":
			if idx := num(t, d, "index"); idx != open {
				t.Fatalf("stop for block %d while block %d open", idx, open)
			}
			switch kind {
			case "text":
				g.Text = buf.String()
			case "thinking":
				g.Thinking = buf.String()
			case "tool_use":
				cur.Input = buf.String()
				g.Calls = append(g.Calls, cur)
			}
			open = -1
			next++
		default:
			t.Fatalf("unexpected event %s between blocks", e.name)
		}
	}
	if open != -1 {
		t.Fatalf("block %d never stopped", open)
	}
	md := obj(t, evs[len(evs)-2].data)
	g.Stop = str(t, md, "delta.stop_reason")
	g.OutputTokens = num(t, md, "usage.output_tokens")
	return g
}

func TestChatStream(t *testing.T) {
	for _, tc := range protocolReplies {
		for _, includeUsage := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/usage=%v", tc.name, includeUsage), func(t *testing.T) {
				srv := start(t, &Script{Turns: []Reply{tc.reply}, Usage: Usage{InputTokens: 1234}}, "")
				status, ctype, body := post(t, srv.URL()+"/v1/chat/completions", map[string]any{
					"model": "fake-model", "stream": true, "stream_options": map[string]any{"include_usage": includeUsage},
					"messages": []any{map[string]any{"role": "system", "content": "sys"}, map[string]any{"role": "user", "content": "hi"}},
				}, nil)
				if status != 200 || !strings.HasPrefix(ctype, "text/event-stream") {
					t.Fatalf("status %d content-type %q; body %s", status, ctype, body)
				}
				g, sawUsage := reassembleChat(t, parseSSE(t, body))
				if sawUsage != includeUsage {
					t.Fatalf("usage chunk present = %v, want %v", sawUsage, includeUsage)
				}
				u := srv.cfg.Script.usageFor(tc.reply)
				if !includeUsage {
					// Without a usage chunk there is nothing to compare.
					g.InputTokens, g.OutputTokens = u.InputTokens+u.CacheReadTokens, u.OutputTokens
				}
				checkReply(t, g, tc.reply, u, "tool_calls", "stop", "call_")
			})
		}
	}
}

// reassembleChat checks the chunk grammar (data-only events, one id, role
// first, finish_reason exactly once on the last choice chunk, optional
// usage chunk with no choices, then [DONE]) and rebuilds the reply.
func reassembleChat(t *testing.T, evs []sseEvent) (got, bool) {
	t.Helper()
	var g got
	if len(evs) < 3 || evs[len(evs)-1].data != "[DONE]" {
		t.Fatalf("stream must end with data: [DONE]")
	}
	var id string
	finishes := 0
	sawUsage := false
	calls := map[int]*call{}
	var text, thinking strings.Builder
	for i, e := range evs[:len(evs)-1] {
		if e.name != "" {
			t.Fatalf("chat chunks carry no event name, got %q", e.name)
		}
		d := obj(t, e.data)
		if str(t, d, "object") != "chat.completion.chunk" {
			t.Fatalf("object %v", d["object"])
		}
		if id == "" {
			id = str(t, d, "id")
		} else if str(t, d, "id") != id {
			t.Fatalf("chunk id changed from %s to %s", id, d["id"])
		}
		choices := d["choices"].([]any)
		if len(choices) == 0 {
			if i != len(evs)-2 {
				t.Fatalf("usage chunk must be the last before [DONE]")
			}
			sawUsage = true
			g.InputTokens = num(t, d, "usage.prompt_tokens")
			g.OutputTokens = num(t, d, "usage.completion_tokens")
			if num(t, d, "usage.total_tokens") != g.InputTokens+g.OutputTokens {
				t.Fatalf("total_tokens does not add up: %s", e.data)
			}
			continue
		}
		if finishes > 0 {
			t.Fatalf("chunk after the finish_reason chunk: %s", e.data)
		}
		ch := choices[0].(map[string]any)
		delta := ch["delta"].(map[string]any)
		if i == 0 && delta["role"] != "assistant" {
			t.Fatalf("first chunk must carry role assistant: %s", e.data)
		}
		if s, ok := delta["content"].(string); ok {
			text.WriteString(s)
		}
		if s, ok := delta["reasoning_content"].(string); ok {
			thinking.WriteString(s)
		}
		if tcs, ok := delta["tool_calls"].([]any); ok {
			for _, x := range tcs {
				tc := x.(map[string]any)
				idx := int(tc["index"].(float64))
				c, seen := calls[idx]
				if !seen {
					if idx != len(calls) {
						t.Fatalf("tool call index %d out of order", idx)
					}
					c = &call{ID: tc["id"].(string), Name: dig(t, tc, "function.name").(string)}
					calls[idx] = c
				} else if _, hasID := tc["id"]; hasID {
					t.Fatalf("tool call %d repeats its id", idx)
				}
				c.Input += dig(t, tc, "function.arguments").(string)
			}
		}
		if f, ok := ch["finish_reason"].(string); ok {
			finishes++
			g.Stop = f
		}
	}
	if finishes != 1 {
		t.Fatalf("%d finish_reason chunks, want 1", finishes)
	}
	g.Text, g.Thinking = text.String(), thinking.String()
	for i := 0; i < len(calls); i++ {
		g.Calls = append(g.Calls, *calls[i])
	}
	return g, sawUsage
}

func TestResponsesStream(t *testing.T) {
	cases := append([]struct {
		name  string
		reply Reply
	}{}, protocolReplies...)
	cases = append(cases,
		struct {
			name  string
			reply Reply
		}{"namespaced-mcp", Reply{ToolCalls: []ToolCall{{Name: "echo", Namespace: "mcp__echo", Input: json.RawMessage(`{"text":"ping"}`)}}}},
		struct {
			name  string
			reply Reply
		}{"custom-tool", Reply{Text: "Patching.", ToolCalls: []ToolCall{{Name: "apply_patch", Custom: true, CustomInput: "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n"}}}},
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t, &Script{Turns: []Reply{tc.reply}, Usage: Usage{InputTokens: 1234}}, "")
			status, ctype, body := post(t, srv.URL()+"/v1/responses", map[string]any{
				"model": "fake-model", "stream": true,
				"input": []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "hi"}}}},
			}, nil)
			if status != 200 || !strings.HasPrefix(ctype, "text/event-stream") {
				t.Fatalf("status %d content-type %q; body %s", status, ctype, body)
			}
			g := reassembleResponses(t, parseSSE(t, body))
			want := tc.reply
			if len(want.ToolCalls) == 1 && want.ToolCalls[0].Custom {
				// A custom call's input is free text, not JSON.
				if len(g.Calls) != 1 || g.Calls[0].Input != want.ToolCalls[0].CustomInput || g.Calls[0].Name != "apply_patch" {
					t.Fatalf("custom call = %+v", g.Calls)
				}
				g.Calls[0].Input = "{}"
			}
			checkReply(t, g, want, srv.cfg.Script.usageFor(tc.reply), "", "", "call_")
		})
	}
}

// reassembleResponses checks the Responses grammar (event name == type,
// sequence_number 0,1,2…, created, in_progress, per item added → deltas →
// done with the same output_index, completed last with output == the done
// items) and rebuilds the reply.
func reassembleResponses(t *testing.T, evs []sseEvent) got {
	t.Helper()
	var g got
	if len(evs) < 3 {
		t.Fatalf("only %d events", len(evs))
	}
	var doneItems []any
	open := -1
	var buf strings.Builder
	for i, e := range evs {
		d := obj(t, e.data)
		if d["type"] != e.name {
			t.Fatalf("event name %q but type %v", e.name, d["type"])
		}
		if n := num(t, d, "sequence_number"); n != i {
			t.Fatalf("sequence_number %d at position %d", n, i)
		}
		switch {
		case i == 0 && e.name != "response.created", i == 1 && e.name != "response.in_progress":
			t.Fatalf("event %d is %s", i, e.name)
		case i == len(evs)-1 && e.name != "response.completed":
			t.Fatalf("last event is %s, want response.completed", e.name)
		}
		switch e.name {
		case "response.created", "response.in_progress":
			if str(t, d, "response.status") != "in_progress" {
				t.Fatalf("%s status %v", e.name, dig(t, d, "response.status"))
			}
		case "response.output_item.added":
			if open != -1 {
				t.Fatalf("item %d added while item %d open", num(t, d, "output_index"), open)
			}
			if idx := num(t, d, "output_index"); idx != len(doneItems) {
				t.Fatalf("output_index %d, want %d", idx, len(doneItems))
			}
			open = len(doneItems)
			buf.Reset()
		case "response.output_item.done":
			if idx := num(t, d, "output_index"); idx != open {
				t.Fatalf("done for item %d while %d open", idx, open)
			}
			item := dig(t, d, "item").(map[string]any)
			switch item["type"] {
			case "message":
				text := dig(t, item, "content").([]any)[0].(map[string]any)["text"].(string)
				if text != buf.String() {
					t.Fatalf("message done text %q but deltas gave %q", text, buf.String())
				}
				g.Text = text
			case "reasoning":
				s := dig(t, item, "summary").([]any)[0].(map[string]any)["text"].(string)
				if s != buf.String() {
					t.Fatalf("reasoning done %q but deltas gave %q", s, buf.String())
				}
				g.Thinking = s
			case "function_call":
				args := item["arguments"].(string)
				if args != buf.String() {
					t.Fatalf("function_call done arguments %q but deltas gave %q", args, buf.String())
				}
				ns, _ := item["namespace"].(string)
				g.Calls = append(g.Calls, call{ID: item["call_id"].(string), Name: item["name"].(string), Namespace: ns, Input: args})
			case "custom_tool_call":
				in := item["input"].(string)
				if in != buf.String() {
					t.Fatalf("custom_tool_call done input %q but deltas gave %q", in, buf.String())
				}
				g.Calls = append(g.Calls, call{ID: item["call_id"].(string), Name: item["name"].(string), Input: in})
			default:
				t.Fatalf("unexpected item type %v", item["type"])
			}
			if item["status"] != nil && item["status"] != "completed" {
				t.Fatalf("done item status %v", item["status"])
			}
			doneItems = append(doneItems, item)
			open = -1
		case "response.output_text.delta", "response.reasoning_summary_text.delta",
			"response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			if idx := num(t, d, "output_index"); idx != open {
				t.Fatalf("%s for item %d while %d open", e.name, idx, open)
			}
			buf.WriteString(str(t, d, "delta"))
		case "response.completed":
			if str(t, d, "response.status") != "completed" {
				t.Fatalf("completed status %v", dig(t, d, "response.status"))
			}
			out, _ := json.Marshal(dig(t, d, "response.output"))
			items, _ := json.Marshal(doneItems)
			if doneItems == nil {
				items = []byte("[]")
			}
			if string(out) != string(items) {
				t.Fatalf("completed output %s differs from the done items %s", out, items)
			}
			g.InputTokens = num(t, d, "response.usage.input_tokens")
			g.OutputTokens = num(t, d, "response.usage.output_tokens")
		default:
			if open == -1 {
				t.Fatalf("%s outside an item", e.name)
			}
		}
	}
	return g
}

// checkReply compares a reassembled reply with the script. toolStop and
// textStop are the protocol's stop reasons ("" when it has none); idPrefix
// is the generated call-id prefix.
func checkReply(t *testing.T, g got, r Reply, u Usage, toolStop, textStop, idPrefix string) {
	t.Helper()
	thinking, text, calls := want(t, r)
	if g.Thinking != thinking || g.Text != text {
		t.Fatalf("thinking/text = %q/%q, want %q/%q", g.Thinking, g.Text, thinking, text)
	}
	if len(g.Calls) != len(calls) {
		t.Fatalf("%d calls, want %d: %+v", len(g.Calls), len(calls), g.Calls)
	}
	ids := map[string]bool{}
	for i, c := range g.Calls {
		if c.Name != calls[i].Name || c.Namespace != calls[i].Namespace || c.Input != calls[i].Input {
			t.Fatalf("call %d = %+v, want %+v", i, c, calls[i])
		}
		switch {
		case r.ToolCalls[i].ID != "" && c.ID != r.ToolCalls[i].ID:
			t.Fatalf("call %d id %q, want scripted %q", i, c.ID, r.ToolCalls[i].ID)
		case r.ToolCalls[i].ID == "" && !strings.HasPrefix(c.ID, idPrefix):
			t.Fatalf("call %d id %q, want prefix %q", i, c.ID, idPrefix)
		}
		if ids[c.ID] {
			t.Fatalf("duplicate call id %q", c.ID)
		}
		ids[c.ID] = true
	}
	wantStop := textStop
	if len(calls) > 0 {
		wantStop = toolStop
	}
	if g.Stop != wantStop {
		t.Fatalf("stop = %q, want %q", g.Stop, wantStop)
	}
	wantIn := u.InputTokens
	if idPrefix != "toolu_" { // OpenAI counts cached tokens inside the prompt total.
		wantIn += u.CacheReadTokens
	}
	if g.InputTokens != wantIn || g.OutputTokens != u.OutputTokens {
		t.Fatalf("usage in/out = %d/%d, want %d/%d", g.InputTokens, g.OutputTokens, wantIn, u.OutputTokens)
	}
}
