package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// fakeSignature is the thinking-block signature the server sends. Clients
// store it and send it back; nothing verifies it.
const fakeSignature = "modelserver-fake-signature"

// anthropicUsage is the Messages usage object. input_tokens excludes cache
// reads, as the real API reports it.
func anthropicUsage(u Usage, output int) map[string]any {
	return map[string]any{
		"input_tokens":                u.InputTokens,
		"cache_creation_input_tokens": 0,
		"cache_read_input_tokens":     u.CacheReadTokens,
		"output_tokens":               output,
	}
}

func anthropicStop(r Reply) string {
	if len(r.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// anthropicBlocks returns the reply's content blocks in wire order:
// thinking, text, tool_use….
func anthropicBlocks(out response) []map[string]any {
	var blocks []map[string]any
	r := out.reply
	if r.Thinking != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": r.Thinking, "signature": fakeSignature})
	}
	if r.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": r.Text})
	}
	for i, tc := range r.ToolCalls {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": out.toolID(i, "toolu"), "name": tc.Name, "input": json.RawMessage(out.input(i))})
	}
	return blocks
}

// writeAnthropic answers a Messages request: an SSE stream
// (message_start, content blocks with deltas, message_delta, message_stop)
// or, when stream is false, one JSON message.
func writeAnthropic(w http.ResponseWriter, out response, stream bool) error {
	id := fmt.Sprintf("msg_fake_%04d", out.seq)
	stop := anthropicStop(out.reply)
	if !stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": out.model,
			"content": anthropicBlocks(out), "stop_reason": stop, "stop_sequence": nil,
			"usage": anthropicUsage(out.usage, out.usage.OutputTokens),
		})
		return nil
	}
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": out.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage(out.usage, 1),
	}})
	s.event("ping", map[string]any{"type": "ping"})
	index := 0
	block := func(start map[string]any, deltas []map[string]any) {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start})
		for _, d := range deltas {
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	r := out.reply
	if r.Thinking != "" {
		var ds []map[string]any
		for _, c := range chunks(r.Thinking) {
			ds = append(ds, map[string]any{"type": "thinking_delta", "thinking": c})
		}
		ds = append(ds, map[string]any{"type": "signature_delta", "signature": fakeSignature})
		block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, ds)
	}
	if r.Text != "" {
		var ds []map[string]any
		for _, c := range chunks(r.Text) {
			ds = append(ds, map[string]any{"type": "text_delta", "text": c})
		}
		block(map[string]any{"type": "text", "text": ""}, ds)
	}
	for i, tc := range r.ToolCalls {
		var ds []map[string]any
		for _, c := range chunks(out.input(i)) {
			ds = append(ds, map[string]any{"type": "input_json_delta", "partial_json": c})
		}
		block(map[string]any{"type": "tool_use", "id": out.toolID(i, "toolu"), "name": tc.Name, "input": map[string]any{}}, ds)
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": anthropicUsage(out.usage, out.usage.OutputTokens)})
	s.event("message_stop", map[string]any{"type": "message_stop"})
	return s.err
}
