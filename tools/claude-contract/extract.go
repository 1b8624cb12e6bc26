package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// A part is one file of the contract: found by the first line of its text,
// written at path (slash-separated) under -out.
type part struct {
	prefix string
	path   string
}

// parts are the files of the contract, in the order they are written.
var parts = []part{
	{prefix: "// Claude Code function hooks", path: "claude-code/index.d.ts"},
	{prefix: "// The inputs of the built-in tools", path: "claude-code-tools/index.d.ts"},
	{prefix: "# Function hooks: the long form", path: "function-hooks-reference.md"},
}

// Bounds on what one frame may cost. The parts are a few hundred KB of
// text; the binary also holds frames of other things, some large, and
// random bytes that only look like a frame start.
const (
	// maxText is the most a frame may decode to; larger frames are not
	// parts and are skipped, not truncated.
	maxText = 8 << 20
	// minText is the least a frame must decode to: a part is far longer,
	// and a short text is too little to judge by its first bytes.
	minText = 64
	// maxBlock is the largest block zstd allows (RFC 8878, 3.1.1.2.3).
	maxBlock = 128 << 10
	// maxFrame bounds the compressed size of a frame: stored (raw) blocks
	// take as much room as they decode to, so a frame of at most maxText
	// fits in this with room for its block headers.
	maxFrame = 2 * maxText
)

// frameMagic opens every zstd frame (RFC 8878, 3.1.1), little-endian 0xFD2FB528.
var frameMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// extract finds each part in data, the first frame whose text begins with
// the part's prefix, and returns their texts in the order of parts. It fails
// naming every part it did not find.
func extract(data []byte) ([][]byte, error) {
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		// Also caps the window, so a frame claiming a huge one is refused
		// before anything is allocated for it.
		zstd.WithDecoderMaxMemory(maxText))
	if err != nil {
		return nil, err
	}
	defer dec.Close()

	texts := make([][]byte, len(parts))
	left := len(parts)
	for off := 0; left > 0; {
		i := bytes.Index(data[off:], frameMagic)
		if i < 0 {
			break
		}
		off += i
		text, ok := decodeFrame(dec, data[off:])
		off++ // the next search starts past this magic, whether it decoded or not
		if !ok {
			continue
		}
		for j, p := range parts {
			if texts[j] == nil && bytes.HasPrefix(text, []byte(p.prefix)) {
				texts[j] = text
				left--
				break
			}
		}
	}
	if left > 0 {
		var missing []string
		for j, p := range parts {
			if texts[j] == nil {
				missing = append(missing, fmt.Sprintf("%s (a text beginning %q)", p.path, p.prefix))
			}
		}
		return nil, fmt.Errorf("no zstd frame holds %s; is it a Claude Code native binary of a build with the mod API, such as the pinned one (e2e/install.sh)? Nothing was written",
			strings.Join(missing, ", "))
	}
	return texts, nil
}

// decodeFrame decodes the zstd frame at the start of b and says whether it
// is text worth matching: it decodes whole, to between minText and maxText
// bytes, with no NUL among its first minText (text files hold none, and
// most false frame starts decode to nothing at all).
func decodeFrame(dec *zstd.Decoder, b []byte) ([]byte, bool) {
	n, err := frameLen(b)
	if err != nil {
		return nil, false
	}
	// Decoding exactly the frame's bytes keeps the decoder from running on
	// into a frame stored right after it and returning both as one text.
	text, err := dec.DecodeAll(b[:n], nil)
	if err != nil || len(text) < minText || len(text) > maxText {
		return nil, false
	}
	if bytes.IndexByte(text[:minText], 0) >= 0 {
		return nil, false
	}
	return text, true
}

// frameLen returns the length in bytes of the zstd frame at the start of b:
// its header, its blocks and its checksum, walking the block headers without
// decoding them (RFC 8878, 3.1.1).
func frameLen(b []byte) (int, error) {
	var h zstd.Header
	if err := h.Decode(b); err != nil {
		return 0, err
	}
	if h.Skippable {
		return 0, errors.New("a skippable frame holds no compressed data")
	}
	if h.DictionaryID != 0 {
		return 0, errors.New("the frame needs a dictionary")
	}
	n := h.HeaderSize
	for {
		if len(b)-n < 3 {
			return 0, errors.New("the frame is cut short")
		}
		bh := int(b[n]) | int(b[n+1])<<8 | int(b[n+2])<<16
		n += 3
		last := bh&1 != 0
		size := bh >> 3
		if size > maxBlock {
			return 0, errors.New("a block is larger than zstd allows")
		}
		switch bh >> 1 & 3 {
		case 1: // RLE: one byte, repeated size times
			size = 1
		case 3:
			return 0, errors.New("a block has the reserved type")
		}
		n += size
		if n > len(b) || n > maxFrame {
			return 0, errors.New("the frame is cut short or too large")
		}
		if last {
			break
		}
	}
	if h.HasCheckSum {
		n += 4
		if n > len(b) {
			return 0, errors.New("the frame's checksum is cut short")
		}
	}
	return n, nil
}
