package main

import (
	"strings"
	"testing"

	"github.com/notesoup/notesoup/contract"
)

// FuzzPart feeds any bytes to the message and part decoding and the
// projection: no panic, addresses ascend, a result names its call, and a
// reasoning part's text never shows.
func FuzzPart(f *testing.F) {
	for _, s := range []string{
		`{"type":"text","text":"hi"}`,
		`{"type":"reasoning","text":"SECRETREASON"}`,
		`{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"a":1},"output":"o","time":{"start":1,"end":2}}}`,
		`{"type":"tool","tool":"bash","state":{"status":"error","error":"e"}}`,
		`{"type":"compaction","auto":true}`,
		`{"type":"file","url":"data:x","filename":""}`,
		`{"type":"subtask","prompt":"p"}`,
		`{"type":"text","text":"x","synthetic":true,"time":{"start":-5}}`,
		`[]`, `{"type":5}`, `{"type":"tool","state":null}`,
	} {
		f.Add([]byte(`{"role":"assistant","summary":true}`), []byte(s))
		f.Add([]byte(`{"role":"user","summary":{"diffs":[]}}`), []byte(s))
	}
	f.Fuzz(func(t *testing.T, msg, part []byte) {
		m, err := parseMessage(msg)
		if err != nil {
			return
		}
		d, err := parsePart(part)
		if err != nil {
			return
		}
		var evs []contract.Event
		p := newProjector("ses_f", func(e contract.Event) error { evs = append(evs, e); return nil })
		for range 2 { // the same part twice: the second's addresses follow the first's
			if err := p.part(m, msTime(1), d); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.endMessage(m, msTime(1)); err != nil {
			t.Fatal(err)
		}
		last := int64(0)
		for _, e := range evs {
			if e.Seq <= last {
				t.Fatalf("seq %d after %d", e.Seq, last)
			}
			last = e.Seq
			if e.Kind == contract.KindToolResult && e.PairSeq != e.Seq-1 {
				t.Fatalf("result #%d pairs with #%d", e.Seq, e.PairSeq)
			}
			if d.Type == "reasoning" && strings.Contains(e.Text, d.Text) && d.Text != "" {
				t.Fatalf("reasoning shown: %q", e.Text)
			}
			if e.Window == "" {
				t.Fatal("an event without a window")
			}
		}
		if p.seq < last {
			t.Fatalf("allocated up to %d but emitted %d", p.seq, last)
		}
	})
}
