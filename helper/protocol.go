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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"

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

// Handle reads and answers one request.
func Handle(ctx context.Context, s *service.Service, r io.Reader) Response {
	data, err := io.ReadAll(io.LimitReader(r, MaxRequestBytes+1))
	if err != nil {
		return fail(&Error{Code: CodeBadRequest, Message: "reading the request: " + err.Error()})
	}
	if len(data) > MaxRequestBytes {
		return fail(&Error{Code: CodeBadRequest, Message: fmt.Sprintf("request is larger than %d bytes", MaxRequestBytes)})
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

// strictDecode decodes one JSON value, refusing unknown fields and trailing data.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// unknownField reads the field name out of encoding/json's error; compiled
// on first use, since most requests decode cleanly and a helper process
// starts for every request.
var unknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`json: unknown field "(.*?)"`) })

// decodeErr turns a JSON decoding error into one that names the field under
// prefix ("args." for arguments, "" for the envelope).
func decodeErr(prefix string, err error) *Error {
	code := CodeInvalidArgument
	if prefix == "" {
		code = CodeBadRequest
	}
	if m := unknownField().FindStringSubmatch(err.Error()); m != nil {
		return &Error{Code: code, Field: prefix + m[1], Message: fmt.Sprintf("unknown field %q", m[1])}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		return &Error{Code: code, Field: prefix + field, Message: fmt.Sprintf("%s must be %s, not %s", orWhole(prefix+field), te.Type, te.Value)}
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
