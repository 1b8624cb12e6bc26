package helper_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/helper"
	"github.com/notesoup/notesoup/host"
	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/service"
)

// FuzzHandle feeds arbitrary bytes to the helper's request parser and
// dispatcher over a real service (a temporary home, a host with no plugins,
// so history operations fail cleanly instead of starting processes). Every
// input must get exactly one well-formed answer: ok with a result, or an
// error with a code, and the answer must encode as JSON.
func FuzzHandle(f *testing.F) {
	home := f.TempDir()
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		f.Fatal(err)
	}
	// Seeds: every request documented in docs/helper-protocol.md, plus
	// malformed envelopes.
	doc, err := os.ReadFile(filepath.Join(testbin.Root(), "docs", "helper-protocol.md"))
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range docBlock.FindAllStringSubmatch(string(doc), -1) {
		if b[1] == "request" {
			f.Add([]byte(strings.ReplaceAll(b[2], docProject, cwd)))
		}
	}
	for _, s := range []string{``, `{`, `null`, `[]`, `{"v":1}`, `{"v":1,"op":"version"} {}`, `{"v":1e400}`,
		`{"v":1,"op":"notes.write","caller":{"cwd":"` + cwd + `"},"args":{"name":"a\u0000.md","content":"x"}}`,
		`{"v":1,"op":"notes.read","caller":{"cwd":"` + cwd + `"},"args":{"name":"../../etc/passwd.md"}}`,
		`{"v":1,"op":"history.read","args":{"session":"/etc/passwd","seq":1}}`,
		`{"v":1,"op":"reset.event","caller":{"harness":"claude","session":"../x"},"args":{"type":"reboot"}}`,
		`{"v":1,"op":"limits","caller":{"harness":"claude"},"args":{"cap":"99999999999999999999k"}}`} {
		f.Add([]byte(s))
	}
	h := host.New(host.WithBuiltins(), host.WithPluginDirs(f.TempDir()), host.WithTimeouts(time.Second, time.Second, time.Second))
	f.Cleanup(h.Close)
	svc, err := service.New(h, service.WithHome(filepath.Join(home, ".notesoup")))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		resp := helper.Handle(context.Background(), svc, bytes.NewReader(req))
		if resp.V != helper.ProtocolVersion {
			t.Fatalf("response v = %d", resp.V)
		}
		if resp.OK == (resp.Error != nil) {
			t.Fatalf("ok=%v but error=%v", resp.OK, resp.Error)
		}
		if resp.Error != nil && (resp.Error.Code == "" || resp.Error.Message == "") {
			t.Fatalf("error without code or message: %+v", resp.Error)
		}
		var out bytes.Buffer
		if err := json.NewEncoder(&out).Encode(resp); err != nil {
			t.Fatalf("response does not encode: %v", err)
		}
		if bytes.Count(out.Bytes(), []byte("\n")) != 1 {
			t.Fatalf("response is not one line: %q", out.String())
		}
	})
}
