package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Gemini is the Gemini API's generateContent / streamGenerateContent
// (POST /v1beta/models/<model>:<method>), used by the Gemini CLI when
// GOOGLE_GEMINI_BASE_URL points at the server.
const Gemini Protocol = "gemini"

// geminiMethod splits a Gemini API path, /<version>/models/<model>:<method>,
// into the model and whether the method streams; ok is false for any other
// path (countTokens, embedContent and the rest are not model turns).
func geminiMethod(path string) (model string, stream, ok bool) {
	model, method, ok := geminiPath(path)
	if !ok {
		return "", false, false
	}
	switch method {
	case "generateContent":
		return model, false, true
	case "streamGenerateContent":
		return model, true, true
	}
	return "", false, false
}

// geminiPath splits /<version>/models/<model>:<method> (version v1beta or
// v1); ok is false for any other path.
func geminiPath(path string) (model, method string, ok bool) {
	rest, found := strings.CutPrefix(path, "/v1beta/models/")
	if !found {
		rest, found = strings.CutPrefix(path, "/v1/models/")
	}
	if !found {
		return "", "", false
	}
	model, method, found = strings.Cut(rest, ":")
	if !found || model == "" || method == "" || strings.Contains(model, "/") {
		return "", "", false
	}
	return model, method, true
}

