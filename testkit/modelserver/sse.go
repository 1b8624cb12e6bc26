package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// deltaBytes is the largest piece a text or JSON delta carries. Real APIs
// stream in small pieces; splitting exercises the clients' reassembly
// without making streams long.
const deltaBytes = 40

// response is everything a protocol writer needs to answer one request.
type response struct {
	seq          int
	model        string
	reply        Reply
	usage        Usage
	includeUsage bool
}

// toolID returns call i's id: the scripted one, or a deterministic one built
// from the request sequence number with the protocol's customary prefix.
func (r response) toolID(i int, prefix string) string {
	if id := r.reply.ToolCalls[i].ID; id != "" {
		return id
	}
	return fmt.Sprintf("%s_fake_%04d_%d", prefix, r.seq, i)
}

// input returns call i's arguments as compact JSON ("{}" when none).
func (r response) input(i int) string {
	in := r.reply.ToolCalls[i].Input
	if len(in) == 0 {
		return "{}"
	}
	var v any
	if err := json.Unmarshal(in, &v); err != nil {
		return "{}" // Validate rejected non-objects already.
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// sse writes Server-Sent Events, flushing after each one so clients see a
// real stream.
type sse struct {
	w       http.ResponseWriter
	flusher http.Flusher
	err     error
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, flusher: f}
}

// event writes one event; name may be empty (chat-completions sends data
// lines only). The first write error sticks and later writes are skipped.
func (s *sse) event(name string, data any) {
	if s.err != nil {
		return
	}
	var payload []byte
	switch d := data.(type) {
	case string:
		payload = []byte(d)
	default:
		b, err := json.Marshal(d)
		if err != nil {
			s.err = err
			return
		}
		payload = b
	}
	if name != "" {
		_, s.err = fmt.Fprintf(s.w, "event: %s\n", name)
	}
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, "data: %s\n\n", payload)
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
}

// chunks splits s into pieces of at most deltaBytes, on rune boundaries.
// An empty string yields no pieces.
func chunks(s string) []string {
	var out []string
	for len(s) > 0 {
		n := deltaBytes
		if n >= len(s) {
			out = append(out, s)
			break
		}
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 {
			n = deltaBytes
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}
