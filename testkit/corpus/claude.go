package corpus

import (
	"strings"
	"time"
)

// claudeCompactEvery: a compact boundary about every this many turns.
const claudeCompactEvery = 8

// writeClaude writes a Claude Code transcript as 2.1.x writes it: queue
// operations, user prompts, attachments with renderings, one assistant line
// per content block (thinking, text, each tool_use of a parallel batch)
// chained by parentUuid, tool_result lines that repeat the output in
// toolUseResult, and compact boundaries (parentUuid null, logicalParentUuid)
// followed by the summary prompt. A fork copies its parent's first lines
// under its own sessionId.
func (s *session) writeClaude(w *lineWriter) {
	g := s.g
	t := s.start
	tick := func() string { t = t.Add(time.Duration(50+g.r.IntN(3000)) * time.Millisecond); return stamp(t) }
	tail := `,"userType":"external","entrypoint":"cli","cwd":` + jsonString(s.cwd) + `,"sessionId":"` + s.id + `","version":"2.1.332","gitBranch":"main"}`
	last := "" // parentUuid of the next chained line
	var b []byte
	if s.parent != nil {
		for i, l := range s.parent.prefix {
			w.line([]byte(strings.ReplaceAll(l, s.parent.id, s.id)), s.parent.prefixIDs[i])
			if id := s.parent.prefixIDs[i]; id != "" {
				last = id
			}
		}
	}
	parent := func() string {
		if last == "" {
			return "null"
		}
		return `"` + last + `"`
	}
	for turn := 1; ; turn++ {
		done := w.full()
		if done && s.needle == "" {
			break
		}
		prompt := g.prose(40 + g.r.IntN(400))
		if done {
			prompt = "Find where we discussed " + s.needle + " and summarise it."
			s.needles++
		}
		b = append(b[:0], `{"type":"queue-operation","operation":"enqueue","timestamp":"`+tick()+`","sessionId":"`+s.id+`","content":`...)
		b = str(b, prompt)
		b = append(b, '}')
		w.line(b, "")
		uid := g.uuid()
		b = append(b[:0], `{"parentUuid":`+parent()+`,"isSidechain":false,"promptId":"`+g.uuid()+`","type":"user","message":{"role":"user","content":`...)
		b = str(b, prompt)
		b = append(b, `},"uuid":"`+uid+`","timestamp":"`+tick()+`","permissionMode":"default"`+tail...)
		w.line(b, uid)
		last = uid
		if done {
			break
		}
		if g.r.IntN(3) == 0 {
			aid := g.uuid()
			b = append(b[:0], `{"parentUuid":`+parent()+`,"isSidechain":false,"attachment":{"type":"date","date":"2026-06-01"},"type":"attachment","uuid":"`+aid+`","timestamp":"`+tick()+`","rendered":[{"content":`...)
			b = str(b, "<system-reminder>\n"+g.prose(300)+"\n</system-reminder>")
			b = append(b, `}],"renderedRole":"system"`+tail...)
			w.line(b, aid)
			last = aid
		}
		msgID := "msg_" + g.hex(24)
		asst := func(block string) {
			id := g.uuid()
			b = append(b[:0], `{"parentUuid":`+parent()+`,"isSidechain":false,"message":{"content":[`+block+`],"id":"`+msgID+`","model":"claude-opus-5-5","role":"assistant","stop_reason":"tool_use","stop_sequence":null,"type":"message","usage":{"input_tokens":31000,"cache_creation_input_tokens":0,"cache_read_input_tokens":30000,"output_tokens":420,"service_tier":"standard"}},"requestId":"req_`+g.hex(24)+`","type":"assistant","uuid":"`+id+`","timestamp":"`+tick()+`"`+tail...)
			w.line(b, id)
			last = id
		}
		asst(`{"signature":"` + g.hex(120) + `","thinking":` + jsonString(g.prose(150)) + `,"type":"thinking"}`)
		asst(`{"text":` + jsonString(g.prose(60+g.r.IntN(300))) + `,"type":"text"}`)
		k := 1 + g.r.IntN(3)
		type call struct{ id, asst string }
		calls := make([]call, k)
		for j := range calls {
			calls[j].id = "toolu_" + g.hex(24)
			asst(`{"id":"` + calls[j].id + `","input":{"command":` + jsonString(g.command()) + `,"description":` + jsonString(g.sentence(4)) + `},"name":"Bash","type":"tool_use"}`)
			calls[j].asst = last
		}
		for _, c := range calls {
			out := g.output(s.outputSize(w))
			id := g.uuid()
			b = append(b[:0], `{"parentUuid":`+parent()+`,"isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"`+c.id+`","type":"tool_result","content":`...)
			b = str(b, out)
			b = append(b, `,"is_error":false}]},"uuid":"`+id+`","timestamp":"`+tick()+`","toolUseResult":{"stdout":`...)
			b = str(b, out)
			b = append(b, `,"stderr":"","interrupted":false,"isImage":false},"sourceToolAssistantUUID":"`+c.asst+`"`+tail...)
			w.line(b, id)
			last = id
		}
		msgID = "msg_" + g.hex(24)
		asst(`{"text":` + jsonString(g.prose(80+g.r.IntN(600))) + `,"type":"text"}`)
		if turn%claudeCompactEvery == 0 {
			bid := g.uuid()
			b = append(b[:0], `{"parentUuid":null,"logicalParentUuid":"`+last+`","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"`+tick()+`","uuid":"`+bid+`","level":"info","compactMetadata":{"trigger":"auto","preTokens":160000}`+tail...)
			w.line(b, bid)
			last = bid
			sid := g.uuid()
			b = append(b[:0], `{"parentUuid":"`+bid+`","isSidechain":false,"type":"user","message":{"role":"user","content":`...)
			b = str(b, "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n"+g.prose(1500))
			b = append(b, `},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,"uuid":"`+sid+`","timestamp":"`+tick()+`"`+tail...)
			w.line(b, sid)
			last = sid
		}
	}
}
