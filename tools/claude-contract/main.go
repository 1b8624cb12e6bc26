// Command claude-contract extracts the Claude Code mod API's TypeScript
// declarations, and the long-form reference of function hooks, from a
// Claude Code native binary. The mods typecheck against what it writes, so
// they are checked against the very build the project pins rather than
// against a copy that could drift from it; nothing it writes is committed.
//
// Usage:
//
//	claude-contract -bin PATH -out DIR [-version V]
//
// It writes, under DIR:
//
//	claude-code/index.d.ts         the mod API ("// Claude Code function hooks")
//	claude-code-tools/index.d.ts   the built-in tools' inputs ("// The inputs of the built-in tools")
//	function-hooks-reference.md    the reference ("# Function hooks: the long form")
//
// and prints each path written on stdout. With -version V the .ts files get
// a first line "// Extracted from Claude Code V." so a reader of the
// declarations knows which build they describe. Exit status: 0 when all
// three were written, 1 on failure (nothing is written unless all three
// were found), 2 on a usage error.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usage is the synopsis printed with every usage error.
const usage = "usage: claude-contract -bin PATH -out DIR [-version V]"

// usageError is an error in the command line, which exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// run is the command without the process around it, so tests can call it.
func run(args []string, stdout, stderr io.Writer) int {
	err := runErr(args, stdout, stderr)
	var uerr *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 2
	case errors.As(err, &uerr):
		fmt.Fprintf(stderr, "claude-contract: %v\n%s\n", err, usage)
		return 2
	default:
		fmt.Fprintf(stderr, "claude-contract: %v\n", err)
		return 1
	}
}

func runErr(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("claude-contract", flag.ContinueOnError)
	// Parse errors are reported once, by run, in its own words.
	fs.SetOutput(io.Discard)
	bin := fs.String("bin", "", "the Claude Code native `binary` to read (e2e/install.sh installs the pinned one)")
	out := fs.String("out", "", "the `directory` to write the contract under (created if missing)")
	version := fs.String("version", "", "the Claude Code `version` -bin is, named in the first line of each .ts file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, usage)
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return err
		}
		return &usageError{err.Error()}
	}
	switch {
	case fs.NArg() > 0:
		return &usageError{fmt.Sprintf("unexpected argument %q; every input is a flag", fs.Arg(0))}
	case *bin == "":
		return &usageError{"-bin is required: the Claude Code native binary to extract the contract from"}
	case *out == "":
		return &usageError{"-out is required: the directory to write the contract under"}
	case strings.ContainsAny(*version, "\r\n"):
		// The version goes into a // comment; a line break would end it.
		return &usageError{fmt.Sprintf("-version %q holds a line break; pass the bare version, such as 2.1.332", *version)}
	}

	data, err := readBinary(*bin)
	if err != nil {
		return err
	}
	texts, err := extract(data)
	if err != nil {
		return fmt.Errorf("%s: %w", *bin, err)
	}
	written, err := write(*out, *version, texts)
	for _, p := range written {
		fmt.Fprintln(stdout, p)
	}
	return err
}

// maxBinary bounds what is read into memory: a Claude Code native binary is
// a few hundred MB, so anything beyond 1 GiB is the wrong file.
const maxBinary = 1 << 30

// readBinary reads the whole of path, which must be a regular file of at
// most maxBinary bytes. It checks before opening, so that a FIFO or a device
// passed by mistake is refused rather than read (or waited on) forever.
func readBinary(path string) ([]byte, error) {
	const fix = "pass the Claude Code native binary itself (e2e/install.sh installs the pinned one under .tools/npm)"
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read -bin: %w; %s", err, fix)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("-bin %s is not a regular file (mode %s); %s", path, st.Mode(), fix)
	}
	if st.Size() > maxBinary {
		return nil, fmt.Errorf("-bin %s is %d bytes, more than the %d a Claude Code binary can be; %s", path, st.Size(), maxBinary, fix)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read -bin: %w; %s", err, fix)
	}
	defer f.Close()
	// Room for the whole file up front (io.ReadAll would double its buffer
	// as it goes, holding twice the binary at the end), read through a
	// limit too: the file may have grown since the stat.
	var buf bytes.Buffer
	buf.Grow(int(st.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, maxBinary+1)); err != nil {
		return nil, fmt.Errorf("cannot read -bin %s: %w", path, err)
	}
	data := buf.Bytes()
	if len(data) > maxBinary {
		return nil, fmt.Errorf("-bin %s grew past %d bytes while being read; %s", path, maxBinary, fix)
	}
	return data, nil
}

// write puts each part under dir, each file whole or not at all (a
// temporary file renamed into place, so an interrupted run leaves no
// half-written declarations behind for make to take as current). It returns
// the paths written.
func write(dir, version string, texts [][]byte) ([]string, error) {
	var written []string
	for i, p := range parts {
		path := filepath.Join(dir, filepath.FromSlash(p.path))
		body := texts[i]
		if version != "" && strings.HasSuffix(p.path, ".ts") {
			body = append([]byte("// Extracted from Claude Code "+version+".\n"), body...)
		}
		if err := writeFile(path, body); err != nil {
			return written, fmt.Errorf("cannot write the contract under -out %s: %w", dir, err)
		}
		written = append(written, path)
	}
	return written, nil
}

func writeFile(path string, body []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
