package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultText renders a tool result's content for the model: text as it
// is, anything else as a short placeholder naming its type and size.
// Without content, the structured content is shown as JSON.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, contentText(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(data))
		}
	}
	return strings.Join(parts, "\n")
}

func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes, not shown]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes, not shown]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.ResourceLink:
		size := "size unknown"
		if c.Size != nil {
			size = fmt.Sprintf("%d bytes", *c.Size)
		}
		return fmt.Sprintf("[resource link: %s, %s, %s]", c.URI, orUnknown(c.MIMEType), size)
	case *sdk.EmbeddedResource:
		if c.Resource == nil {
			return "[resource: empty]"
		}
		n := len(c.Resource.Text) + len(c.Resource.Blob)
		return fmt.Sprintf("[resource: %s, %s, %d bytes, not shown]", c.Resource.URI, orUnknown(c.Resource.MIMEType), n)
	case nil:
		return ""
	}
	return fmt.Sprintf("[content of type %T, not shown]", c)
}

func orUnknown(mime string) string {
	if mime == "" {
		return "type unknown"
	}
	return mime
}
