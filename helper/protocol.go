// Package helper implements notesoup's helper protocol: one JSON request in,
// one JSON response out. It is how hosts that cannot link Go — the Claude
// Code mod's sandboxed hooks module (through $.process.run), the Pi
// extension — reach the same operations as the MCP server and the CLI.
//
// A request names the protocol version, an operation, the caller and the
// operation's arguments. A response is either a result or a structured
// error naming the field at fault. Unknown fields and wrong types are
// refused, never ignored, so a typo in a hook never silently does nothing.
package helper

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/notesoup/notesoup/internal/strictjson"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/notes"
)

// ProtocolVersion is the helper protocol version. A request with another
// version is refused with code unsupported_version, so a mod built for a
// newer notesoup says so instead of misreading answers.
const ProtocolVersion = 1

// MaxRequestBytes bounds a request. The largest legitimate request is a
// notes_write of a whole note (notes caps a note far below this).
const MaxRequestBytes = 8 << 20

// Error codes of the protocol itself; operations add their own (the notes
// codes, for example) so callers can react without parsing messages.
const (
	CodeBadRequest         = "bad_request"         // not JSON, or the envelope is malformed
	CodeUnsupportedVersion = "unsupported_version" // v is not ProtocolVersion
	CodeUnknownOp          = "unknown_op"          // op names no operation
	CodeInvalidArgument    = "invalid_argument"    // args are missing, unknown or of the wrong type
	CodeFailed             = "failed"              // the operation ran and refused or failed
)

// Request is one helper request.
type Request struct {
	V      int             `json:"v"`
	Op     string          `json:"op"`
	Caller service.Caller  `json:"caller"`
	Args   json.RawMessage `json:"args,omitempty"`
}

// Response is one helper response: Result when OK, Error otherwise.
type Response struct {
	V      int    `json:"v"`
	OK     bool   `json:"ok"`
	Result any    `json:"result,omitempty"`
	Error  *Error `json:"error,omitempty"`
}

// Error is a structured refusal.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Field is the JSON path of the input at fault ("args.name"), when one is.
	Field string `json:"field,omitempty"`
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Field)
	}
	return e.Code + ": " + e.Message
}

func argErr(field, format string, a ...any) *Error {
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf(format, a...), Field: field}
}

// handler runs one operation on decoded input.
type handler func(ctx context.Context, s *service.Service, c service.Caller, args json.RawMessage) (any, error)

// op is one operation of the protocol.
type op struct {
	summary string
	run     handler
}

var ops = map[string]op{}

func register(name, summary string, run handler) { ops[name] = op{summary: summary, run: run} }

// Ops lists the operation names, sorted.
func Ops() []string {
	out := make([]string, 0, len(ops))
	for n := range ops {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Serve reads one request from r, runs it and writes one response to w. It
// returns an error only when it could not write the response; every failure
// of the request itself is an answered error.
func Serve(ctx context.Context, s *service.Service, r io.Reader, w io.Writer) error {
	resp := Handle(ctx, s, r)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(resp)
}

// Main is a helper process's whole life: check that it was given no
// arguments, build the service (open returns it and what closes it), answer
// the one request on stdin, and return the exit status (0 when an answer, a
// result or a structured error, was written). name is the command as the
// person typed it, for the messages.
func Main(ctx context.Context, name string, open func() (*service.Service, func(), error), args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 0 {
		fmt.Fprintf(stderr, "%s: takes no arguments; write one JSON request to stdin (docs/helper-protocol.md)\n", name)
		return 2
	}
	s, closeFn, err := open()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	defer closeFn()
	if err := Serve(ctx, s, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "%s: writing the response: %v\n", name, err)
		return 1
	}
	return 0
}

// Handle reads and answers one request: the JSON value on the first
// non-blank line(s) of r, answered as soon as the line it ends on is
// complete (at its newline, or at EOF), so a client that writes one request
// and waits for the answer before closing stdin gets it. Nothing after that
// line is read.
func Handle(ctx context.Context, s *service.Service, r io.Reader) Response {
	data, e := readRequest(r)
	if e != nil {
		return fail(e)
	}
	var req Request
	if err := strictDecode(data, &req); err != nil {
		return fail(decodeErr("", err))
	}
	if req.V != ProtocolVersion {
		return fail(&Error{Code: CodeUnsupportedVersion, Field: "v",
			Message: fmt.Sprintf("protocol version %d is not spoken here; this notesoup speaks %d", req.V, ProtocolVersion)})
	}
	o, ok := ops[req.Op]
	if !ok {
		return fail(&Error{Code: CodeUnknownOp, Field: "op",
			Message: fmt.Sprintf("unknown operation %q; operations: %s", req.Op, strings.Join(Ops(), ", "))})
	}
	if len(bytes.TrimSpace(req.Args)) == 0 {
		req.Args = json.RawMessage("{}")
	}
	res, err := o.run(ctx, s, req.Caller, req.Args)
	if err != nil {
		return fail(toError(err))
	}
	return Response{V: ProtocolVersion, OK: true, Result: res}
}

// errTooLarge ends the reading of a request longer than MaxRequestBytes.
var errTooLarge = fmt.Errorf("request is larger than %d bytes", MaxRequestBytes)

// readRequest returns the bytes of the first JSON value in r and checks that
// nothing but whitespace follows it on its line. It reads through a
// lineReader, so it never waits for bytes past that line.
func readRequest(r io.Reader) ([]byte, *Error) {
	lr := &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
	dec := json.NewDecoder(lr)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		switch {
		case errors.Is(err, errTooLarge):
			return nil, &Error{Code: CodeBadRequest, Message: errTooLarge.Error()}
		case errors.Is(err, io.EOF):
			return nil, &Error{Code: CodeBadRequest, Message: "no request: stdin ended before a JSON request; write one JSON object and a newline"}
		}
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &Error{Code: CodeBadRequest, Message: "not valid JSON: " + err.Error()}
		}
		return nil, &Error{Code: CodeBadRequest, Message: "reading the request: " + err.Error()}
	}
	// The rest of the value's line: what the decoder holds, then (when the
	// line goes on past it) the line reader up to the newline.
	rest, _ := io.ReadAll(dec.Buffered())
	for !bytes.Contains(rest, []byte("\n")) {
		var chunk [4096]byte
		n, err := lr.Read(chunk[:])
		rest = append(rest, chunk[:n]...)
		if err != nil || len(rest) > MaxRequestBytes {
			break
		}
	}
	if line, _, _ := bytes.Cut(rest, []byte("\n")); len(bytes.TrimSpace(line)) > 0 {
		return nil, &Error{Code: CodeBadRequest, Message: "trailing data after the JSON request on its line; send one request per process"}
	}
	return raw, nil
}

