package mcpserver_test

import (
	"testing"

	"github.com/notesoup/notesoup/internal/testbin"
)

// TestMain removes the notesoup binaries built for these tests.
func TestMain(m *testing.M) { testbin.Main(m) }
