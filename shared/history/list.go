package history

import (
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"
)

// Page sizes for history_list. The default keeps a page readable in one
// glance; the maximum is what 32 KiB holds at typical line lengths anyway.
const (
	DefaultListLimit = 40
	MaxListLimit     = 200
)

// ListQuery is history_list's input (without the session selector).
type ListQuery struct {
	// Query is a literal, case-insensitive substring; empty matches all.
	Query string `json:"query,omitempty"`
	// Roles keeps only events of these roles; empty keeps all.
	Roles []Role `json:"roles,omitempty"`
	// Window keeps only events of this window or segment id, or of the
	// window with this ordinal ("2").
	Window string `json:"window,omitempty"`
	// After pages forwards: entries with seq > After, oldest first. Given
	// as 0 it starts from the beginning, like Oldest (see GivenZero).
	After int64 `json:"after,omitempty"`
	// Before pages backwards: the newest entries with seq < Before. With
	// neither After nor Before (nor Oldest) the newest page is returned.
	Before int64 `json:"before,omitempty"`
	// Oldest pages forwards from the beginning (as After would from seq 0).
	Oldest bool `json:"oldest,omitempty"`
	// Limit bounds the entries of the page (DefaultListLimit when 0).
	Limit int `json:"limit,omitempty"`
}

// Entry is one listed event.
type Entry struct {
	Seq     int64     `json:"seq"`
	Window  string    `json:"window"`
	Role    Role      `json:"role"`
	Kind    Kind      `json:"kind"`
	Tool    string    `json:"tool,omitempty"`
	PairSeq int64     `json:"pair_seq,omitempty"`
	Time    time.Time `json:"time,omitzero"`
	Snippet string    `json:"snippet"`
	line    string
	cost    int // bytes in the serialized answer (RenderOptions.Answer)
}

// Page is one history_list response.
type Page struct {
	Entries []Entry `json:"entries"`
	// Older is the cursor for the previous page (pass as Before), 0 when
	// nothing older matches.
	Older int64 `json:"older,omitempty"`
	// Newer is the cursor for the next page (pass as After), 0 when nothing
	// newer matches or when NewerFromStart says to page with Oldest.
	Newer int64 `json:"newer,omitempty"`
	// NewerFromStart is set when newer entries exist but start before any
	// seq cursor can name (a page before seq 1): page with Oldest.
	NewerFromStart bool `json:"newer_from_start,omitempty"`
	// Notice is the caller's notice as printed (may be empty).
	Notice string `json:"notice,omitempty"`
	// Text is the complete rendered response, at most MaxResponseBytes.
	Text string `json:"-"`
}

// GivenZero applies the rules for a cursor the caller gave as 0, which a
// front end must tell from one not given (the JSON field present, the flag
// set), since both decode to 0: after 0 means "from the beginning" (every
// entry has seq > 0), the same as Oldest; before 0 is refused, since no
// entry comes before seq 1. Without it an explicit 0 silently returned the
// newest page.
func (q *ListQuery) GivenZero(afterGiven, beforeGiven bool) error {
	if beforeGiven && q.Before == 0 {
		return fmt.Errorf(ToolList + ": before=0 names no page (no entry comes before seq 1); omit before for the newest page, or give after=0 or oldest to start from the beginning")
	}
	if afterGiven && q.After == 0 {
		q.Oldest = true
	}
	return nil
}

// Validate checks a query before any file is read, so a bad argument is
// reported as such rather than as an empty page.
func (q ListQuery) Validate() error {
	if q.After < 0 || q.Before < 0 {
		return fmt.Errorf(ToolList+": after and before are seq cursors (positive integers), got after=%d before=%d", q.After, q.Before)
	}
	if (q.After > 0 || q.Oldest) && q.Before > 0 {
		return fmt.Errorf(ToolList + ": give either after/oldest (page forwards) or before (page backwards), not both")
	}
	if q.After > 0 && q.Oldest {
		return fmt.Errorf(ToolList + ": oldest starts at the beginning; it cannot be combined with after")
	}
	if q.Limit < 0 || q.Limit > MaxListLimit {
		return fmt.Errorf(ToolList+": limit must be between 1 and %d, got %d", MaxListLimit, q.Limit)
	}
	for _, r := range q.Roles {
		switch r {
		case RoleUser, RoleAssistant, RoleSystem, RoleTool:
		default:
			return fmt.Errorf(ToolList+": unknown role %q; use user, assistant, system or tool", r)
		}
	}
	if strings.ContainsAny(q.Query, "\n\r") {
		return fmt.Errorf(ToolList + ": query must be one line (it is a literal substring)")
	}
	return nil
}

// windowMatches reports whether window is the one asked for: the full id, or
// just its ordinal (the session is already chosen, so "2" is unambiguous).
func windowMatches(window, want string) bool {
	if window == want {
		return true
	}
	if want == "" || strings.Trim(want, "0123456789") != "" {
		return false
	}
	return strings.HasSuffix(window, ":"+want) && !strings.Contains(window, ":unknown:")
}

