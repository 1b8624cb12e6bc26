package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/notesoup/notesoup/contract"
)

// BenchmarkDecode decodes a session of 500 turns (a prompt, then a reply
// with a reasoning part, a text and a tool call with its output) from a
// database in WAL mode, as a history_list of a long session does.
func BenchmarkDecode(b *testing.B) {
	b.Setenv("HOME", b.TempDir())
	h := newHandDB(b)
	tx, err := h.w.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i := range 500 {
		u, a := fmt.Sprintf("msg_%06du", i), fmt.Sprintf("msg_%06da", i)
		ins := func(q string, args ...any) {
			if _, err := tx.Exec(q, args...); err != nil {
				b.Fatal(err)
			}
		}
		ins(`INSERT INTO message VALUES (?, 'ses_1', ?, 0, ?)`, u, int64(i*10), userMsg)
		ins(`INSERT INTO part VALUES (?, ?, 'ses_1', 0, 0, ?)`, u+"1", u, fmt.Sprintf(`{"type":"text","text":"prompt %d: fix the failing test in pkg/%d"}`, i, i))
		ins(`INSERT INTO message VALUES (?, 'ses_1', ?, 0, ?)`, a, int64(i*10+1), asstMsg)
		ins(`INSERT INTO part VALUES (?, ?, 'ses_1', 0, 0, ?)`, a+"1", a, `{"type":"reasoning","text":"thinking about it"}`)
		ins(`INSERT INTO part VALUES (?, ?, 'ses_1', 0, 0, ?)`, a+"2", a, `{"type":"text","text":"Let me run the tests."}`)
		ins(`INSERT INTO part VALUES (?, ?, 'ses_1', 0, 0, ?)`, a+"3", a, fmt.Sprintf(
			`{"type":"tool","tool":"bash","callID":"c%d","state":{"status":"completed","input":{"command":"go test ./pkg/%d"},"output":"ok  \tpkg/%d\t0.%03ds\n","time":{"start":1,"end":2}}}`, i, i, i, i))
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if _, err := (Harness{}).Decode(context.Background(), contract.DecodeRequest{Session: h.session(), Roots: []string{h.root}}, func(contract.Event) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 2000 {
			b.Fatalf("%d events, want 2000", n)
		}
	}
}
