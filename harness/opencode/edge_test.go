package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/contract"
)

// schema is the part of OpenCode's schema the plugin reads, column for
// column as OpenCode 1.18 creates it.
const schema = `
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL,
  title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);`

// handDB is a database written by the test, as OpenCode would, in WAL
// mode; w stays open (a running OpenCode) until closed.
type handDB struct {
	root, path string
	w          *sql.DB
	t          testing.TB
}

func newHandDB(t testing.TB) *handDB {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, "opencode.db")
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	h := &handDB{root: root, path: path, w: w, t: t}
	h.exec(schema)
	h.exec(`INSERT INTO session VALUES ('ses_1', 'global', NULL, 's', '/work', 'hand made', '1.18.33', 1000, 9000)`)
	return h
}

func (h *handDB) exec(q string, args ...any) {
	h.t.Helper()
	if _, err := h.w.Exec(q, args...); err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
}

// msg adds a message; parts are added with part.
func (h *handDB) msg(id string, at int64, data string) {
	h.exec(`INSERT INTO message VALUES (?, 'ses_1', ?, ?, ?)`, id, at, at, data)
}

func (h *handDB) part(id, msgID, data string) {
	h.exec(`INSERT INTO part VALUES (?, ?, 'ses_1', 0, 0, ?)`, id, msgID, data)
}

func (h *handDB) session() contract.Session {
	return contract.Session{Harness: Name, ID: "ses_1", Path: h.path}
}

const (
	userMsg = `{"role":"user","time":{"created":1}}`
	asstMsg = `{"role":"assistant","time":{"created":2}}`
)

func TestDecodeEdgeCases(t *testing.T) {
	isolate(t)
	tests := []struct {
		name   string
		fill   func(h *handDB)
		want   []string // "seq kind role tool text pair"
		refuse string   // a substring of the refusal, naming the row
	}{
		{"unknown and hidden part types take no address", func(h *handDB) {
			h.msg("msg_1", 10, asstMsg)
			h.part("prt_1", "msg_1", `{"type":"step-start"}`)
			h.part("prt_2", "msg_1", `{"type":"reasoning","text":"secret thoughts"}`)
			h.part("prt_3", "msg_1", `{"type":"hologram","text":"from a newer OpenCode"}`)
			h.part("prt_4", "msg_1", `{"type":"text","text":"visible"}`)
			h.part("prt_5", "msg_1", `{"type":"patch","hash":"x","files":[]}`)
		}, []string{"1 message assistant  visible 0"}, ""},
		{"a pending call has its result's address reserved", func(h *handDB) {
			h.msg("msg_1", 10, asstMsg)
			h.part("prt_1", "msg_1", `{"type":"tool","tool":"bash","callID":"c1","state":{"status":"running","input":{"command":"sleep 9"}}}`)
			h.part("prt_2", "msg_1", `{"type":"tool","tool":"read","callID":"c2","state":{"status":"completed","input":{},"output":"ok"}}`)
		}, []string{"1 tool_use tool bash  0", "3 tool_use tool read  4", "4 tool_result tool read ok 3"}, ""},
		{"a failed call is an error result", func(h *handDB) {
			h.msg("msg_1", 10, asstMsg)
			h.part("prt_1", "msg_1", `{"type":"tool","tool":"bash","callID":"c1","state":{"status":"error","input":{"command":"false"},"error":"exit 1"}}`)
		}, []string{"1 tool_use tool bash  2", "2 tool_result tool bash exit 1 1 error"}, ""},
		{"empty and ignored texts keep their address", func(h *handDB) {
			h.msg("msg_1", 10, userMsg)
			h.part("prt_1", "msg_1", `{"type":"text","text":""}`)
			h.part("prt_2", "msg_1", `{"type":"text","text":"dropped","ignored":true}`)
			h.part("prt_3", "msg_1", `{"type":"text","text":"kept"}`)
			h.part("prt_4", "msg_1", `{"type":"file","filename":"shot.png","url":"data:image/png;base64,AAAA"}`)
		}, []string{"3 message user  kept 0", "4 attachment user  shot.png 0"}, ""},
		{"an assistant error is a notice after its parts", func(h *handDB) {
			h.msg("msg_1", 10, `{"role":"assistant","error":{"name":"APIError","data":{"message":"HTTP 400"}}}`)
			h.part("prt_1", "msg_1", `{"type":"text","text":"partial"}`)
			h.msg("msg_2", 20, userMsg)
			h.part("prt_2", "msg_2", `{"type":"text","text":"again"}`)
		}, []string{"1 message assistant  partial 0", "2 notice system  error: APIError: HTTP 400 0", "3 message user  again 0"}, ""},
		{"messages in time then id order", func(h *handDB) {
			h.msg("msg_b", 10, userMsg)
			h.msg("msg_a", 20, asstMsg)
			h.msg("msg_c", 10, asstMsg)
			h.part("prt_1", "msg_a", `{"type":"text","text":"third"}`)
			h.part("prt_2", "msg_b", `{"type":"text","text":"first"}`)
			h.part("prt_3", "msg_c", `{"type":"text","text":"second"}`)
		}, []string{"1 message user  first 0", "2 message assistant  second 0", "3 message assistant  third 0"}, ""},
		{"a damaged part is refused by id", func(h *handDB) {
			h.msg("msg_1", 10, userMsg)
			h.part("prt_1", "msg_1", `{"type":"text","text":"fine"}`)
			h.part("prt_bad", "msg_1", `{"type":"text","text":"torn`)
		}, []string{"1 message user  fine 0"}, "part prt_bad of session ses_1: not a JSON object"},
		{"a part that is not an object is refused", func(h *handDB) {
			h.msg("msg_1", 10, userMsg)
			h.part("prt_x", "msg_1", `[1,2]`)
		}, nil, "part prt_x of session ses_1: not a JSON object"},
		{"a tool part without its state is refused", func(h *handDB) {
			h.msg("msg_1", 10, asstMsg)
			h.part("prt_t", "msg_1", `{"type":"tool","tool":"bash"}`)
		}, nil, "part prt_t of session ses_1: a tool part without a state"},
		{"a damaged message is refused by id", func(h *handDB) {
			h.msg("msg_bad", 10, `{"role":`)
		}, nil, "message msg_bad of session ses_1: not a JSON object"},
		{"a message of another role is refused", func(h *handDB) {
			h.msg("msg_r", 10, `{"role":"system"}`)
		}, nil, `message msg_r of session ses_1: role "system"`},
		{"a row over the bound is refused unread", func(h *handDB) {
			h.msg("msg_1", 10, userMsg)
			h.part("prt_big", "msg_1", `{"type":"text","text":"`+strings.Repeat("a", maxRowBytes)+`"}`)
		}, nil, "part prt_big of session ses_1: its data is"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHandDB(t)
			tc.fill(h)
			evs, _, err := decodeAll(h.root, h.session())
			var got []string
			for _, e := range evs {
				s := fmt.Sprintf("%d %s %s %s %s %d", e.Seq, e.Kind, e.Role, e.ToolName, e.Text, e.PairSeq)
				if e.IsError {
					s += " error"
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("events\n%q\nwant\n%q", got, tc.want)
			}
			if tc.refuse == "" {
				if err != nil {
					t.Errorf("decode: %v", err)
				}
				return
			}
			var r *contract.Refusal
			if !errors.As(err, &r) || r.Path != h.path || r.Harness != Name || !strings.Contains(r.Reason, tc.refuse) {
				t.Errorf("err %v, want a refusal of %s saying %q", err, h.path, tc.refuse)
			}
		})
	}
}