// searchText is what a query is matched against and what a snippet shows.
func searchText(ev Event) string {
	if ev.Kind == KindToolUse {
		if ev.ToolInput == "" {
			return ev.ToolName
		}
		return ev.ToolName + " " + ev.ToolInput
	}
	return ev.Text
}

// Listable reports whether an event can appear in a list page: envelopes
// with no visible text (tool-only or thinking-only rows, unrendered
// attachments) are skipped even when their role is asked for, so they do not
// crowd out dialogue; history_read still serves their addresses.
func Listable(ev Event) bool {
	switch ev.Kind {
	case KindToolUse, KindToolResult:
		return true
	}
	return strings.TrimSpace(ev.Text) != ""
}

func (q ListQuery) keeps(ev Event) (int, bool) {
	if !Listable(ev) {
		return 0, false
	}
	if q.Window != "" && !windowMatches(ev.Window, q.Window) {
		return 0, false
	}
	if len(q.Roles) > 0 {
		ok := false
		for _, r := range q.Roles {
			if ev.Role == r {
				ok = true
				break
			}
		}
		if !ok {
			return 0, false
		}
	}
	if q.Query == "" {
		return -1, true
	}
	at, _ := IndexFold(searchText(ev), q.Query)
	return at, at >= 0
}

func timeString(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func newEntry(ev Event, at int) Entry {
	e := Entry{Seq: ev.Seq, Window: ev.Window, Role: ev.Role, Kind: ev.Kind, Tool: ev.ToolName,
		PairSeq: ev.PairSeq, Time: ev.Time, Snippet: snippet(searchText(ev), at)}
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s %s", e.Seq, oneLine(e.Window), e.Role, timeString(e.Time))
	switch ev.Kind {
	case KindToolUse:
		fmt.Fprintf(&b, " call")
		if ev.PairSeq > 0 {
			fmt.Fprintf(&b, " (result #%d)", ev.PairSeq)
		}
	case KindToolResult:
		fmt.Fprintf(&b, " result %s", oneLine(ev.ToolName))
		if ev.PairSeq > 0 {
			fmt.Fprintf(&b, " (of call #%d)", ev.PairSeq)
		}
		if ev.IsError {
			b.WriteString(" error")
		}
	case KindAttachment, KindNotice:
		fmt.Fprintf(&b, " %s", ev.Kind)
	}
	b.WriteString(": ")
	if e.Snippet == "" {
		b.WriteString("(no visible text)")
	} else {
		b.WriteString(e.Snippet)
	}
	b.WriteByte('\n')
	e.line = b.String()
	return e
}

// Line is the entry as the text shows it, newline included.
func (e Entry) Line() string { return e.line }

func defaultListHint(q ListQuery) string {
	var parts []string
	if q.Query != "" {
		parts = append(parts, "query="+strconv.Quote(q.Query))
	}
	if len(q.Roles) > 0 {
		rs := make([]string, len(q.Roles))
		for i, r := range q.Roles {
			rs[i] = string(r)
		}
		parts = append(parts, "roles="+strings.Join(rs, ","))
	}
	if q.Window != "" {
		parts = append(parts, "window="+strconv.Quote(q.Window))
	}
	if q.After > 0 {
		parts = append(parts, "after="+strconv.FormatInt(q.After, 10))
	}
	if q.Oldest {
		parts = append(parts, "oldest=true")
	}
	if q.Before > 0 {
		parts = append(parts, "before="+strconv.FormatInt(q.Before, 10))
	}
	if q.Limit > 0 {
		parts = append(parts, "limit="+strconv.Itoa(q.Limit))
	}
	return ToolList + " " + strings.Join(parts, " ")
}

// footerBound is the most bytes the list footer can take: both cursors at
// their widest. Reserving it before choosing entries means the footer
// always fits without clipping anything afterwards.
func (o RenderOptions) listFooter(q ListQuery, older, newer int64, fromStart bool) string {
	hint := o.ListHint
	if hint == nil {
		hint = defaultListHint
	}
	if older == 0 && newer == 0 && !fromStart {
		return ""
	}
	var b strings.Builder
	b.WriteString("--\n")
	if older > 0 {
		n := q
		n.After, n.Before, n.Oldest = 0, older, false
		fmt.Fprintf(&b, "older entries: %s\n", hint(n))
	}
	if newer > 0 || fromStart {
		n := q
		n.Before, n.After, n.Oldest = 0, newer, fromStart
		fmt.Fprintf(&b, "newer entries: %s\n", hint(n))
	}
	return b.String()
}

const maxSeq = int64(1<<62 - 1)

func listHeader(q ListQuery, shown int) string {
	var b strings.Builder
	fmt.Fprintf(&b, ToolList+": %d entries", shown)
	if q.Query != "" {
		fmt.Fprintf(&b, " matching %s (literal, case-insensitive)", strconv.Quote(q.Query))
	}
	b.WriteString("\n")
	return b.String()
}

// List runs q over an event stream and renders one page. It keeps only the
// page: forwards it stops after the first entry that does not fit; backwards
// (and for the newest page) it keeps a window of at most Limit entries and
// the response budget, dropping the oldest as newer matches arrive.
func List(events iter.Seq2[Event, error], q ListQuery, o RenderOptions) (Page, error) {
	if err := q.Validate(); err != nil {
		return Page{}, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	// Budget for entry lines: everything minus notice, header and footer at
	// their largest.
	budget := MaxResponseBytes - o.noticeReserve() - len(listHeader(q, MaxListLimit)) -
		len(o.listFooter(q, maxSeq, maxSeq, false))
	if budget <= 0 {
		return Page{}, fmt.Errorf(ToolList+": the query is too long to render a page within %d bytes", MaxResponseBytes)
	}
	// The serialized answer's budget for entries, when the front end sends
	// more than the text (Answer): its wrapper, the notice (once escaped;
	// the text's copy too when it carries the text), header and footer.
	answerBudget, entryCost := 0, func(Entry) int { return 0 }
	if a := o.Answer; a != nil {
		answerBudget = MaxResponseBytes - a.Reserve - a.text(listHeader(q, MaxListLimit)) -
			a.text(o.listFooter(q, maxSeq, maxSeq, false))
		if o.Notice != nil {
			answerBudget -= o.NoticeReserve
		}
		if a.Entry != nil {
			entryCost = a.Entry
		}
		if answerBudget <= 0 {
			return Page{}, fmt.Errorf(ToolList+": the query is too long to answer a page within %d bytes", MaxResponseBytes)
		}
	}

	var (
		page       []Entry
		used       int
		sent       int   // the page's entries' bytes in the serialized answer
		older      int64 // seq of the oldest match not on the page but before it
		sawOlder   bool
		newer      int64
		fromStart  bool
		forward    = q.Before == 0 && (q.After > 0 || q.Oldest)
		newest     = q.Before == 0 && q.After == 0 && !q.Oldest
		pageClosed bool // forward: page is full, looking for one more match
	)
	for ev, err := range events {
		if err != nil {
			return Page{}, err
		}
		at, ok := q.keeps(ev)
		if !ok {
			continue
		}
		switch {
		case forward:
			if ev.Seq <= q.After {
				sawOlder = true
				continue
			}
			if pageClosed {
				newer = page[len(page)-1].Seq
				goto done
			}
			e := newEntry(ev, at)
			cost := entryCost(e)
			if len(page) >= limit || used+len(e.line) > budget || (o.Answer != nil && sent+cost > answerBudget) {
				if len(page) == 0 {
					return Page{}, fmt.Errorf(ToolList+": entry #%d does not fit the response budget", ev.Seq)
				}
				newer = page[len(page)-1].Seq
				goto done
			}
			page = append(page, e)
			used += len(e.line)
			sent += cost
			if len(page) >= limit {
				pageClosed = true
			}
		default: // backwards or newest page
			if !newest && ev.Seq >= q.Before {
				switch {
				case len(page) > 0:
					newer = page[len(page)-1].Seq
				case q.Before > 1:
					newer = q.Before - 1
				default:
					fromStart = true
				}
				goto done
			}
			e := newEntry(ev, at)
			e.cost = entryCost(e)
			page = append(page, e)
			used += len(e.line)
			sent += e.cost
			for len(page) > limit || used > budget || (o.Answer != nil && sent > answerBudget) {
				used -= len(page[0].line)
				sent -= page[0].cost
				page[0] = Entry{}
				page = page[1:]
				sawOlder = true
			}
			// Re-slicing from the front would pin the dropped prefix forever;
			// compact once the dead prefix is as large as the live page.
			if cap(page) > 4*limit+16 {
				page = append([]Entry(nil), page...)
			}
		}
	}
done:
	if sawOlder {
		if len(page) > 0 {
			older = page[0].Seq
		} else if forward {
			older = q.After + 1
		}
	}
	if page == nil {
		page = []Entry{} // JSON answers show an empty page as [], not null
	}
	p := Page{Entries: page, Older: older, Newer: newer, NewerFromStart: fromStart}
	notice := o.notice()
	p.Notice = strings.TrimSuffix(notice, "\n\n")
	var b strings.Builder
	b.WriteString(notice)
	b.WriteString(listHeader(q, len(page)))
	if len(page) == 0 {
		b.WriteString("(no entries)\n")
	}
	for i := range page {
		b.WriteString(page[i].line)
	}
	b.WriteString(o.listFooter(q, older, newer, fromStart))
	p.Text = b.String()
	if len(p.Text) > MaxResponseBytes {
		// The reservations above make this unreachable; fail loudly rather
		// than hand out a clipped page.
		return Page{}, fmt.Errorf(ToolList+": internal error: page of %d bytes exceeds %d", len(p.Text), MaxResponseBytes)
	}
	return p, nil
}
