package claude

import (
	"errors"
	"io"
	"time"

	"github.com/notesoup/notesoup/harness/jsonl"
	"github.com/notesoup/notesoup/shared/history"
)

// The second pass: the selected rows' text, as events.

// emitText is the second pass: it reads the bytes the first pass read again
// (from memory, for a transcript read whole) and emits the selected rows'
// events in seq order.
func (g *graph) emitText(f *jsonl.File, p *projection, order []int32, emit history.EmitFunc) error {
	if len(order) == 0 && len(g.skips) == 0 {
		return nil
	}
	limit := g.size
	if g.lastOK {
		limit = g.read // the complete final line is read too
	}
	lr := newLineReader(f, limit, g.path)
	stable := f.Stable()        // the lines are the bytes the first pass validated
	names := map[int64]string{} // open calls' tool names, for their results
	// A skipped line's notice goes in the window of the row before it,
	// else of the first selected row, else of the head.
	lastWin := g.window(p.ords[p.head])
	if len(order) > 0 {
		lastWin = g.window(p.ords[order[0]])
	}
	k, ks := 0, 0
	for k < len(order) || ks < len(g.skips) {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			if k < len(order) {
				return g.refuse(0, "the transcript changed between passes (row %s at line %d is gone); retry", g.uuidOf(order[k]), g.nodes.at(order[k]).firstLine)
			}
			return g.refuse(0, "the transcript changed between passes (line %d is gone); retry", g.skips[ks].line)
		}
		if err == errSkipped {
			if ks >= len(g.skips) || g.skips[ks].line != lr.line {
				return g.refuse(lr.line, "the transcript changed between passes (a line grew past %d bytes); retry", MaxLineBytes)
			}
			sk := g.skips[ks]
			ks++
			if err := emit(history.Event{Seq: sk.seq, Window: lastWin, Kind: history.KindNotice, Role: history.RoleSystem, Text: skippedText, Line: sk.line}); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if k >= len(order) {
			continue // only skipped lines are left to show
		}
		idx := order[k]
		if lr.line != int(g.nodes.at(idx).firstLine) {
			continue
		}
		k++
		events, err := g.rowEvents(line, idx, p, names, stable)
		if err != nil {
			return err
		}
		for _, ev := range events {
			if err := emit(ev); err != nil {
				return err
			}
		}
		lastWin = events[0].Window
	}
	return nil
}

func (g *graph) rowEvents(raw []byte, idx int32, p *projection, names map[int64]string, trusted bool) ([]history.Event, error) {
	n := g.nodes.at(idx)
	line := int(n.firstLine)
	var fr fullRecord
	var msg decodedContent
	hasMsg, oneP := false, false
	if trusted {
		hasMsg, oneP = parseRowTrusted(raw, &fr, &msg)
	}
	if !oneP {
		fr = fullRecord{}
		if err := parseFullOf(raw, &fr, trusted); err != nil {
			return nil, g.refuse(line, "the transcript changed between passes (%v); retry", err)
		}
	}
	if want := g.uuidOf(idx); fr.UUID != want {
		return nil, g.refuse(line, "the transcript changed between passes (expected row %s, found %q); retry", want, fr.UUID)
	}
	var t time.Time
	if fr.Timestamp != "" {
		t, _ = time.Parse(time.RFC3339Nano, fr.Timestamp)
	}
	w := g.window(p.ords[idx])
	env := history.Event{Seq: n.seq, Window: w, Time: t, Line: line}
	var blocks []fullBlock
	var err error
	switch fr.Type {
	case typeUser, typeAssistant:
		env.Kind, env.Role = history.KindMessage, history.Role(fr.Type)
		if fr.IsCompactSummary {
			env.Kind, env.Role = history.KindNotice, history.RoleSystem
		}
		if oneP {
			if hasMsg {
				env.Text, blocks, err = msg.text, msg.blocks, msg.err
			}
		} else {
			env.Text, blocks, err = contentText(fr.MessageContent)
		}
	case typeSystem:
		env.Kind, env.Role = history.KindNotice, history.RoleSystem
		env.Text, _, err = contentText(fr.Content)
	case typeAttachment:
		// Attachments are engine context (reminders, files, boots), not
		// what the person wrote, even when sent with the user role: a
		// "user" role filter finds the person's messages.
		env.Kind, env.Role = history.KindAttachment, history.RoleSystem
		env.Text, err = renderedText(fr.Rendered)
	}
	if err != nil {
		return nil, g.refuse(line, "invalid %s row: %v", fr.Type, err)
	}
	events := []history.Event{env}
	seq := n.seq
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			seq++
			names[seq] = b.Name
			events = append(events, history.Event{Seq: seq, Window: w, Kind: history.KindToolUse, Role: history.RoleTool,
				ToolName: b.Name, ToolID: b.ID, ToolInput: compactJSON(b.Input), PairSeq: p.pairs[seq], Time: t, Line: line})
		case "tool_result":
			seq++
			var text string
			var err error
			if b.decoded != nil { // decoded in the row's one pass
				text, err = b.decoded.text, b.decoded.err
			} else {
				text, _, err = contentText(b.Content)
			}
			if err != nil {
				return nil, g.refuse(line, "invalid tool_result content: %v", err)
			}
			call := p.pairs[seq]
			name := names[call]
			delete(names, call)
			events = append(events, history.Event{Seq: seq, Window: w, Kind: history.KindToolResult, Role: history.RoleTool,
				ToolName: name, ToolID: b.ToolUseID, Text: text, IsError: b.IsError, PairSeq: call, Time: t, Line: line})
		}
	}
	if seq != n.seq+int64(n.nTools) {
		return nil, g.refuse(line, "the transcript changed between passes (row %s has a different number of tool blocks); retry", g.uuidOf(idx))
	}
	return events, nil
}
