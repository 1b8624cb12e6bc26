package helper_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/notes"
)

// Load: up to loadRequests helper processes, loadConcurrency at a time;
// no new request starts once loadBudget is spent (a loaded CI machine runs
// fewer), but at least minRequests must complete. Every third request reads
// a note written before the load (its answer must be exact); the others
// write a note of their own (each must read back exactly afterwards); a few
// list history.
const (
	loadRequests    = 300
	loadConcurrency = 64
	loadBudget      = 20 * time.Second
	minRequests     = 2 * loadConcurrency
)

func TestHelperUnderLoad(t *testing.T) {
	e := newEnv(t)
	// Small enough that notes_read answers it whole (its answers are bounded
	// at 32 KiB; a longer note is paged).
	fixed := "# fixed\n" + strings.Repeat("a line every reader must see exactly\n", 400)
	if r, raw := e.run(t, mustJSON(t, map[string]any{"v": 1, "op": "notes.write", "caller": map[string]string{"cwd": e.cwd},
		"args": map[string]string{"name": "fixed.md", "content": fixed}})); !r.OK {
		t.Fatal(raw)
	}
	content := func(i int) string { return fmt.Sprintf("# note %d\nwritten under load by request %d\n", i, i) }

	type result struct {
		i   int
		out []byte
		err error
	}
	jobs := make(chan int)
	results := make(chan result, loadRequests)
	var wg sync.WaitGroup
	deadline := time.Now().Add(loadBudget)
	for range loadConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				var req string
				switch {
				case i%3 == 0:
					req = mustJSON(t, map[string]any{"v": 1, "op": "notes.read", "caller": map[string]string{"cwd": e.cwd}, "args": map[string]string{"name": "fixed.md"}})
				case i%50 == 1:
					req = `{"v":1,"op":"history.list","args":{"session":"claude:0b5e8a61-7c1d-4f3e-9a2b-000000000001","query":"notes.txt"}}`
				default:
					req = mustJSON(t, map[string]any{"v": 1, "op": "notes.write", "caller": map[string]string{"cwd": e.cwd},
						"args": map[string]string{"name": fmt.Sprintf("load/n%03d.md", i), "content": content(i)}})
				}
				cmd := exec.Command(e.bin, "helper")
				cmd.Env = e.vars
				cmd.Stdin = strings.NewReader(req)
				out, err := cmd.Output()
				results <- result{i, out, err}
			}
		}()
	}
	start := time.Now()
	for i := range loadRequests {
		if time.Now().After(deadline) {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(results)
	elapsed := time.Since(start)

	n := 0
	for r := range results {
		n++
		if r.err != nil {
			t.Errorf("request %d: helper failed: %v", r.i, r.err)
			continue
		}
		var resp struct {
			OK     bool `json:"ok"`
			Result struct {
				Text string `json:"text"`
			} `json:"result"`
		}
		if err := json.Unmarshal(r.out, &resp); err != nil || !resp.OK {
			t.Errorf("request %d: answer %s (%v)", r.i, r.out, err)
			continue
		}
		switch {
		case r.i%3 == 0:
			if got := pageContent(resp.Result.Text); got != fixed {
				t.Errorf("request %d: read a different fixed.md (%d bytes)", r.i, len(got))
			}
		case r.i%50 == 1:
			if !strings.Contains(resp.Result.Text, "notes.txt") {
				t.Errorf("request %d: history answer lacks the match: %s", r.i, r.out)
			}
		}
	}
	if n < minRequests {
		t.Errorf("only %d requests completed in %v; want at least %d", n, loadBudget, minRequests)
	}
	// Every note intact: read each back from the store, and nothing else.
	sp, err := notes.Open(homeOf(e)).Space(e.cwd)
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	for i := range n {
		if i%3 == 0 || i%50 == 1 {
			continue
		}
		written++
		r, err := sp.Read(notes.ReadRequest{Name: fmt.Sprintf("load/n%03d.md", i)})
		if err != nil || r.Content != content(i) {
			t.Errorf("note %d after the load: %q, %v", i, r.Content, err)
		}
	}
	list, err := sp.List(notes.ListRequest{Prefix: "load/"})
	if err != nil || len(list.Notes) != written {
		t.Errorf("list after the load: %d notes, %v; want %d", len(list.Notes), err, written)
	}
	t.Logf("%d helper processes, %d at a time, in %v (%.0f requests/s)", n, loadConcurrency, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
}

func mustJSON(t *testing.T, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// homeOf returns the env's notes home.
func homeOf(e env) string {
	for _, kv := range e.vars {
		if v, ok := strings.CutPrefix(kv, "NOTESOUP_HOME="); ok {
			return v
		}
	}
	return ""
}

// pageContent is the note text of a notes.read answer's page: its lines
// without the header line and the "N\t" number each carries.
func pageContent(text string) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines[1:] {
		if _, rest, ok := strings.Cut(l, "\t"); ok {
			b.WriteString(rest)
		}
	}
	return b.String()
}
