package notes

import (
	"errors"
	"fmt"
)

// Code classifies a refusal so callers (the helper protocol, the MCP server,
// the CLI) can react without parsing the message.
type Code string

// Refusal codes. Each refusal message also says what was wrong and how to fix
// it, because the model reads the message, not the code.
const (
	CodeInvalidName    Code = "invalid_name"    // the note name breaks a name rule
	CodeInvalidRequest Code = "invalid_request" // another argument is missing or malformed
	CodeNotFound       Code = "not_found"       // no note by that name
	CodeTooLarge       Code = "too_large"       // the note would exceed MaxNoteBytes
	CodeScopeFull      Code = "scope_full"      // the scope would exceed MaxScopeBytes or MaxScopeNotes
	CodeNoMatch        Code = "no_match"        // notes_edit: old_text occurs nowhere
	CodeAmbiguous      Code = "ambiguous_match" // notes_edit: old_text occurs more than once
	CodeIO             Code = "io_error"        // the filesystem failed
)

// Error is a refusal or failure of a notes operation.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// Err is the underlying cause, if any (filesystem errors).
	Err error `json:"-"`
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

func refuse(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func ioErr(what string, err error) *Error {
	return &Error{Code: CodeIO, Message: fmt.Sprintf("%s: %v", what, err), Err: err}
}

// CodeOf returns the Code of err, or "" when err is not a notes *Error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
