package modelserver

import (
	"fmt"
	"net/http"
	"time"
)

// responsesUsage is the Responses usage object. input_tokens includes
// cached tokens, as OpenAI reports it.
func responsesUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.InputTokens + u.CacheReadTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheReadTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens":          u.InputTokens + u.CacheReadTokens + u.OutputTokens,
	}
}

// responsesItem is one output item in its final ("done") form and in the
// form announced by output_item.added.
type responsesItem struct {
	done  map[string]any
	added map[string]any
	// events emits the item's delta events between added and done, given
	// the output index and an emitter.
	events func(idx int, emit func(string, map[string]any))
}

// responsesItems builds the reply's output items in wire order: reasoning,
// message, then one function_call (or custom_tool_call) per tool call.
func responsesItems(out response) []responsesItem {
	r := out.reply
	var items []responsesItem
	if r.Thinking != "" {
		id := fmt.Sprintf("rs_fake_%04d", out.seq)
		items = append(items, responsesItem{
			added: map[string]any{"type": "reasoning", "id": id, "summary": []any{}},
			done:  map[string]any{"type": "reasoning", "id": id, "summary": []any{map[string]any{"type": "summary_text", "text": r.Thinking}}},
			events: func(idx int, emit func(string, map[string]any)) {
				part := map[string]any{"type": "summary_text", "text": ""}
				emit("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "part": part})
				for _, c := range chunks(r.Thinking) {
					emit("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "delta": c})
				}
				emit("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "text": r.Thinking})
				emit("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0,
					"part": map[string]any{"type": "summary_text", "text": r.Thinking}})
			},
		})
	}
	if r.Text != "" {
		id := fmt.Sprintf("msg_fake_%04d", out.seq)
		items = append(items, responsesItem{
			added: map[string]any{"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}},
			done: map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}}},
			events: func(idx int, emit func(string, map[string]any)) {
				emit("response.content_part.added", map[string]any{"item_id": id, "output_index": idx, "content_index": 0,
					"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
				for _, c := range chunks(r.Text) {
					emit("response.output_text.delta", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "delta": c})
				}
				emit("response.output_text.done", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "text": r.Text})
				emit("response.content_part.done", map[string]any{"item_id": id, "output_index": idx, "content_index": 0,
					"part": map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}})
			},
		})
	}
	for i, tc := range r.ToolCalls {
		callID := out.toolID(i, "call")
		if tc.Custom {
			id := fmt.Sprintf("ctc_fake_%04d_%d", out.seq, i)
			input := tc.CustomInput
			items = append(items, responsesItem{
				added: map[string]any{"type": "custom_tool_call", "id": id, "call_id": callID, "name": tc.Name, "input": "", "status": "in_progress"},
				done:  map[string]any{"type": "custom_tool_call", "id": id, "call_id": callID, "name": tc.Name, "input": input, "status": "completed"},
				events: func(idx int, emit func(string, map[string]any)) {
					for _, c := range chunks(input) {
						emit("response.custom_tool_call_input.delta", map[string]any{"item_id": id, "output_index": idx, "delta": c})
					}
					emit("response.custom_tool_call_input.done", map[string]any{"item_id": id, "output_index": idx, "input": input})
				},
			})
			continue
		}
		id := fmt.Sprintf("fc_fake_%04d_%d", out.seq, i)
		args := out.input(i)
		added := map[string]any{"type": "function_call", "id": id, "call_id": callID, "name": tc.Name, "arguments": "", "status": "in_progress"}
		done := map[string]any{"type": "function_call", "id": id, "call_id": callID, "name": tc.Name, "arguments": args, "status": "completed"}
		if tc.Namespace != "" {
			added["namespace"] = tc.Namespace
			done["namespace"] = tc.Namespace
		}
		items = append(items, responsesItem{added: added, done: done,
			events: func(idx int, emit func(string, map[string]any)) {
				for _, c := range chunks(args) {
					emit("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": idx, "delta": c})
				}
				emit("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": idx, "arguments": args})
			}})
	}
	return items
}

// writeResponses answers a Responses request: response.created,
// response.in_progress, per item output_item.added / deltas /
// output_item.done, then response.completed with usage; each event has an
// event: line and a sequence_number. With stream false, the final response
// object alone.
func writeResponses(w http.ResponseWriter, out response, stream bool) error {
	id := fmt.Sprintf("resp_fake_%04d", out.seq)
	created := time.Now().Unix()
	items := responsesItems(out)
	var output []any
	for _, it := range items {
		output = append(output, it.done)
	}
	if output == nil {
		output = []any{}
	}
	final := map[string]any{"id": id, "object": "response", "created_at": created, "status": "completed", "model": out.model,
		"output": output, "usage": responsesUsage(out.usage)}
	if !stream {
		writeJSON(w, http.StatusOK, final)
		return nil
	}
	s := newSSE(w)
	seq := 0
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		s.event(typ, fields)
	}
	pending := map[string]any{"id": id, "object": "response", "created_at": created, "status": "in_progress", "model": out.model, "output": []any{}}
	emit("response.created", map[string]any{"response": pending})
	emit("response.in_progress", map[string]any{"response": pending})
	for idx, it := range items {
		emit("response.output_item.added", map[string]any{"output_index": idx, "item": it.added})
		it.events(idx, emit)
		emit("response.output_item.done", map[string]any{"output_index": idx, "item": it.done})
	}
	emit("response.completed", map[string]any{"response": final})
	return s.err
}
