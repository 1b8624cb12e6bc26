package history

import (
	"fmt"
	"iter"
	"strings"
	"unicode/utf8"
)

// NoVisibleText is what history_read says for an address whose record holds
// no visible text (a tool-only or thinking-only envelope, an unrendered
// attachment), so an empty body is never mistaken for a failed read.
const NoVisibleText = "(no visible text was recorded for this address)"

// PendingResult stands in for the result of a call that has none recorded.
const PendingResult = "(no result recorded: the call is still pending or never finished)"

// ReadQuery is history_read's input (without the session selector).
type ReadQuery struct {
	// Seq is the address to read. A tool result's seq redirects to its call.
	Seq int64 `json:"seq"`
	// Offset is the byte offset into the address's text to continue from,
	// as given by a previous response's footer.
	Offset int `json:"offset,omitempty"`
}

// ReadResult is one history_read response.
type ReadResult struct {
	// Seq is the address shown (the call when a result was asked for).
	Seq int64 `json:"seq"`
	// Requested is the address asked for.
	Requested int64  `json:"requested"`
	Window    string `json:"window"`
	Role      Role   `json:"role"`
	Kind      Kind   `json:"kind"`
	// Body is the page of the address's text shown, from Offset to End.
	Body   string `json:"body"`
	Offset int    `json:"offset"`
	End    int    `json:"end"`
	// Total is the full text's length in bytes.
	Total int `json:"total"`
	// Next is the offset to continue from, 0 when the text is complete.
	Next   int    `json:"next,omitempty"`
	Notice string `json:"notice,omitempty"`
	// Text is the complete rendered response, at most MaxResponseBytes.
	Text string `json:"-"`
}

func defaultReadHint(seq int64, offset int) string {
	return fmt.Sprintf(ToolRead+" seq=%d offset=%d", seq, offset)
}

// Validate checks a read query before any file is read.
func (q ReadQuery) Validate() error {
	if q.Seq <= 0 {
		return fmt.Errorf(ToolRead+": seq must be a positive address from "+ToolList+", got %d", q.Seq)
	}
	if q.Offset < 0 {
		return fmt.Errorf(ToolRead+": offset must be >= 0, got %d", q.Offset)
	}
	return nil
}

// Read renders one address in full: a message, attachment or notice as
// recorded; a tool call together with its result. Text longer than the
// response budget is paged by byte offset, and the footer says exactly how
// to fetch the rest. A result's seq redirects to its call, which may take a
// second pass over events (they are replayable); no events are buffered.
func Read(events iter.Seq2[Event, error], q ReadQuery, o RenderOptions) (ReadResult, error) {
	if err := q.Validate(); err != nil {
		return ReadResult{}, err
	}
	target, result, err := findAddress(events, q.Seq)
	if err != nil {
		return ReadResult{}, err
	}
	redirected := false
	if target.Kind == KindToolResult {
		callSeq := target.PairSeq
		if callSeq == 0 {
			callSeq, err = findCallOf(events, target)
			if err != nil {
				return ReadResult{}, err
			}
		}
		if callSeq > 0 {
			redirected = true
			target, result, err = findAddress(events, callSeq)
			if err != nil {
				return ReadResult{}, err
			}
		}
	}
	return renderRead(q, target, result, redirected, o)
}

// findAddress scans for seq; for a call it also scans forwards for its
// result (the first result with the same tool id).
func findAddress(events iter.Seq2[Event, error], seq int64) (Event, *Event, error) {
	var target Event
	found := false
	for ev, err := range events {
		if err != nil {
			return Event{}, nil, err
		}
		if !found {
			if ev.Seq == seq {
				target, found = ev, true
				if ev.Kind != KindToolUse {
					break
				}
				continue
			}
			if ev.Seq > seq {
				break
			}
			continue
		}
		// Looking for the call's result.
		if target.PairSeq > 0 {
			if ev.Seq == target.PairSeq {
				r := ev
				return target, &r, nil
			}
			if ev.Seq > target.PairSeq {
				break
			}
			continue
		}
		if ev.Kind == KindToolResult && ev.ToolID != "" && ev.ToolID == target.ToolID {
			r := ev
			return target, &r, nil
		}
	}
	if !found {
		return Event{}, nil, fmt.Errorf(ToolRead+": no address #%d in the selected history of this session (it may be on another branch, or not written yet); use "+ToolList+" to find addresses", seq)
	}
	return target, nil, nil
}

// findCallOf finds the call a result answers when the decoder did not link
// them: the latest call before it with the same tool id.
func findCallOf(events iter.Seq2[Event, error], res Event) (int64, error) {
	if res.ToolID == "" {
		return 0, nil
	}
	var call int64
	for ev, err := range events {
		if err != nil {
			return 0, err
		}
		if ev.Seq >= res.Seq {
			break
		}
		if ev.Kind == KindToolUse && ev.ToolID == res.ToolID {
			call = ev.Seq
		}
	}
	return call, nil
}