// geminiPart is one part of a Gemini content: text (thought marks thinking),
// a function call the model made or a function response the client sent.
type geminiPart struct {
	Text         string `json:"text"`
	Thought      bool   `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiContent is one turn of a request's contents.
type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

// geminiRequest is the part of a GenerateContentRequest the server reads.
type geminiRequest struct {
	Contents          []geminiContent `json:"contents"`
	SystemInstruction *geminiContent  `json:"systemInstruction"`
}

// partsText joins the non-thought text parts of a content.
func partsText(parts []geminiPart) string {
	var texts []string
	for _, p := range parts {
		if p.Text != "" && !p.Thought {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// parseGemini reads a GenerateContentRequest. The model and streaming are
// in the path, not the body; a tool result is a user content holding a
// functionResponse part. The CLI sends its session context as a user
// content of its own before the prompt, so the last user text is looked
// for from the end.
func parseGemini(path string) func([]byte, http.Header) (*view, error) {
	return func(body []byte, h http.Header) (*view, error) {
		var req geminiRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, err
		}
		model, stream, _ := geminiMethod(path)
		v := &view{protocol: Gemini, body: body, header: h, model: model, stream: stream}
		if req.SystemInstruction != nil {
			v.system = partsText(req.SystemInstruction.Parts)
		}
		if n := len(req.Contents); n > 0 {
			for _, p := range req.Contents[n-1].Parts {
				if p.FunctionResponse != nil {
					v.lastIsToolResult = true
				}
			}
		}
		for i := len(req.Contents) - 1; i >= 0; i-- {
			c := req.Contents[i]
			if c.Role != "user" && c.Role != "" {
				continue
			}
			if t := partsText(c.Parts); t != "" {
				v.lastUserText = t
				break
			}
		}
		return v, nil
	}
}

// geminiUsage is the usageMetadata object: promptTokenCount includes the
// cached tokens, as the API reports them.
func geminiUsage(u Usage) map[string]any {
	return map[string]any{
		"promptTokenCount":        u.InputTokens + u.CacheReadTokens,
		"candidatesTokenCount":    u.OutputTokens,
		"totalTokenCount":         u.InputTokens + u.CacheReadTokens + u.OutputTokens,
		"cachedContentTokenCount": u.CacheReadTokens,
	}
}

// geminiCall is one functionCall part. The real API sends no call id (the
// CLI makes its own), so one is sent only when the script names it.
func geminiCall(out response, i int) map[string]any {
	tc := out.reply.ToolCalls[i]
	var args map[string]any
	_ = json.Unmarshal([]byte(out.input(i)), &args)
	if args == nil {
		args = map[string]any{}
	}
	call := map[string]any{"name": tc.Name, "args": args}
	if tc.ID != "" {
		call["id"] = tc.ID
	}
	return map[string]any{"functionCall": call}
}

// writeGemini answers a generateContent request with one
// GenerateContentResponse, or a streamGenerateContent request (the CLI asks
// for alt=sse) with data-only events: thought pieces, text pieces, the
// function calls whole (the API never splits a call), then a last chunk
// carrying finishReason and usageMetadata.
func writeGemini(w http.ResponseWriter, out response, stream bool) error {
	r := out.reply
	id := fmt.Sprintf("resp_fake_%04d", out.seq)
	chunk := func(parts []any, final bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		c := map[string]any{"candidates": []any{cand}, "modelVersion": out.model, "responseId": id}
		if final {
			cand["finishReason"] = "STOP"
			c["usageMetadata"] = geminiUsage(out.usage)
		}
		return c
	}
	if !stream {
		var parts []any
		if r.Thinking != "" {
			parts = append(parts, map[string]any{"text": r.Thinking, "thought": true})
		}
		if r.Text != "" {
			parts = append(parts, map[string]any{"text": r.Text})
		}
		for i := range r.ToolCalls {
			parts = append(parts, geminiCall(out, i))
		}
		writeJSON(w, http.StatusOK, chunk(parts, true))
		return nil
	}
	s := newSSE(w)
	var pending []any // the last chunk's parts, sent with the finish
	flush := func() {
		if pending != nil {
			s.event("", chunk(pending, false))
		}
	}
	for _, c := range chunks(r.Thinking) {
		flush()
		pending = []any{map[string]any{"text": c, "thought": true}}
	}
	for _, c := range chunks(r.Text) {
		flush()
		pending = []any{map[string]any{"text": c}}
	}
	for i := range r.ToolCalls {
		flush()
		pending = []any{geminiCall(out, i)}
	}
	if pending == nil {
		pending = []any{}
	}
	s.event("", chunk(pending, true))
	return s.err
}

// geminiStatus is the API's status name for an HTTP error status, which
// the CLI's error classification reads beside the code.
func geminiStatus(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 503:
		return "UNAVAILABLE"
	default:
		return "INTERNAL"
	}
}

// writeGeminiError answers with the Google API error body.
func writeGeminiError(w http.ResponseWriter, e HTTPError) {
	writeJSON(w, e.Status, map[string]any{"error": map[string]any{"code": e.Status, "message": e.Message, "status": geminiStatus(e.Status)}})
}

// geminiMessages is Request.Messages for a Gemini request: the system
// instruction, then each content's text, each functionCall as "call NAME
// ARGS" and each functionResponse as a tool message of its response JSON.
func geminiMessages(body []byte) ([]Message, error) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("modelserver: gemini body: %w", err)
	}
	var out []Message
	if req.SystemInstruction != nil {
		if t := partsText(req.SystemInstruction.Parts); t != "" {
			out = append(out, Message{Role: "system", Text: t})
		}
	}
	for _, c := range req.Contents {
		role := c.Role
		if role == "model" {
			role = "assistant"
		}
		if t := partsText(c.Parts); t != "" {
			out = append(out, Message{Role: role, Text: t})
		}
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				out = append(out, Message{Role: "assistant", Text: "call " + p.FunctionCall.Name + " " + string(p.FunctionCall.Args)})
			case p.FunctionResponse != nil:
				out = append(out, Message{Role: "tool", Text: string(p.FunctionResponse.Response)})
			}
		}
	}
	return out, nil
}

// isGemini reports whether path is a Gemini API model method,
// /<version>/models/<model>:<method>, answered by Server.gemini.
func isGemini(path string) bool {
	_, method, ok := geminiPath(path)
	return ok && method != ""
}

// gemini answers a Gemini API request: generateContent and
// streamGenerateContent are model turns; countTokens (the CLI counts a
// compressed history) is answered with the same 4-bytes-a-token estimate
// as Claude Code's count_tokens.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request, body []byte, rec Request, path string) {
	if _, method, _ := geminiPath(path); method == "countTokens" {
		rec.Answer = "aux"
		s.record(rec, "")
		writeJSON(w, http.StatusOK, map[string]int{"totalTokens": len(body)/4 + 1})
		return
	}
	if _, _, ok := geminiMethod(path); !ok {
		rec.Answer = "error: unknown endpoint"
		s.record(rec, fmt.Sprintf("request %s %s: no such Gemini method", r.Method, r.URL.Path))
		writeGeminiError(w, HTTPError{Status: http.StatusNotFound, Message: "modelserver: no Gemini method " + r.URL.Path})
		return
	}
	s.model(w, r, body, rec, Gemini, parseGemini(path))
}
