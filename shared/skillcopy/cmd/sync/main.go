// Command sync writes the plugin copies of the canonical skills and
// playbook (see package skillcopy), or with -check only verifies them.
//
//	go run ./shared/skillcopy/cmd/sync          # write copies where plugin folders exist
//	go run ./shared/skillcopy/cmd/sync -create  # also create missing copy folders
//	go run ./shared/skillcopy/cmd/sync -check   # exit 1 if any copy drifted
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/notesoup/notesoup/shared/skillcopy"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "repository root (default: the folder holding go.mod, found from the working directory)")
	check := fs.Bool("check", false, "only check that every copy matches; exit 1 on drift")
	create := fs.Bool("create", false, "create copy folders whose plugin folder does not exist yet")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *root == "" {
		r, err := skillcopy.FindRoot(".")
		if err != nil {
			fmt.Fprintln(stderr, "sync:", err)
			return 2
		}
		*root = r
	}
	if *check {
		if err := skillcopy.Check(*root, skillcopy.Mirrors); err != nil {
			fmt.Fprintln(stderr, "sync:", err)
			return 1
		}
		fmt.Fprintln(stdout, "skill and playbook copies match the canonical files")
		return 0
	}
	changed, err := skillcopy.Sync(*root, skillcopy.Mirrors, *create)
	for _, c := range changed {
		fmt.Fprintln(stdout, "updated", c)
	}
	if err != nil {
		fmt.Fprintln(stderr, "sync:", err)
		return 1
	}
	if len(changed) == 0 {
		fmt.Fprintln(stdout, "copies already up to date")
	}
	return 0
}
