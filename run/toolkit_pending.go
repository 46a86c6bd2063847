package run

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rubichan/rubichan/toolkit"
)

// Stand-ins for toolkit.Tools, toolkit.SafeRun and toolkit.NewBash until the
// files and bash branches are merged; this file is deleted then.

func toolkitTools(ws *toolkit.Workspace, filter func(string) bool) []toolkit.Tool { return nil }

func toolkitBash(dir string, env, drop []string) toolkit.Tool { return nil }

func safeRun(ctx context.Context, tool toolkit.Tool, args json.RawMessage) (res toolkit.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = toolkit.Result{Content: fmt.Sprintf("the tool failed internally (panic: %v)", p), IsError: true}, nil
		}
	}()
	return tool.Run(ctx, args)
}