// TestAddressesStableAsTheSessionGrows: a call that completes, a text
// that fills in and new messages never move an address already given.
func TestAddressesStableAsTheSessionGrows(t *testing.T) {
	isolate(t)
	h := newHandDB(t)
	h.msg("msg_1", 10, userMsg)
	h.part("prt_1", "msg_1", `{"type":"text","text":"go"}`)
	h.msg("msg_2", 20, asstMsg)
	h.part("prt_2", "msg_2", `{"type":"text","text":""}`)
	h.part("prt_3", "msg_2", `{"type":"tool","tool":"bash","callID":"c1","state":{"status":"pending","input":{}}}`)
	h.part("prt_4", "msg_2", `{"type":"tool","tool":"read","callID":"c2","state":{"status":"running","input":{}}}`)
	addrs := func() map[string]int64 {
		evs, _, err := decodeAll(h.root, h.session())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, e := range evs {
			out[string(e.Kind)+" "+e.ToolID+" "+e.Text] = e.Seq
		}
		return out
	}
	before := addrs()
	h.exec(`UPDATE part SET data = '{"type":"text","text":"now with text"}' WHERE id = 'prt_2'`)
	h.exec(`UPDATE part SET data = '{"type":"tool","tool":"read","callID":"c2","state":{"status":"completed","input":{},"output":"r"}}' WHERE id = 'prt_4'`)
	h.exec(`UPDATE part SET data = '{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{},"output":"b"}}' WHERE id = 'prt_3'`)
	h.msg("msg_3", 30, userMsg)
	h.part("prt_5", "msg_3", `{"type":"text","text":"more"}`)
	after := addrs()
	for k, seq := range before {
		if after[k] != seq {
			t.Errorf("%q moved from #%d to #%d", k, seq, after[k])
		}
	}
	want := map[string]int64{"message  go": 1, "message  now with text": 2, "tool_use c1 ": 3, "tool_result c1 b": 4, "tool_use c2 ": 5, "tool_result c2 r": 6, "message  more": 7}
	for k, seq := range want {
		if after[k] != seq {
			t.Errorf("%q at #%d, want #%d (all: %v)", k, after[k], seq, after)
		}
	}
}

