package helper

import (
	"context"
	"encoding/json"

	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/reset"
)

// text.closeout lives in its own file beside ops.go's registrations: the
// close-out of a reset a person asked for (/notesoup empty), whose text is
// not the budget warning's (issue #18).
func init() {
	register("text.closeout", "the close-out prompt of a reset a person asked for", opCloseOut)
}

func opCloseOut(_ context.Context, _ *service.Service, _ service.Caller, args json.RawMessage) (any, error) {
	var a struct {
		ResetTool string `json:"reset_tool"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.ResetTool == "" {
		return nil, argErr("args.reset_tool", "reset_tool is required: the reset tool's name as the model sees it")
	}
	return Rendered{Text: reset.CloseOutText(a.ResetTool), Data: a}, nil
}