func readHeader(ev Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s %s", ev.Seq, oneLine(ev.Window), ev.Role, timeString(ev.Time))
	switch ev.Kind {
	case KindToolUse:
		fmt.Fprintf(&b, " call %s", oneLine(ev.ToolName))
		if ev.ToolID != "" {
			fmt.Fprintf(&b, " id=%s", oneLine(ev.ToolID))
		}
	case KindToolResult:
		fmt.Fprintf(&b, " result %s", oneLine(ev.ToolName))
	case KindAttachment, KindNotice:
		fmt.Fprintf(&b, " %s", ev.Kind)
	}
	b.WriteString("\n")
	return b.String()
}

// document is the full text of an address that offsets index into.
func document(target Event, result *Event) string {
	if target.Kind != KindToolUse {
		if strings.TrimSpace(target.Text) == "" {
			return NoVisibleText
		}
		return target.Text
	}
	var b strings.Builder
	b.WriteString("input: ")
	if target.ToolInput == "" {
		b.WriteString("(none recorded)")
	} else {
		b.WriteString(target.ToolInput)
	}
	b.WriteString("\n\n")
	if result == nil {
		b.WriteString(PendingResult)
		return b.String()
	}
	fmt.Fprintf(&b, "result #%d %s", result.Seq, timeString(result.Time))
	if result.IsError {
		b.WriteString(" (error)")
	}
	b.WriteString(":\n")
	if strings.TrimSpace(result.Text) == "" {
		b.WriteString(NoVisibleText)
	} else {
		b.WriteString(result.Text)
	}
	return b.String()
}

func renderRead(q ReadQuery, target Event, result *Event, redirected bool, o RenderOptions) (ReadResult, error) {
	hint := o.ReadHint
	if hint == nil {
		hint = defaultReadHint
	}
	doc := document(target, result)
	if q.Offset > len(doc) || (q.Offset == len(doc) && q.Offset > 0) {
		return ReadResult{}, fmt.Errorf(ToolRead+": offset %d is past the end of #%d (%d bytes)", q.Offset, target.Seq, len(doc))
	}
	// Never start inside a rune: a hand-written offset is moved back.
	start := cutRuneBoundary(doc, q.Offset)
	header := readHeader(target)
	if redirected {
		header = fmt.Sprintf("(#%d is the result of call #%d; showing the call with its result)\n", q.Seq, target.Seq) + header
	}
	if start > 0 {
		header += fmt.Sprintf("(continued from byte %d of %d)\n", start, len(doc))
	}
	footerAt := func(end int) string {
		return fmt.Sprintf("\n--\nshown bytes %d-%d of %d; the rest: %s\n", start, end, len(doc), hint(target.Seq, end))
	}
	avail := MaxResponseBytes - o.noticeReserve() - len(header) - len(footerAt(len(doc))) - 1
	if avail <= 0 {
		return ReadResult{}, fmt.Errorf(ToolRead+": #%d cannot be rendered within %d bytes", target.Seq, MaxResponseBytes)
	}
	end := len(doc)
	footer := ""
	if end-start > avail {
		end = cutRuneBoundary(doc, start+avail)
		footer = footerAt(end)
	}
	if a := o.Answer; a != nil && a.Body != nil {
		// The serialized answer's room for the body: its wrapper, the
		// notice, header, footer and window (every count an upper bound).
		room := MaxResponseBytes - a.Reserve - a.text(header) - a.text(footerAt(len(doc))) - JSONLen(target.Window)
		if o.Notice != nil {
			room -= o.NoticeReserve
		}
		if room <= 0 {
			return ReadResult{}, fmt.Errorf(ToolRead+": #%d cannot be answered within %d bytes", target.Seq, MaxResponseBytes)
		}
		if a.Body(doc[start:end]) > room {
			// The largest end whose body fits: the size grows with end, so
			// search by halves (a few dozen measures of at most 32 KiB).
			lo, hi := start, end
			for hi-lo > 1 {
				mid := cutRuneBoundary(doc, lo+(hi-lo)/2)
				if mid <= lo {
					mid = lo + 1
					for mid < hi && !utf8.RuneStart(doc[mid]) {
						mid++
					}
					if mid >= hi {
						break
					}
				}
				if a.Body(doc[start:mid]) <= room {
					lo = mid
				} else {
					hi = mid
				}
			}
			end = lo
			if end == start {
				return ReadResult{}, fmt.Errorf(ToolRead+": #%d cannot be answered within %d bytes", target.Seq, MaxResponseBytes)
			}
			footer = footerAt(end)
		}
	}
	r := ReadResult{Seq: target.Seq, Requested: q.Seq, Window: target.Window, Role: target.Role, Kind: target.Kind,
		Body: doc[start:end], Offset: start, End: end, Total: len(doc)}
	if footer != "" {
		r.Next = end
	}
	notice := o.notice()
	r.Notice = strings.TrimSuffix(notice, "\n\n")
	var b strings.Builder
	b.WriteString(notice)
	b.WriteString(header)
	b.WriteString(r.Body)
	if !strings.HasSuffix(r.Body, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(footer)
	r.Text = b.String()
	if len(r.Text) > MaxResponseBytes {
		return ReadResult{}, fmt.Errorf(ToolRead+": internal error: response of %d bytes exceeds %d", len(r.Text), MaxResponseBytes)
	}
	return r, nil
}