// TestReadsALiveDatabase: while OpenCode holds the database open (its
// newest rows only in the -wal), a read sees them and creates nothing; a
// -wal without its -shm is refused as retryable, not read stale.
func TestReadsALiveDatabase(t *testing.T) {
	isolate(t)
	h := newHandDB(t)
	h.exec(`PRAGMA wal_autocheckpoint = 0`) // keep every row in the -wal
	h.msg("msg_1", 10, userMsg)
	h.part("prt_1", "msg_1", `{"type":"text","text":"only in the wal"}`)
	names := dirNames(t, h.root)
	if !slices.Contains(names, "opencode.db-wal") || !slices.Contains(names, "opencode.db-shm") {
		t.Fatalf("the writer left %v; want a -wal and a -shm", names)
	}
	evs, _, err := decodeAll(h.root, h.session())
	if err != nil || len(evs) != 1 || evs[0].Text != "only in the wal" {
		t.Fatalf("decode of a live database: %v, %v; want the row in the -wal", evs, err)
	}
	if got := list(t, h.root, contract.SessionFilter{}); len(got) != 1 || got[0].ID != "ses_1" || got[0].Size == 0 {
		t.Errorf("listing a live database: %+v", got)
	}
	if after := dirNames(t, h.root); !slices.Equal(after, names) {
		t.Errorf("reading changed the directory from %v to %v", names, after)
	}

	// A -wal without its -shm: copy the two files elsewhere, no index.
	other := t.TempDir()
	for _, n := range []string{"opencode.db", "opencode.db-wal"} {
		raw, err := os.ReadFile(filepath.Join(h.root, n))
		if err != nil || os.WriteFile(filepath.Join(other, n), raw, 0o600) != nil {
			t.Fatalf("copying %s", n)
		}
	}
	_, _, err = decodeAll(other, contract.Session{Harness: Name, ID: "ses_1", Path: filepath.Join(other, "opencode.db")})
	var r *contract.Refusal
	if !errors.As(err, &r) || !r.Retry || !strings.Contains(r.Reason, "-shm") {
		t.Errorf("err %v, want a retryable refusal naming the missing -shm", err)
	}
	if got := dirNames(t, other); !slices.Equal(got, []string{"opencode.db", "opencode.db-wal"}) {
		t.Errorf("the refused read left %v", got)
	}
}

// TestOpensOnlyItsOwnFiles: a caller may pass any path; the plugin reads
// only OpenCode's databases, regular files directly inside its roots.
func TestOpensOnlyItsOwnFiles(t *testing.T) {
	isolate(t)
	root, db := fixture(t, "tools")
	id := list(t, root, contract.SessionFilter{})[0].ID
	outsideRoot, outside := fixture(t, "tools")
	_ = outsideRoot
	link := filepath.Join(root, "opencode-link.db")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "notes.db")
	raw, _ := os.ReadFile(db)
	if err := os.WriteFile(other, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	notSQLite := filepath.Join(root, "opencode-garbage.db")
	if err := os.WriteFile(notSQLite, []byte(strings.Repeat("x", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path, id, says string }{
		{"outside the roots", outside, id, "not directly inside"},
		{"a link inside the roots", link, id, "not a regular file"},
		{"another name", other, id, "not an OpenCode database"},
		{"not SQLite", notSQLite, id, "not an SQLite database"},
		{"a dot-dot path", root + "/../" + filepath.Base(root) + "/opencode.db", id, "clean"},
		{"a relative path", "opencode.db", id, "absolute"},
		{"an id that is not one", db, "../x", "session id"},
		{"an id the database lacks", db, "ses_missing", "no session ses_missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, _, err := decodeAll(root, contract.Session{Harness: Name, ID: tc.id, Path: tc.path})
			var r *contract.Refusal
			if !errors.As(err, &r) || !strings.Contains(r.Reason, tc.says) || len(evs) != 0 {
				t.Errorf("%d events, err %v; want none and a refusal saying %q", len(evs), err, tc.says)
			}
		})
	}
	// The listing skips the link, the other name and the damaged file.
	if got := list(t, root, contract.SessionFilter{}); len(got) != 1 || got[0].Path != db {
		t.Errorf("listing %+v, want the one session of %s", got, db)
	}
}
