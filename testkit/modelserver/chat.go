package modelserver

import (
	"fmt"
	"net/http"
	"time"
)

// chatUsage is the chat-completions usage object. prompt_tokens includes
// cached tokens, as OpenAI reports it.
func chatUsage(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":         u.InputTokens + u.CacheReadTokens,
		"completion_tokens":     u.OutputTokens,
		"total_tokens":          u.InputTokens + u.CacheReadTokens + u.OutputTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CacheReadTokens},
	}
}

func chatFinish(r Reply) string {
	if len(r.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// writeChat answers a chat-completions request: chunks with
// reasoning_content, content and tool_calls deltas, a finish chunk, a usage
// chunk when stream_options.include_usage asked for it, then [DONE]; or
// one chat.completion object when stream is false.
func writeChat(w http.ResponseWriter, out response, stream bool) error {
	id := fmt.Sprintf("chatcmpl-fake-%04d", out.seq)
	created := time.Now().Unix()
	r := out.reply
	if !stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if r.Text != "" {
			msg["content"] = r.Text
		}
		if r.Thinking != "" {
			msg["reasoning_content"] = r.Thinking
		}
		if len(r.ToolCalls) > 0 {
			var calls []map[string]any
			for i, tc := range r.ToolCalls {
				calls = append(calls, map[string]any{"id": out.toolID(i, "call"), "type": "function",
					"function": map[string]any{"name": tc.Name, "arguments": out.input(i)}})
			}
			msg["tool_calls"] = calls
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": out.model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": chatFinish(r)}},
			"usage":   chatUsage(out.usage),
		})
		return nil
	}
	s := newSSE(w)
	chunk := func(delta map[string]any, finish any) {
		s.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": out.model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, c := range chunks(r.Thinking) {
		chunk(map[string]any{"reasoning_content": c}, nil)
	}
	for _, c := range chunks(r.Text) {
		chunk(map[string]any{"content": c}, nil)
	}
	for i, tc := range r.ToolCalls {
		// The first delta of a call names it; later ones carry only
		// argument pieces, keyed by index, as OpenAI streams them.
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": out.toolID(i, "call"), "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}}}, nil)
		for _, c := range chunks(out.input(i)) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": c}}}}, nil)
		}
	}
	chunk(map[string]any{}, chatFinish(r))
	if out.includeUsage {
		s.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": out.model,
			"choices": []any{}, "usage": chatUsage(out.usage)})
	}
	s.event("", "[DONE]")
	return s.err
}
