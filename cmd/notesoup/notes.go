package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/notes"
	"github.com/notesoup/notesoup/shared/termsafe"
)

func init() {
	register("notes", "list, read, write, edit and delete notes (list|read|write|edit|delete)", runNotes)
}

// notesTools maps each operation to the notes tool that performs it.
var notesTools = map[string]string{
	"list": notes.ToolList, "read": notes.ToolRead, "write": notes.ToolWrite,
	"edit": notes.ToolEdit, "delete": notes.ToolDelete,
}

// notesStdin is where `notes write` reads the note text from without
// --file; a variable so tests can supply it.
var notesStdin io.Reader = os.Stdin

const notesUsage = `Usage:
  notesoup notes list   [PREFIX]                   names, sizes, last change, first lines
  notesoup notes read   NAME [--from N] [--to N]   a note with line numbers (--raw: without)
  notesoup notes write  NAME [--file F]            create or replace a note (text from F or stdin)
  notesoup notes edit   NAME --old TEXT --new TEXT replace one exact, unique passage
  notesoup notes delete NAME                       delete a note

Names: api/auth.md is a note of the project of --cwd (its git root, else
the folder); ~/style.md is global. Notes live under $NOTESOUP_HOME
(default ~/.notesoup). Common flags: --cwd DIR (default .), --home DIR,
--json (print the result as JSON). A read longer than 32 KiB is cut and
says the --offset B that continues it (--raw reads it all). Empty text
replaces an existing note only with --allow-empty.
`

