package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRun starts the command on a script, sends the given number of
// requests, stops it and checks the exit status: 0 when the script covered
// every request, 3 when a request found no turn left.
func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		requests int
		wantCode int
		wantErr  string
	}{
		{"covered", 1, 0, ""},
		{"off script", 2, exitProblems, "unscripted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "s.json")
			if err := os.WriteFile(script, []byte(`{"turns":[{"text":"hi from ${WHO}"}]}`), 0o600); err != nil {
				t.Fatal(err)
			}
			urlFile := filepath.Join(dir, "url")
			logFile := filepath.Join(dir, "req.jsonl")
			stop := make(chan struct{})
			var stdout, stderr bytes.Buffer
			done := make(chan int)
			go func() {
				done <- run([]string{"-script", script, "-var", "WHO=test", "-url-file", urlFile, "-log", logFile}, &stdout, &stderr, stop)
			}()
			url := waitFile(t, urlFile)
			for i := 0; i < tc.requests; i++ {
				resp, err := http.Post(url+"/v1/chat/completions", "application/json",
					strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"x"}]}`))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			}
			close(stop)
			code := <-done
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.wantCode, stderr.String())
			}
			if strings.TrimSpace(stdout.String()) != url {
				t.Fatalf("stdout %q, want the URL %q", stdout.String(), url)
			}
			if tc.wantErr != "" && !strings.Contains(stderr.String(), tc.wantErr) {
				t.Fatalf("stderr lacks %q: %s", tc.wantErr, stderr.String())
			}
			raw, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(raw), "\n"); n != tc.requests {
				t.Fatalf("log has %d lines, want %d", n, tc.requests)
			}
		})
	}
}

func TestRunBadArgs(t *testing.T) {
	dir := t.TempDir()
	missingVar := filepath.Join(dir, "s.json")
	if err := os.WriteFile(missingVar, []byte(`{"turns":[{"text":"${NOPE}"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{nil, 2, "-script is required"},
		{[]string{"-script", filepath.Join(dir, "absent.json")}, 1, "reading script"},
		{[]string{"-script", missingVar}, 1, "undefined variables NOPE"},
		{[]string{"-script", missingVar, "-var", "novalue"}, 2, "want NAME=value"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr, nil); code != tc.wantCode || !strings.Contains(stderr.String(), tc.wantErr) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.wantCode, tc.wantErr)
		}
	}
}

func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s not written within 10s", path)
	return ""
}
