package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/notes"
	"github.com/notesoup/notesoup/shared/termsafe"
	"github.com/spf13/pflag"
)

func init() {
	sub := func(op, summary, usage, about string) *command {
		return &command{name: op, summary: summary, usage: "notes " + op + " " + usage, about: about,
			flags: func(fs *pflag.FlagSet) { new(notesOpts).define(fs, op) },
			run:   func(args []string, stdout, stderr io.Writer) int { return runNotesOp(op, args, stdout, stderr) }}
	}
	registerCommand(&command{
		name:    "notes",
		summary: "list, read, write, edit and delete notes",
		about:   notesAbout,
		subs: []*command{
			sub("list", "names, sizes, last change and first lines of the notes", "[PREFIX] [flags]", ""),
			sub("read", "a note with line numbers (--raw: without)", "NAME [--from N] [--to N] [flags]",
				"A read longer than 32 KiB is cut and says the --offset B that continues it\n(--raw reads it all).\n"),
			sub("write", "create or replace a note (text from --file or stdin)", "NAME [--file FILE] [flags]",
				"Empty text replaces an existing note only with --allow-empty.\n"),
			sub("edit", "replace one exact, unique passage of a note", "NAME --old TEXT --new TEXT [flags]", ""),
			sub("delete", "delete a note", "NAME [flags]", ""),
		},
	})
}

const notesAbout = `Names: api/auth.md is a note of the project of --cwd (its git root, else
the folder); ~/style.md is global. Notes live under the notesoup home
(--home, default $NOTESOUP_HOME or ~/.notesoup).

Exit status: 0 done, 2 on a refusal (no such note, a passage that does not
match once) or another error.
`

// notesTools maps each operation to the notes tool that performs it.
var notesTools = map[string]string{
	"list": notes.ToolList, "read": notes.ToolRead, "write": notes.ToolWrite,
	"edit": notes.ToolEdit, "delete": notes.ToolDelete,
}

// notesStdin is where `notes write` reads the note text from without
// --file; a variable so tests can supply it.
var notesStdin io.Reader = os.Stdin

// notesOpts are the flags of the notes operations; each operation defines
// the common ones and its own.
type notesOpts struct {
	cwd, file, oldText, newText string
	json, raw, allowEmpty       bool
	from, to, offset            int
}

func (o *notesOpts) define(fs *pflag.FlagSet, op string) {
	fs.StringVar(&o.cwd, "cwd", ".", "the working `DIR` whose project the notes belong to")
	homeFlag(fs)
	fs.BoolVar(&o.json, "json", false, "print the result as JSON")
	switch op {
	case "read":
		fs.IntVar(&o.from, "from", 0, "first line `N` (1-based)")
		fs.IntVar(&o.to, "to", 0, "last line `N`")
		fs.IntVar(&o.offset, "offset", 0, "continue a cut answer at byte `B` (the offset it gave)")
		fs.BoolVar(&o.raw, "raw", false, "print the text without line numbers")
	case "write":
		fs.StringVar(&o.file, "file", "", "read the note text from this regular `FILE` instead of stdin")
		fs.BoolVar(&o.allowEmpty, "allow-empty", false, "let empty text replace an existing note (refused otherwise)")
	case "edit":
		fs.StringVar(&o.oldText, "old", "", "the exact `TEXT` to replace (must occur once)")
		fs.StringVar(&o.newText, "new", "", "the replacement `TEXT` (\"\" deletes the passage)")
	}
}

func runNotesOp(op string, args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["notes"].sub(op), args, stdout, stderr)
	var o notesOpts
	fs := newFlags("notes " + op)
	o.define(fs, op)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	switch {
	case op == "list" && len(pos) > 1:
		return inv.usageErr("expected at most one PREFIX, got %d arguments (%s)", len(pos), strings.Join(pos, " "))
	case op != "list" && len(pos) != 1:
		return inv.usageErr("expected one NAME, got %d arguments (%s)", len(pos), strings.Join(pos, " "))
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
		req = notes.ReadRequest{Name: pos[0], From: o.from, To: o.to, Offset: o.offset}
	case "write":
		data, err := readNoteText(o.file)
		if err != nil {
			return inv.fail(err)
		}
		req = notes.WriteRequest{Name: pos[0], Content: string(data), AllowEmpty: o.allowEmpty}
	case "edit":
		if !fs.Changed("old") || !fs.Changed("new") {
			return inv.usageErr("give both --old TEXT and --new TEXT (--new \"\" deletes the text)")
		}
		req = notes.EditRequest{Name: pos[0], OldText: o.oldText, NewText: o.newText}
	case "delete":
		req = notes.DeleteRequest{Name: pos[0]}
	}
	reqJSON, err := json.Marshal(req)
	if err != nil {
		return inv.fail(err)
	}
	svc, done, err := newService()
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	res, err := svc.Notes(context.Background(), service.Caller{Cwd: o.cwd}, notesTools[op], reqJSON)
	if err != nil {
		return inv.fail(err)
	}
	if r, ok := res.(notes.ReadResult); ok && o.raw && !o.json {
		// --raw is the exact text, for a pipe or a file, so it follows
		// the pages to the end (a note is at most notes.MaxNoteBytes); a
		// terminal gets it made inert like every other answer.
		var text strings.Builder
		text.WriteString(r.Content)
		for r.NextOffset != 0 {
			next, _ := json.Marshal(notes.ReadRequest{Name: pos[0], To: o.to, Offset: r.NextOffset})
			res, err := svc.Notes(context.Background(), service.Caller{Cwd: o.cwd}, notes.ToolRead, next)
			if err != nil {
				return inv.fail(err)
			}
			r = res.(notes.ReadResult)
			text.WriteString(r.Content)
		}
		out := text.String()
		if isTerminal(stdout) {
			out = termsafe.Sanitize(out)
		}
		io.WriteString(stdout, out)
		return exitOK
	}
	if o.json {
		return inv.jsonOut(res)
	}
	if l, ok := res.(notes.ListResult); ok {
		printNotesList(stdout, l)
		return exitOK
	}
	io.WriteString(stdout, termsafe.Sanitize(notesRender(res)))
	return exitOK
}

// notesRender is a notes answer in the CLI's words. A read's lines are the
// note's own text and stay as written; only its last line, when it says how
// to continue a cut answer, is the tool's and is reworded.
func notesRender(res notes.Result) string {
	out := res.Render()
	if r, ok := res.(notes.ReadResult); ok {
		if r.NextOffset == 0 {
			return out
		}
		body, last, _ := strings.Cut(strings.TrimSuffix(out, "\n"), "\n[answer cut")
		return body + "\n" + cliWords("[answer cut"+last) + "\n"
	}
	return cliWords(out)
}

// printNotesList prints the notes as a table, times in the local zone.
func printNotesList(w io.Writer, l notes.ListResult) {
	if len(l.Notes) == 0 {
		fmt.Fprintln(w, "No notes.")
		return
	}
	rows := make([][]string, 0, len(l.Notes))
	for _, n := range l.Notes {
		rows = append(rows, []string{n.Name, histSize(n.Size), histStamp(n.Modified), n.FirstLine})
	}
	writeTable(w, []string{"NAME", "SIZE", "MODIFIED", "FIRST LINE"}, rows)
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
