package modelserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// loopback is the only address the server binds: nothing it serves may be
// reachable from another host, and agents under test are pointed at it.
const loopback = "127.0.0.1"

// maxBodyBytes bounds a request body. Agent requests with long histories
// run to a few hundred KB; 64 MiB leaves room for images without letting a
// runaway client exhaust memory.
const maxBodyBytes = 64 << 20

// Config configures a Server.
type Config struct {
	// Script is what the server plays. Required.
	Script *Script
	// Port to bind on 127.0.0.1; 0 picks a free port.
	Port int
	// LogPath, when set, receives one JSON line per request (see Request).
	// The file is created or truncated at Start.
	LogPath string
	// Logger receives diagnostics; nil discards them.
	Logger hclog.Logger
}

// Request is one recorded request and how it was answered.
type Request struct {
	// Seq numbers requests from 1 in arrival order.
	Seq int `json:"seq"`
	// Time is when the request arrived.
	Time time.Time `json:"time"`
	// Method and Path (without query) of the request; Query is the raw query.
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// Protocol is the protocol the path belongs to (Aux for the rest).
	Protocol Protocol `json:"protocol"`
	// Header holds the request headers, credentials redacted.
	Header map[string]string `json:"header,omitempty"`
	// Body is the request body verbatim when it is JSON, else a JSON string.
	Body json.RawMessage `json:"body,omitempty"`
	// Answer says what answered: "turn N", "rule NAME", "exhausted", "aux",
	// or "error: …" for a request the server could not read.
	Answer string `json:"answer"`
	// LastUserText is the text of the last user message, as rules saw it.
	LastUserText string `json:"last_user_text,omitempty"`
	// LastIsToolResult reports whether the request ended with a tool result.
	LastIsToolResult bool `json:"last_is_tool_result,omitempty"`
}

// Server is a running scripted model server.
type Server struct {
	cfg      Config
	log      hclog.Logger
	ln       net.Listener
	srv      *http.Server
	url      string
	done     chan struct{}
	serveErr error

	mu        sync.Mutex
	requests  []Request
	problems  []string
	nextTurn  int
	ruleFired []int
	logFile   *os.File
}

// Start binds 127.0.0.1 and serves cfg.Script until Close.
func Start(cfg Config) (*Server, error) {
	if cfg.Script == nil {
		return nil, errors.New("modelserver: Config.Script is nil; load one with LoadScript or ParseScript")
	}
	if err := cfg.Script.Validate(); err != nil {
		return nil, fmt.Errorf("modelserver: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	s := &Server{cfg: cfg, log: log, done: make(chan struct{}), ruleFired: make([]int, len(cfg.Script.Rules))}
	if cfg.LogPath != "" {
		f, err := os.OpenFile(cfg.LogPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("modelserver: opening request log: %w", err)
		}
		s.logFile = f
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("%s:%d", loopback, cfg.Port))
	if err != nil {
		if s.logFile != nil {
			s.logFile.Close()
		}
		return nil, fmt.Errorf("modelserver: listening on %s:%d: %w", loopback, cfg.Port, err)
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.serveErr = err
		}
	}()
	log.Info("model server listening", "url", s.url, "script", cfg.Script.Name)
	return s, nil
}

// URL is the server's base URL, http://127.0.0.1:PORT (no /v1).
func (s *Server) URL() string { return s.url }

// Port is the TCP port the server listens on.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ModelRequests returns the recorded requests of one protocol, in order.
func (s *Server) ModelRequests(p Protocol) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Protocol == p {
			out = append(out, r)
		}
	}
	return out
}

// Problems lists requests the script did not foresee (turns exhausted,
// unreadable bodies, unknown paths). A clean run has none.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

// TurnsUsed is how many scripted turns have been consumed.
func (s *Server) TurnsUsed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextTurn
}

// Close stops the server, waits for in-flight requests, and closes the log.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logFile != nil {
		if cerr := s.logFile.Close(); err == nil {
			err = cerr
		}
		s.logFile = nil
	}
	if err == nil {
		err = s.serveErr
	}
	return err
}

// ServeHTTP routes a request by path. Paths are matched after the /v1
// prefix and ignoring the query (Claude Code appends ?beta=true).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	if err != nil {
		http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: redact(r.Header), Body: asJSON(body), Protocol: Aux}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages":
		s.model(w, r, body, rec, Anthropic, parseAnthropic)
	case r.Method == http.MethodPost && path == "/v1/chat/completions":
		s.model(w, r, body, rec, Chat, parseChat)
	case r.Method == http.MethodPost && path == "/v1/responses":
		s.model(w, r, body, rec, Responses, parseResponses)
	case r.Method == http.MethodPost && isGemini(path):
		s.gemini(w, r, body, rec, path)
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		// Claude Code asks only for /context-style breakdowns; an estimate
		// of 4 bytes per token is what the real tokenizer averages on code.
		rec.Answer = "aux"
		s.record(rec, "")
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": len(body)/4 + 1})
	case r.Method == http.MethodGet && (path == "/v1/models" || path == "/models"):
		rec.Answer = "aux"
		s.record(rec, "")
		writeJSON(w, http.StatusOK, s.modelList())
	case r.Method == http.MethodHead || r.Method == http.MethodGet:
		// Claude Code probes HEAD /api/hello; any GET/HEAD probe gets an
		// empty success so agents do not retry, and is recorded.
		rec.Answer = "aux"
		s.record(rec, "")
		writeJSON(w, http.StatusOK, map[string]any{})
	default:
		rec.Answer = "error: unknown endpoint"
		s.record(rec, fmt.Sprintf("request %s %s: no such endpoint", r.Method, r.URL.Path))
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]string{"type": "not_found_error", "message": "modelserver: no endpoint " + r.Method + " " + r.URL.Path}})
	}
}