// lineReader hands out at most one line per Read, and stops the request at
// MaxRequestBytes: json.Decoder reads ahead in chunks, and must not ask for
// the bytes after the request's line, which a waiting client never sends.
type lineReader struct {
	br *bufio.Reader
	n  int
}

// Read implements io.Reader.
func (l *lineReader) Read(p []byte) (int, error) {
	if l.n >= MaxRequestBytes {
		return 0, errTooLarge
	}
	if len(p) > MaxRequestBytes-l.n {
		p = p[:MaxRequestBytes-l.n]
	}
	if l.br.Buffered() == 0 {
		if _, err := l.br.Peek(1); err != nil {
			return 0, err
		}
	}
	buf, _ := l.br.Peek(l.br.Buffered())
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i+1]
	}
	n := copy(p, buf)
	_, _ = l.br.Discard(n)
	l.n += n
	return n, nil
}

func fail(e *Error) Response { return Response{V: ProtocolVersion, Error: e} }

// toError classifies an operation's error.
func toError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if c := notes.CodeOf(err); c != "" {
		code := string(c)
		if c == notes.CodeInvalidName {
			return &Error{Code: code, Message: err.Error(), Field: "args.name"}
		}
		return &Error{Code: code, Message: err.Error()}
	}
	return &Error{Code: CodeFailed, Message: err.Error()}
}

// strictDecode decodes one JSON value strictly (internal/strictjson): no
// unknown, duplicate or wrongly-cased fields, no invalid UTF-8 or lone
// surrogates, nothing after the value.
func strictDecode(data []byte, v any) error { return strictjson.Decode(data, v) }

// decodeErr turns a JSON decoding error into one that names the field under
// prefix ("args." for arguments, "" for the envelope). A refusal inside the
// envelope's args is the arguments' fault: invalid_argument.
func decodeErr(prefix string, err error) *Error {
	code := CodeInvalidArgument
	if prefix == "" {
		code = CodeBadRequest
	}
	named := func(field string) string {
		if prefix == "" && (field == "args" || strings.HasPrefix(field, "args.") || strings.HasPrefix(field, "args[")) {
			code = CodeInvalidArgument
		}
		return prefix + field
	}
	if se, ok := strictjson.Is(err); ok {
		f := named(se.Field)
		return &Error{Code: code, Field: strings.TrimSuffix(f, "."), Message: fmt.Sprintf("%s: %s", orWhole(strings.TrimSuffix(f, ".")), se.Msg)}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := named(te.Field)
		return &Error{Code: code, Field: f, Message: fmt.Sprintf("%s must be %s, not %s", orWhole(f), te.Type, te.Value)}
	}
	return &Error{Code: code, Field: strings.TrimSuffix(prefix, "."), Message: "not valid JSON: " + err.Error()}
}

func orWhole(f string) string {
	if f == "" {
		return "the request"
	}
	return f
}

// decodeArgs decodes an operation's arguments strictly.
func decodeArgs(raw json.RawMessage, v any) error {
	if err := strictDecode(raw, v); err != nil {
		return decodeErr("args.", err)
	}
	return nil
}
