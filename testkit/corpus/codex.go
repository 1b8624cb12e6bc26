package corpus

import (
	"strconv"
	"time"
)

// Codex shape rates.
const (
	codexCompactEvery = 10 // a compacted record about every this many turns
	codexMCPPct       = 10 // percent of calls that are MCP calls (namespaced)
)

// writeCodex writes a Codex rollout as codex 0.171 writes it (codex.md): a
// session_meta with the long base instructions, then per turn task_started,
// the user message, reasoning, assistant text, parallel function calls (shell
// and MCP, namespaced), the item_completed events that repeat each command's
// output, the outputs, token counts and task_complete; compacted records
// advance the window. A fork's session_meta names its parent thread and the
// ordinal it forked at, and the rollout holds only what came after.
func (s *session) writeCodex(w *lineWriter) {
	g := s.g
	t := s.start
	ord := 0
	var b []byte
	rec := func(typ string) []byte {
		t = t.Add(time.Duration(5+g.r.IntN(900)) * time.Millisecond)
		b = append(b[:0], `{"timestamp":"`+stamp(t)+`","ordinal":`+strconv.Itoa(ord)+`,"type":"`+typ+`","payload":`...)
		ord++
		return b
	}
	if s.parent != nil {
		ord = len(s.parent.prefix)
	}
	b = rec("session_meta")
	b = append(b, `{"account_scoped":true,"session_id":"`+s.id+`","id":"`+s.id+`"`...)
	if s.parent != nil {
		b = append(b, `,"forked_from_id":"`+s.parent.id+`","forked_from_ordinal_exclusive":`+strconv.Itoa(ord-1)...)
		// A paginated fork: the parent's prefix is inherited, not copied.
		b = append(b, `,"history_base":{"thread_id":"`+s.parent.id+`","end_ordinal_exclusive":`+strconv.Itoa(ord-1)+`,"end_byte_offset":`+strconv.FormatInt(s.parent.prefixBytes, 10)+`}`...)
	}
	b = append(b, `,"timestamp":"`+stamp(t)+`","cwd":`...)
	b = str(b, s.cwd)
	b = append(b, `,"originator":"codex_cli_rs","cli_version":"0.171.0","source":"cli","thread_source":"user","model_provider":"openai","base_instructions":{"text":`...)
	b = str(b, "You are a coding agent running in the Codex CLI, a terminal-based coding assistant.\n\n"+g.prose(6000))
	b = append(b, `}}}`...)
	w.line(b, s.id)
	turnID := ""
	for turn := 1; ; turn++ {
		done := w.full()
		if done && s.needle == "" {
			break
		}
		turnID = g.uuid()
		b = rec("event_msg")
		b = append(b, `{"type":"task_started","turn_id":"`+turnID+`","root_turn_id":"`+turnID+`","model_context_window":258400,"collaboration_mode_kind":"default"}}`...)
		w.line(b, "")
		prompt := g.prose(40 + g.r.IntN(400))
		if done {
			prompt = "Find where we discussed " + s.needle + " and summarise it."
			s.needles++
		}
		b = rec("response_item")
		b = append(b, `{"type":"message","id":"msg_`+g.uuid()+`","role":"user","content":[{"type":"input_text","text":`...)
		b = str(b, prompt)
		b = append(b, `}],"internal_chat_message_metadata_passthrough":{"turn_id":"`+turnID+`"}}}`...)
		w.line(b, "")
		if done {
			b = rec("event_msg")
			b = append(b, `{"type":"task_complete","turn_id":"`+turnID+`","last_agent_message":null}}`...)
			w.line(b, "")
			break
		}
		b = rec("response_item")
		b = append(b, `{"type":"reasoning","id":"rs_`+g.hex(24)+`","summary":[{"type":"summary_text","text":`...)
		b = str(b, g.prose(150))
		b = append(b, `}],"content":null,"encrypted_content":"`+g.hex(400)+`"}}`...)
		w.line(b, "")
		b = rec("response_item")
		b = append(b, `{"type":"message","status":"completed","id":"msg_`+g.hex(24)+`","role":"assistant","content":[{"type":"output_text","text":`...)
		b = str(b, g.prose(60+g.r.IntN(300)))
		b = append(b, `,"annotations":[]}]}}`...)
		w.line(b, "")
		k := 1 + g.r.IntN(3)
		calls := make([]string, k)
		mcp := make([]bool, k)
		for j := range calls {
			calls[j] = "call_" + g.hex(24)
			b = rec("response_item")
			b = append(b, `{"type":"function_call","status":"completed","id":"fc_`+g.hex(24)+`",`...)
			if mcp[j] = g.r.IntN(100) < codexMCPPct; mcp[j] {
				b = append(b, `"name":"search","namespace":"mcp__docs","arguments":`...)
				b = str(b, `{"query":`+jsonString(words[g.r.IntN(len(words))])+`}`)
			} else {
				b = append(b, `"name":"exec_command","arguments":`...)
				b = str(b, `{"cmd":`+jsonString(g.command())+`,"workdir":`+jsonString(s.cwd)+`}`)
			}
			b = append(b, `,"call_id":"`+calls[j]+`"}}`...)
			w.line(b, "")
		}
		for j := range calls {
			out := g.output(s.outputSize(w))
			if !mcp[j] {
				// Codex records each command's output twice: in the
				// item_completed event and in the function_call_output.
				b = rec("event_msg")
				b = append(b, `{"type":"item_completed","turn_id":"`+turnID+`","item":{"type":"CommandExecution","id":"`+calls[j]+`","command":["/bin/bash","-lc",`...)
				b = str(b, g.command())
				b = append(b, `],"cwd":`...)
				b = str(b, "file://"+s.cwd)
				b = append(b, `,"status":"completed","aggregated_output":`...)
				b = str(b, out)
				b = append(b, `,"exit_code":0}}}`...)
				w.line(b, "")
			}
			b = rec("response_item")
			b = append(b, `{"type":"function_call_output","id":"fco_`+g.hex(24)+`","call_id":"`+calls[j]+`","output":`...)
			if mcp[j] {
				b = append(b, `[{"type":"input_text","text":`...)
				b = str(b, out)
				b = append(b, `}]}}`...)
			} else {
				b = str(b, "Chunk ID: "+g.hex(6)+"\nWall time: 0.0"+strconv.Itoa(g.r.IntN(999))+" seconds\nProcess exited with code 0\nOutput:\n"+out)
				b = append(b, `}}`...)
			}
			w.line(b, "")
		}
		b = rec("event_msg")
		b = append(b, `{"type":"token_count","info":{"total_token_usage":{"input_tokens":`+strconv.Itoa(1000*turn)+`,"cached_input_tokens":0,"output_tokens":`+strconv.Itoa(40*turn)+`,"reasoning_output_tokens":0,"total_tokens":`+strconv.Itoa(1040*turn)+`},"model_context_window":258400},"rate_limits":null}}`...)
		w.line(b, "")
		final := g.prose(80 + g.r.IntN(600))
		b = rec("response_item")
		b = append(b, `{"type":"message","status":"completed","id":"msg_`+g.hex(24)+`","role":"assistant","content":[{"type":"output_text","text":`...)
		b = str(b, final)
		b = append(b, `,"annotations":[]}]}}`...)
		w.line(b, "")
		b = rec("event_msg")
		b = append(b, `{"type":"task_complete","turn_id":"`+turnID+`","last_agent_message":`...)
		b = str(b, clip(final, 200))
		b = append(b, `}}`...)
		w.line(b, "")
		if turn%codexCompactEvery == 0 {
			b = rec("compacted")
			b = append(b, `{"message":`...)
			b = str(b, "Another language model started to solve this problem and produced a summary of its thinking process.\nSUMMARY: "+g.prose(500))
			b = append(b, `,"replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":`...)
			b = str(b, g.prose(200))
			b = append(b, `}]}]}}`...)
			w.line(b, "")
		}
	}
}