// parseInterspersed parses flags that may come before, between or after
// positional arguments ("notes read api.md --from 3"), returning the
// positionals. The standard flag package stops at the first positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func runNotes(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, notesUsage)
		return 0
	}
	op, args := args[0], args[1:]
	fs := flag.NewFlagSet("notes "+op, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, notesUsage) }
	cwd := fs.String("cwd", ".", "working directory whose project the notes belong to")
	home := fs.String("home", "", "notes home (default $NOTESOUP_HOME or ~/.notesoup)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	var from, to, offset *int
	var raw *bool
	var file, oldText, newText *string
	var allowEmpty *bool
	switch op {
	case "list", "delete":
	case "read":
		from = fs.Int("from", 0, "first line (1-based)")
		to = fs.Int("to", 0, "last line")
		offset = fs.Int("offset", 0, "continue a cut answer at this byte (the offset it gave)")
		raw = fs.Bool("raw", false, "print the text without line numbers")
	case "write":
		file = fs.String("file", "", "read the note text from this regular file instead of stdin")
		allowEmpty = fs.Bool("allow-empty", false, "let empty text replace an existing note (refused otherwise)")
	case "edit":
		oldText = fs.String("old", "", "exact text to replace (must occur once)")
		newText = fs.String("new", "", "replacement text")
	default:
		fmt.Fprintf(stderr, "notesoup notes: unknown operation %q; use list, read, write, edit or delete\n", op)
		return 2
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	wantPos := 1
	if op == "list" {
		wantPos = len(pos)
		if wantPos > 1 {
			wantPos = 1
		}
	}
	if len(pos) != wantPos {
		fmt.Fprintf(stderr, "notesoup notes %s: expected %s, got %d arguments (%s)\n", op, map[bool]string{true: "at most one PREFIX", false: "one NAME"}[op == "list"], len(pos), strings.Join(pos, " "))
		return 2
	}
	// The request as the notes tools take it, for the service that every
	// front end calls.
	var req any
	switch op {
	case "list":
		r := notes.ListRequest{}
		if len(pos) == 1 {
			r.Prefix = pos[0]
		}
		req = r
	case "read":
		req = notes.ReadRequest{Name: pos[0], From: *from, To: *to, Offset: *offset}
	case "write":
		data, err := readNoteText(*file)
		if err != nil {
			fmt.Fprintln(stderr, "notesoup notes write:", termsafe.Sanitize(err.Error()))
			return 1
		}
		req = notes.WriteRequest{Name: pos[0], Content: string(data), AllowEmpty: *allowEmpty}
	case "edit":
		if !flagSet(fs, "old") || !flagSet(fs, "new") {
			fmt.Fprintln(stderr, "notesoup notes edit: give both --old TEXT and --new TEXT (--new \"\" deletes the text)")
			return 2
		}
		req = notes.EditRequest{Name: pos[0], OldText: *oldText, NewText: *newText}
	case "delete":
		req = notes.DeleteRequest{Name: pos[0]}
	}
	reqJSON, err := json.Marshal(req)
	if err != nil {
		fmt.Fprintln(stderr, "notesoup notes:", err)
		return 1
	}
	var opts []service.Option
	if *home != "" {
		opts = append(opts, service.WithHome(*home))
	}
	svc, done, err := newService(opts...)
	if err != nil {
		fmt.Fprintln(stderr, "notesoup notes:", err)
		return 1
	}
	defer done()
	res, err := svc.Notes(context.Background(), service.Caller{Cwd: *cwd}, notesTools[op], reqJSON)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup notes %s: %s\n", op, termsafe.Sanitize(err.Error()))
		return 1
	}
	if r, ok := res.(notes.ReadResult); ok && *raw && !*asJSON {
		// --raw is the exact text, for a pipe or a file, so it follows
		// the pages to the end (a note is at most notes.MaxNoteBytes); a
		// terminal gets it made inert like every other answer.
		var text strings.Builder
		text.WriteString(r.Content)
		for r.NextOffset != 0 {
			next, _ := json.Marshal(notes.ReadRequest{Name: pos[0], To: *to, Offset: r.NextOffset})
			res, err := svc.Notes(context.Background(), service.Caller{Cwd: *cwd}, notes.ToolRead, next)
			if err != nil {
				fmt.Fprintf(stderr, "notesoup notes %s: %s\n", op, termsafe.Sanitize(err.Error()))
				return 1
			}
			r = res.(notes.ReadResult)
			text.WriteString(r.Content)
		}
		out := text.String()
		if isTerminal(stdout) {
			out = termsafe.Sanitize(out)
		}
		io.WriteString(stdout, out)
		return 0
	}
	if *asJSON {
		if err := writeJSON(stdout, res); err != nil {
			fmt.Fprintln(stderr, "notesoup notes:", err)
			return 1
		}
		return 0
	}
	io.WriteString(stdout, termsafe.Sanitize(res.Render()))
	return 0
}

// writeJSON prints v as indented JSON with every control, line separator
// and bidi override in a string written as its \uXXXX escape
// (termsafe.JSON): a decoder gets the exact text, a terminal nothing it
// would act on.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(termsafe.JSON(b), '\n'))
	return err
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// readNoteText reads the text of `notes write`: from file when given, else
// stdin. It never reads more than one byte past notes.MaxNoteBytes, so
// endless input (a pipe from yes, --file /dev/zero) is refused at once
// instead of filling memory; file must be a regular file (a FIFO is
// refused without waiting for a writer).
func readNoteText(file string) ([]byte, error) {
	const limit = notes.MaxNoteBytes
	if file != "" {
		data, size, _, err := rawread.Read(file, limit+1)
		if err != nil {
			return nil, fmt.Errorf("reading the note text: %w; --file takes a regular file", err)
		}
		if size > limit || len(data) > limit {
			return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit per note; split it into several notes", file, max(size, int64(len(data))), limit)
		}
		return data, nil
	}
	data, err := io.ReadAll(io.LimitReader(notesStdin, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the note text from stdin: %w", err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("the note text on stdin is over the %d-byte limit per note (reading stopped there); split it into several notes", limit)
	}
	return data, nil
}

// flagSet reports whether the flag was given on the command line, so an
// explicitly empty value (--new "") differs from a missing one.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}
