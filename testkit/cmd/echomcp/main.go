// Command echomcp is a tiny MCP server over stdio with one tool, echo, for
// recording real agent sessions that contain MCP tool calls (e2e/record.sh
// wires it into Codex). It is deterministic: echo returns
// "ECHO: <text in upper case>".
//
//	echomcp [-structured] [-log FILE]
//
// -structured also returns structuredContent {"echoed": …}, which Codex
// then shows the model instead of the text content. -log appends one line
// per call (text and the caller's _meta) so a test can correlate calls with
// transcripts. The tool is annotated read-only, so agents that refuse
// unapproved tool calls in headless mode (codex exec) still run it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverName is what the server calls itself in initialize.
const serverName = "echomcp"

// instructions become the tool namespace description Codex shows the model.
const instructions = "Test server with one tool, echo, that repeats its text in upper case."

// echoInput is the echo tool's argument object.
type echoInput struct {
	Text string `json:"text" jsonschema:"the text to echo back"`
}

// echoOutput is the structured result when -structured is set.
type echoOutput struct {
	Echoed string `json:"echoed"`
}

func main() {
	structured := flag.Bool("structured", false, "also return structuredContent {echoed}")
	logPath := flag.String("log", "", "append one JSON line per call to this file")
	flag.Parse()
	if err := newServer(*structured, *logPath).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "echomcp:", err)
		os.Exit(1)
	}
}

// newServer builds the MCP server with its echo tool. logPath, when set,
// receives one JSON line per call.
func newServer(structured bool, logPath string) *mcp.Server {
	var logMu sync.Mutex
	logCall := func(text string, meta map[string]any) {
		if logPath == "" {
			return
		}
		line, _ := json.Marshal(map[string]any{"tool": "echo", "text": text, "meta": meta})
		logMu.Lock()
		defer logMu.Unlock()
		f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, "echomcp: log:", err)
			return
		}
		defer f.Close()
		if _, err := f.Write(append(line, '\n')); err != nil {
			fmt.Fprintln(os.Stderr, "echomcp: log:", err)
		}
	}

	server := mcp.NewServer(&mcp.Implementation{Name: serverName, Version: "1.0.0"}, &mcp.ServerOptions{Instructions: instructions})
	tool := &mcp.Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: "Echo the given text back in upper case.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}
	if structured {
		mcp.AddTool(server, tool, func(_ context.Context, req *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, echoOutput, error) {
			logCall(in.Text, req.Params.Meta)
			out := strings.ToUpper(in.Text)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ECHO: " + out}}}, echoOutput{Echoed: out}, nil
		})
	} else {
		mcp.AddTool(server, tool, func(_ context.Context, req *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
			logCall(in.Text, req.Params.Meta)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ECHO: " + strings.ToUpper(in.Text)}}}, nil, nil
		})
	}
	return server
}
