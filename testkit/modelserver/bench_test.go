package modelserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// BenchmarkRoundTrip measures one streamed reply (thinking, text, two tool
// calls) per protocol over real HTTP on loopback, including recording the
// request: the cost a scripted agent run pays per model call.
func BenchmarkRoundTrip(b *testing.B) {
	reply := Reply{Thinking: "thinking about it", Text: "Calling two tools now.", ToolCalls: []ToolCall{
		{Name: "read", Input: json.RawMessage(`{"path":"notes.txt"}`)},
		{Name: "bash", Input: json.RawMessage(`{"command":"echo hello from the benchmark"}`)},
	}}
	for _, pc := range protocolCases {
		b.Run(string(pc.p), func(b *testing.B) {
			srv, err := Start(Config{Script: &Script{Rules: []Rule{{Reply: reply}}}})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			body, _ := json.Marshal(pc.req("you are an agent", "hello", true))
			b.SetBytes(int64(len(body)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				resp, err := http.Post(srv.URL()+pc.path, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}
