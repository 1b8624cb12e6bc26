package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoHeavyPackages keeps notesoup-helper fast to start: it exists
// because these packages' initialisation costs more than a helper answer,
// and one import anywhere in its dependencies would link them all again.
func TestLinksNoHeavyPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	// Each entry and every package under it, except that host/plugindir
	// (light on purpose) may be linked while host itself may not.
	heavy := []string{
		"google.golang.org/grpc",
		"google.golang.org/protobuf",
		"github.com/hashicorp/go-plugin",
		"github.com/hashicorp/go-hclog",
		"github.com/modelcontextprotocol/go-sdk",
		"golang.org/x/net/http2",
		"github.com/notesoup/notesoup/host",
		"github.com/notesoup/notesoup/contract/pluginrpc",
		"github.com/notesoup/notesoup/mcpserver",
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list -deps listed only %d packages", len(deps))
	}
	for _, d := range deps {
		for _, h := range heavy {
			if d == h || strings.HasPrefix(d, h+"/") && d != "github.com/notesoup/notesoup/host/plugindir" {
				t.Errorf("notesoup-helper links %s; keep it out of the helper's imports (see the package comment)", d)
			}
		}
	}
}
