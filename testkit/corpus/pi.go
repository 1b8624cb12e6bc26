package corpus

import (
	"strconv"
	"time"
)

// Pi shape rates, per turn.
const (
	piCompactEvery = 12 // a compaction about every this many turns
	piBranchPct    = 4  // percent of turns that navigate back (/tree) first
)

// writePi writes a Pi v3 session (pi.md §3): a header, a model and thinking
// level entry, then turns of user / assistant (text and parallel toolCalls) /
// toolResult entries chained by parentId, with compactions and branch
// summaries; a fork's header names its parent file and copies its entries.
func (s *session) writePi(w *lineWriter) {
	g := s.g
	t := s.start
	tick := func() string { t = t.Add(time.Duration(200+g.r.IntN(4000)) * time.Millisecond); return stamp(t) }
	// Entry ids are 8 hex digits, as pi writes them; pi draws again on a
	// collision, and so does this (a long session has enough entries for
	// one).
	used := map[string]bool{}
	newID := func() string {
		for {
			id := g.hex(8)
			if !used[id] {
				used[id] = true
				return id
			}
		}
	}
	var b []byte
	b = append(b, `{"type":"session","version":3,"id":`...)
	b = str(b, s.id)
	b = append(b, `,"timestamp":`...)
	b = str(b, stamp(t))
	b = append(b, `,"cwd":`...)
	b = str(b, s.cwd)
	if s.parent != nil {
		b = append(b, `,"parentSession":`...)
		b = str(b, s.parent.path)
	}
	b = append(b, '}')
	w.line(b, "")
	last := ""
	if s.parent != nil {
		for i, l := range s.parent.prefix[1:] {
			w.line([]byte(l), s.parent.prefixIDs[i+1])
			last = s.parent.prefixIDs[i+1]
			used[last] = true
		}
	} else {
		id := newID()
		w.line([]byte(`{"type":"model_change","id":"`+id+`","parentId":null,"timestamp":"`+tick()+`","provider":"anthropic","modelId":"claude-sonnet-5"}`), id)
		last = id
		id = newID()
		w.line([]byte(`{"type":"thinking_level_change","id":"`+id+`","parentId":"`+last+`","timestamp":"`+tick()+`","thinkingLevel":"medium"}`), id)
		last = id
	}
	entry := func(parent string) (string, []byte) {
		id := newID()
		b := append([]byte(nil), `{"type":"message","id":"`...)
		b = append(b, id...)
		b = append(b, `","parentId":"`...)
		b = append(b, parent...)
		b = append(b, `","timestamp":"`...)
		b = append(b, tick()...)
		b = append(b, `","message":`...)
		return id, b
	}
	var turnEnds []string // final assistant ids: where /tree can go back to
	call := 0
	for turn := 1; ; turn++ {
		done := w.full()
		if done && s.needle == "" {
			break
		}
		if !done && len(turnEnds) > 2 && g.r.IntN(100) < piBranchPct {
			// Navigate back to an earlier turn: pi writes a branch summary
			// of the abandoned branch as a child of the target.
			to := turnEnds[g.r.IntN(len(turnEnds)-1)]
			id := newID()
			b = append(b[:0], `{"type":"branch_summary","id":"`+id+`","parentId":"`+to+`","timestamp":"`+tick()+`","fromId":"`+last+`","summary":`...)
			b = str(b, "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n## Goal\n"+g.prose(300))
			b = append(b, `,"details":{"readFiles":[],"modifiedFiles":[]},"fromHook":false}`...)
			w.line(b, id)
			last = id
		}
		prompt := g.prose(40 + g.r.IntN(400))
		if done {
			prompt = "Find where we discussed " + s.needle + " and summarise it."
		}
		id, b := entry(last)
		b = append(b, `{"role":"user","content":[{"type":"text","text":`...)
		b = str(b, prompt)
		b = append(b, `}],"timestamp":`+strconv.FormatInt(t.UnixMilli(), 10)+`}}`...)
		w.line(b, id)
		last = id
		if done {
			s.needles++
			b = b[:0]
			id, b = entry(last)
			b = append(b, `{"role":"assistant","content":[{"type":"text","text":"Searching the history."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-5","usage":{"input":1200,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":1220,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":`+strconv.FormatInt(t.UnixMilli(), 10)+`}}`...)
			w.line(b, id)
			break
		}
		k := 1 + g.r.IntN(3) // parallel calls
		ids := make([]string, k)
		id, b = entry(last)
		b = append(b, `{"role":"assistant","content":[{"type":"thinking","thinking":`...)
		b = str(b, g.prose(120))
		b = append(b, `,"thinkingSignature":"sig"},{"type":"text","text":`...)
		b = str(b, g.prose(60+g.r.IntN(300)))
		b = append(b, '}')
		for j := range ids {
			call++
			ids[j] = "toolu_" + g.hex(20)
			b = append(b, `,{"type":"toolCall","id":"`+ids[j]+`","name":"bash","arguments":{"command":`...)
			b = str(b, g.command())
			b = append(b, `,"timeout":120}}`...)
		}
		b = append(b, `],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-5","usage":{"input":31000,"output":420,"cacheRead":30000,"cacheWrite":0,"totalTokens":31420,"cost":{"input":0.09,"output":0.006,"cacheRead":0.009,"cacheWrite":0,"total":0.105}},"stopReason":"toolUse","timestamp":`+strconv.FormatInt(t.UnixMilli(), 10)+`}}`...)
		w.line(b, id)
		last = id
		for j := range ids {
			id, b = entry(last)
			b = append(b, `{"role":"toolResult","toolCallId":"`+ids[j]+`","toolName":"bash","content":[{"type":"text","text":`...)
			b = str(b, g.output(s.outputSize(w)))
			b = append(b, `}],"isError":`+strconv.FormatBool(g.r.IntN(20) == 0)+`,"timestamp":`+strconv.FormatInt(t.UnixMilli(), 10)+`}}`...)
			w.line(b, id)
			last = id
		}
		id, b = entry(last)
		b = append(b, `{"role":"assistant","content":[{"type":"text","text":`...)
		b = str(b, g.prose(80+g.r.IntN(600)))
		b = append(b, `}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-5","usage":{"input":32000,"output":300,"cacheRead":31000,"cacheWrite":0,"totalTokens":32300,"cost":{"input":0.09,"output":0.004,"cacheRead":0.009,"cacheWrite":0,"total":0.103}},"stopReason":"stop","timestamp":`+strconv.FormatInt(t.UnixMilli(), 10)+`}}`...)
		w.line(b, id)
		last = id
		turnEnds = append(turnEnds, id)
		if turn%piCompactEvery == 0 {
			cid := newID()
			b = append(b[:0], `{"type":"compaction","id":"`+cid+`","parentId":"`+last+`","timestamp":"`+tick()+`","summary":`...)
			b = str(b, "## Goal\n"+g.prose(200)+"\n\n## Progress\n### Done\n- [x] "+g.sentence(10)+"\n\n## Next Steps\n1. "+g.sentence(8))
			b = append(b, `,"firstKeptEntryId":"`+id+`","tokensBefore":`+strconv.Itoa(120000+g.r.IntN(60000))+`,"details":{"readFiles":[],"modifiedFiles":[]},"fromHook":false}`...)
			w.line(b, cid)
			last = cid
			turnEnds = turnEnds[:0] // /tree back past a compaction is rare
		}
	}
}
