// Command testplugin is an external harness plugin used by the host's tests.
// Its behaviour comes from its own file name, notesoup-harness-<mode><n>, so
// one build serves as a healthy, crashing, hanging, wrong-version, lying or
// garbage-printing plugin — exactly what a third party might ship.
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

type plug struct{ name, mode string }

func (p plug) Describe(context.Context) (contract.Description, error) {
	name := p.name
	if p.mode == "liar" {
		name = "somebody-else"
	}
	return contract.Description{Name: name, PluginVersion: "9.9.9", ContractVersions: []int{contract.Version},
		Capabilities: []string{contract.CapSessions, contract.CapDecode}, DefaultRoots: []string{"/nowhere"}}, nil
}

func (p plug) ListSessions(ctx context.Context, _ contract.SessionFilter, fn func(history.Session) error) error {
	if err := fn(history.Session{Harness: p.name, ID: p.name + "-1", Path: "/nowhere/" + p.name}); err != nil {
		return err
	}
	switch p.mode {
	case "crash":
		os.Exit(3) // dies mid-stream
	case "hang":
		<-ctx.Done()
		time.Sleep(time.Hour) // ignores cancellation, like a wedged plugin
	}
	return nil
}

func (p plug) Decode(_ context.Context, req contract.DecodeRequest, emit history.EmitFunc) (history.Summary, error) {
	for i := int64(1); i <= 3; i++ {
		if err := emit(history.Event{Seq: i, Window: p.name + ":" + req.Session.ID + ":0", Kind: history.KindMessage, Role: history.RoleUser, Text: fmt.Sprint("event ", i)}); err != nil {
			return history.Summary{}, err
		}
	}
	return history.Summary{Windows: []string{p.name + ":" + req.Session.ID + ":0"}, HeadKnown: true}, nil
}

func (p plug) Thresholds(context.Context, reset.ThresholdInput) (reset.NativePoint, error) {
	return reset.NativePoint{Resolved: true, Tokens: 1000, Source: "testplugin"}, nil
}

func (p plug) BootBinding(_ context.Context, id string, ord int) (contract.Binding, error) {
	return contract.Binding{WindowID: fmt.Sprintf("%s:%s:%d", p.name, id, ord), ResetTool: "empty_brain"}, nil
}

func main() {
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), "notesoup-harness-")
	if len(os.Args) == 3 && os.Args[1] == "__harness-plugin" { // started as a built-in
		name = os.Args[2]
	}
	mode := strings.TrimRight(name, "0123456789")
	p := plug{name: name, mode: mode}
	switch mode {
	case "garbage":
		fmt.Println("hello, I am not a plugin")
		os.Exit(0)
	case "v":
		pluginrpc.Serve(p, pluginrpc.WithServeVersions(contract.Version+1))
		return
	case "slowstart":
		time.Sleep(time.Hour)
	}
	pluginrpc.Serve(p)
}
