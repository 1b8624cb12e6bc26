package modelserver

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestMessages(t *testing.T) {
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		req  Request
		want []Message
	}{
		{"anthropic", Request{Protocol: Anthropic, Body: raw(anthropicReq("SYS", "hello", true))}, []Message{
			{"system", "SYS"}, {"user", "hello"}, {"assistant", "call Bash {}"}, {"tool", "ok"}, {"system", "reminder"},
		}},
		{"chat", Request{Protocol: Chat, Body: raw(chatReq("SYS", "hello", true))}, []Message{
			{"system", "SYS"}, {"user", "hello"}, {"assistant", "call read {}"}, {"tool", "ok"},
		}},
		{"responses", Request{Protocol: Responses, Body: raw(responsesReq("SYS", "hello", true))}, []Message{
			{"system", "SYS"}, {"user", "hello"}, {"assistant", "call exec_command {}"}, {"tool", "ok"},
		}},
		{"responses string input, namespaced call, array output", Request{Protocol: Responses, Body: raw(map[string]any{
			"instructions": "INS",
			"input": []any{
				map[string]any{"type": "function_call", "namespace": "mcp__echo", "name": "echo", "arguments": `{"text":"x"}`},
				map[string]any{"type": "function_call_output", "output": []any{map[string]any{"type": "input_text", "text": "ECHO: X"}}},
			},
		})}, []Message{{"system", "INS"}, {"assistant", `call mcp__echo__echo {"text":"x"}`}, {"tool", "ECHO: X"}}},
		{"anthropic mixed blocks keep order", Request{Protocol: Anthropic, Body: raw(map[string]any{
			"messages": []any{map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "thinking", "thinking": "hmm"},
				map[string]any{"type": "text", "text": "ok"},
				map[string]any{"type": "tool_use", "name": "Read", "input": map[string]any{"file_path": "/a"}},
				map[string]any{"type": "text", "text": "after"},
			}}},
		})}, []Message{{"assistant", "hmm\nok"}, {"assistant", `call Read {"file_path":"/a"}`}, {"assistant", "after"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.req.Messages()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Messages() =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
	if _, err := (Request{Protocol: Aux, Method: "GET", Path: "/v1/models"}).Messages(); err == nil {
		t.Fatal("Messages() of an aux request: want an error")
	}
	if _, err := (Request{Protocol: Chat, Body: json.RawMessage(`{"messages":"nope"}`)}).Messages(); err == nil {
		t.Fatal("Messages() of a malformed body: want an error")
	}
	if got := (Request{Protocol: Chat, Body: raw(chatReq("S", "U", false))}).Text(); got != "S\nU" {
		t.Fatalf("Text() = %q", got)
	}
}
