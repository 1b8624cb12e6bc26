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
package main

import (
	"context"
	"fmt"
	"os"
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

func main() {
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), "notesoup-harness-")
	pluginrpc.Serve(plug{name: name, mode: strings.TrimRight(name, "0123456789")})
}
