// Command faultplugin is an external harness plugin for the host's fault
// injection tests. Its behaviour comes from its file name,
// notesoup-harness-<mode><n>:
//
//	stall  Decode emits stallEvents events whose text is "pid <its pid>",
//	       then blocks forever, ignoring cancellation — so a test can
//	       SIGKILL it in the middle of a stream, or let the host's
//	       deadline fire.
//	badseq Decode emits events whose seqs go backwards and hold invalid
//	       UTF-8: garbage that still speaks the protocol.
//	forkhang   starts a child (itself, sleeping) that inherits its stdout
//	       and stderr, then hangs before the handshake: the host's start
//	       timeout fires while the child still holds the pipes.
//	forkserve  starts such a child, then serves normally: the child still
//	       holds the pipes when the host closes.
//	forkescape starts such a child in a new session (outside the plugin's
//	       process group, where the host's group kill cannot reach), then
//	       serves normally.
//
// The fork modes write "<plugin pid> <child pid>" to <name>.pids next to
// the executable's path (the test's plugin directory) before they go on,
// so a test can check that both are gone afterwards.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/contract/pluginrpc"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/reset"
)

// stallEvents is how many events a stalling plugin sends before it stops:
// several of the contract's event batches, so the host has received some
// of them (and not all) when the stream stalls.
const stallEvents = 1000

type plug struct{ name, mode string }

func (p plug) Describe(context.Context) (contract.Description, error) {
	return contract.Description{Name: p.name, PluginVersion: "0.0.1", ContractVersions: []int{contract.Version},
		Capabilities: []string{contract.CapSessions, contract.CapDecode}, DefaultRoots: []string{"/nowhere"}}, nil
}

func (p plug) ListSessions(_ context.Context, _ contract.SessionFilter, fn func(history.Session) error) error {
	return fn(history.Session{Harness: p.name, ID: p.name + "-1", Path: "/nowhere/" + p.name})
}

func (p plug) Decode(_ context.Context, req contract.DecodeRequest, emit history.EmitFunc) (history.Summary, error) {
	win := p.name + ":" + req.Session.ID + ":0"
	switch p.mode {
	case "stall":
		for i := int64(1); i <= stallEvents; i++ {
			if err := emit(history.Event{Seq: i, Window: win, Kind: history.KindMessage, Role: history.RoleUser, Text: fmt.Sprint("pid ", os.Getpid())}); err != nil {
				return history.Summary{}, err
			}
		}
		time.Sleep(time.Hour) // wedged mid-stream; ignores cancellation
	case "badseq":
		for _, seq := range []int64{5, 2, 2, -1} {
			if err := emit(history.Event{Seq: seq, Window: win, Kind: history.KindMessage, Role: history.RoleUser, Text: "bad \xff\xfe utf-8"}); err != nil {
				return history.Summary{}, err
			}
		}
	}
	return history.Summary{Windows: []string{win}, HeadKnown: true}, nil
}

func (p plug) Thresholds(context.Context, reset.ThresholdInput) (reset.NativePoint, error) {
	return reset.NativePoint{Resolved: true, Tokens: 1000, Source: "faultplugin"}, nil
}

func (p plug) BootBinding(_ context.Context, id string, ord int) (contract.Binding, error) {
	return contract.Binding{WindowID: fmt.Sprintf("%s:%s:%d", p.name, id, ord), ResetTool: "empty_brain"}, nil
}

// sleepArg starts the fault plugin as the child a fork mode leaves behind.
const sleepArg = "__faultplugin-sleep"

// childLife is how long a left-behind child sleeps: far longer than any
// test's bound, so a test that sees it gone knows it was killed.
const childLife = 10 * time.Minute

func main() {
	if len(os.Args) == 2 && os.Args[1] == sleepArg {
		time.Sleep(childLife)
		return
	}
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), "notesoup-harness-")
	mode := strings.TrimRight(name, "0123456789")
	switch mode {
	case "forkhang", "forkserve", "forkescape":
		if err := leaveChild(name, mode == "forkescape"); err != nil {
			fmt.Fprintln(os.Stderr, "faultplugin:", err)
			os.Exit(1)
		}
		if mode == "forkhang" {
			select {} // never shakes hands
		}
	}
	pluginrpc.Serve(plug{name: name, mode: mode})
}

// leaveChild starts a sleeping copy of this executable that shares this
// process's stdout and stderr (the host's pipes), does not wait for it,
// and records both pids in <name>.pids next to os.Args[0].
func leaveChild(name string, escape bool) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	child := exec.Command(self, sleepArg)
	child.Stdout, child.Stderr = os.Stdout, os.Stderr
	if escape {
		child.SysProcAttr = newSession()
	}
	if err := child.Start(); err != nil {
		return err
	}
	pids := filepath.Join(filepath.Dir(os.Args[0]), name+".pids")
	tmp := pids + ".tmp"
	if err := os.WriteFile(tmp, fmt.Appendf(nil, "%d %d\n", os.Getpid(), child.Process.Pid), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, pids) // whole or absent: the test polls for it
}