// model answers a model request of protocol p.
func (s *Server) model(w http.ResponseWriter, r *http.Request, body []byte, rec Request, p Protocol, parse func([]byte, http.Header) (*view, error)) {
	rec.Protocol = p
	v, err := parse(body, r.Header)
	if err != nil {
		rec.Answer = "error: unreadable body"
		s.record(rec, fmt.Sprintf("%s request: body is not a valid %s request: %v", p, p, err))
		writeError(w, p, HTTPError{Status: http.StatusBadRequest, Message: "modelserver: invalid request body: " + err.Error()})
		return
	}
	rec.LastUserText, rec.LastIsToolResult = v.lastUserText, v.lastIsToolResult
	reply, answer, problem, seq := s.choose(v, rec)
	if reply.Error != nil {
		writeError(w, p, *reply.Error)
		return
	}
	model := v.model
	if model == "" {
		model = s.model0()
	}
	out := response{seq: seq, model: model, reply: reply, usage: s.cfg.Script.usageFor(reply), includeUsage: v.includeUsage}
	s.log.Debug("answering", "seq", seq, "protocol", p, "answer", answer, "problem", problem)
	var werr error
	switch p {
	case Anthropic:
		werr = writeAnthropic(w, out, v.stream)
	case Chat:
		werr = writeChat(w, out, v.stream)
	case Responses:
		werr = writeResponses(w, out, v.stream)
	case Gemini:
		werr = writeGemini(w, out, v.stream)
	}
	if werr != nil {
		s.log.Warn("writing response failed", "seq", seq, "error", werr)
	}
}

// choose picks the reply for a model request and records the request. It
// holds the lock across both so sequence numbers and turn order agree.
func (s *Server) choose(v *view, rec Request) (reply Reply, answer, problem string, seq int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.cfg.Script
	for i, rule := range sc.Rules {
		if rule.Times > 0 && s.ruleFired[i] >= rule.Times {
			continue
		}
		if rule.Match.matches(v) {
			s.ruleFired[i]++
			reply = rule.Reply
			name := rule.Name
			if name == "" {
				name = fmt.Sprint(i)
			}
			answer = "rule " + name
			break
		}
	}
	if answer == "" {
		if s.nextTurn < len(sc.Turns) {
			reply = sc.Turns[s.nextTurn]
			answer = fmt.Sprintf("turn %d", s.nextTurn)
			s.nextTurn++
		} else {
			answer = "exhausted"
			problem = fmt.Sprintf("request %d (%s): script has no turn left; last user text %q", len(s.requests)+1, v.protocol, clip(v.lastUserText, 120))
			if sc.Exhausted != nil {
				reply = *sc.Exhausted
			} else {
				reply = Reply{Text: exhaustedText}
			}
		}
	}
	rec.Answer = answer
	seq = s.recordLocked(rec, problem)
	return reply, answer, problem, seq
}

func (s *Server) record(rec Request, problem string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordLocked(rec, problem)
}

// recordLocked appends rec (and problem) and writes the log line; s.mu held.
func (s *Server) recordLocked(rec Request, problem string) int {
	rec.Seq = len(s.requests) + 1
	rec.Time = time.Now().UTC()
	s.requests = append(s.requests, rec)
	if problem != "" {
		s.problems = append(s.problems, problem)
		s.log.Warn("unscripted request", "problem", problem)
	}
	if s.logFile != nil {
		line, err := json.Marshal(rec)
		if err == nil {
			line = append(line, '\n')
			_, err = s.logFile.Write(line)
		}
		if err != nil {
			s.log.Error("writing request log", "error", err)
		}
	}
	return rec.Seq
}

func (s *Server) model0() string {
	if s.cfg.Script.Model != "" {
		return s.cfg.Script.Model
	}
	return DefaultModel
}

// modelList is an OpenAI-style model list naming the script's model; the
// Anthropic-only fields are harmless extras for OpenAI clients.
func (s *Server) modelList() map[string]any {
	m := s.model0()
	return map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": m, "object": "model", "created": 0, "owned_by": "modelserver",
			"type": "model", "display_name": m,
		}},
		"has_more": false,
	}
}

// redactedHeaders carry credentials; their values never reach the log.
var redactedHeaders = map[string]bool{"authorization": true, "x-api-key": true, "cookie": true, "proxy-authorization": true}

func redact(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		lk := strings.ToLower(k)
		if redactedHeaders[lk] {
			out[lk] = "[redacted]"
			continue
		}
		out[lk] = strings.Join(vs, ", ")
	}
	return out
}

func asJSON(body []byte) json.RawMessage {
	if len(body) == 0 {
		return nil
	}
	if json.Valid(body) {
		return append(json.RawMessage(nil), body...)
	}
	q, _ := json.Marshal(string(body))
	return q
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers with an error body in the shape protocol p's clients
// parse.
func writeError(w http.ResponseWriter, p Protocol, e HTTPError) {
	switch p {
	case Gemini:
		writeGeminiError(w, e)
	case Anthropic:
		writeJSON(w, e.Status, map[string]any{"type": "error", "error": map[string]string{"type": anthropicErrorType(e.Status), "message": e.Message}})
	default:
		writeJSON(w, e.Status, map[string]any{"error": map[string]any{"message": e.Message, "type": "invalid_request_error", "code": nil}})
	}
}

func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	default:
		return "api_error"
	}
}
