package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one inbound JSON-RPC line, as the SDK's own stdio
// transport does (mcp.DefaultMaxLineLength). A longer line is answered with
// a parse error and skipped without being buffered.
const MaxLineBytes = mcp.DefaultMaxLineLength

// DrainTimeout bounds how long the server, once stdin has ended, keeps
// answering the requests it already read before it reports the end to the
// SDK. History reads of a large transcript take well under a second; this
// only stops a wedged call from holding the process forever.
const DrainTimeout = 30 * time.Second

// stdioTransport is the server's stdio transport: newline-delimited
// JSON-RPC over in/out, like the SDK's mcp.StdioTransport, with two
// differences the SDK's lacks (its issue 1061 and the hostile-input rows of
// docs/reliability.md):
//
//   - At the end of stdin it waits (up to drain) until every request already
//     read has been answered, then reports EOF. The SDK stops writing
//     answers the moment its reader sees EOF, so a client that pipes
//     requests and closes stdin got none, some or all of them answered.
//   - A malformed line (not JSON, invalid UTF-8, too deep, too long, an id
//     that is an object, a batch) is answered with a JSON-RPC error whose id
//     is null (-32700 Parse error, -32600 Invalid Request) and skipped; the
//     SDK's reader ends the whole session on it.
type stdioTransport struct {
	in      io.Reader
	out     io.Writer
	maxLine int
	drain   time.Duration
	log     hclog.Logger
}

// Connect implements mcp.Transport.
func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{
		out:      t.out,
		in:       t.in,
		drain:    t.drain,
		log:      t.log,
		incoming: make(chan readResult),
		closed:   make(chan struct{}),
		answered: make(chan struct{}, 1),
		pending:  map[jsonrpc.ID]struct{}{},
	}
	go c.readLoop(t.maxLine)
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn is one stdio connection (mcp.Connection).
type lineConn struct {
	in    io.Reader
	out   io.Writer
	drain time.Duration
	log   hclog.Logger

	writeMu sync.Mutex // one line at a time on out

	incoming chan readResult
	closed   chan struct{}
	closeMu  sync.Once

	mu       sync.Mutex
	pending  map[jsonrpc.ID]struct{} // calls handed to the SDK and not yet answered
	answered chan struct{}           // poked after each answer is written
}

// readLoop reads lines until the end of in, hands each valid message to
// Read, and answers each malformed line itself.
func (c *lineConn) readLoop(maxLine int) {
	br := bufio.NewReaderSize(c.in, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine {
				// Drop what was gathered and the rest of the line as it
				// comes: a hostile line is never held whole.
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil || (err == io.EOF && (len(line) > 0 || tooLong)) {
			switch {
			case tooLong:
				c.answerError(jsonrpc.CodeParseError, fmt.Sprintf("Parse error: line longer than %d bytes; send one JSON-RPC message per line", maxLine))
			default:
				if msg := c.parse(line); msg != nil {
					if !c.deliver(readResult{msg: msg}) {
						return
					}
				}
			}
			line, tooLong = line[:0], false
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if !errors.Is(err, io.EOF) {
				c.log.Debug("stdin read", "error", err)
			}
			c.deliver(readResult{err: io.EOF})
			return
		}
	}
}

// deliver hands r to Read; false once the connection is closed.
func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// parse checks one line and decodes it, or answers why not and returns nil.
func (c *lineConn) parse(line []byte) jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil // blank lines between messages are harmless
	}
	if !utf8.Valid(line) {
		c.answerError(jsonrpc.CodeParseError, "Parse error: the line is not valid UTF-8")
		return nil
	}
	// encoding/json's validator also refuses nesting deeper than 10,000.
	if !json.Valid(line) {
		var v any
		why := "not valid JSON"
		if err := json.Unmarshal(line, &v); err != nil {
			why = err.Error()
		}
		c.answerError(jsonrpc.CodeParseError, "Parse error: "+clip(why, 200))
		return nil
	}
	if line[0] == '[' {
		c.answerError(jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported; send one message per line")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.answerError(jsonrpc.CodeInvalidRequest, "Invalid Request: "+clip(err.Error(), 200)+
			`; a message is an object with "jsonrpc":"2.0", a "method" and, for a call, an "id" that is a string or a number`)
		return nil
	}
	return msg
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// answerError writes a JSON-RPC error response with id null: the id of a
// message that could not be read cannot be known (JSON-RPC 2.0, 5.1).
func (c *lineConn) answerError(code int64, message string) {
	data, err := json.Marshal(struct {
		JSONRPC string        `json:"jsonrpc"`
		ID      *struct{}     `json:"id"` // always null
		Error   jsonrpc.Error `json:"error"`
	}{JSONRPC: "2.0", Error: jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		c.log.Error("encoding a parse error", "error", err)
		return
	}
	c.log.Debug("malformed line answered", "code", code, "message", message)
	if err := c.writeLine(data); err != nil {
		c.log.Debug("writing a parse error", "error", err)
	}
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Read implements mcp.Connection. At the end of stdin it first waits for
// the answers of the calls already read (bounded by drain).
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case r := <-c.incoming:
		if r.err != nil {
			c.waitAnswered(ctx)
			return nil, r.err
		}
		if req, ok := r.msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			c.pending[req.ID] = struct{}{}
			c.mu.Unlock()
		}
		return r.msg, nil
	}
}

// waitAnswered returns once every pending call is answered, the drain
// bound passes, or the connection closes.
func (c *lineConn) waitAnswered(ctx context.Context) {
	timer := time.NewTimer(c.drain)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-timer.C:
			c.log.Warn("stdin ended; calls still unanswered after the drain bound", "calls", n, "bound", c.drain)
			return
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Write implements mcp.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	err = c.writeLine(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

// Close implements mcp.Connection: it unblocks Read. stdin is closed when it
// can be (a pipe in tests); os.Stdin ends with the process.
func (c *lineConn) Close() error {
	var err error
	c.closeMu.Do(func() {
		close(c.closed)
		if cl, ok := c.in.(io.Closer); ok && cl != nil {
			err = cl.Close()
		}
	})
	return err
}

// SessionID implements mcp.Connection; stdio has no session id.
func (c *lineConn) SessionID() string { return "" }
