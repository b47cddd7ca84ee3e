package testserver

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// OrderSchema is the input schema of the "orders/place" tool: nested
// objects, arrays of strings and of objects, an integer enum (which the
// Gemini schema only allows as strings) and a nullable string.
const OrderSchema = `{"type":"object","properties":{` +
	`"customer":{"type":"object","properties":{"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["name"]},` +
	`"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}},"required":["sku","qty"]}},` +
	`"size":{"type":"integer","enum":[1,2,3]},"gift":{"type":"boolean"},"note":{"type":["string","null"]}},` +
	`"required":["customer","items"]}`

// addShapeTools adds the tools of [Options.Shapes]:
//   - orders/place: OrderSchema -> its arguments as JSON text.
func addShapeTools(s *server.MCPServer) {
	s.AddTool(mcp.NewToolWithRawSchema("orders/place", "places an order", json.RawMessage(OrderSchema)),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(r.GetArguments())
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(b)), nil
		})
}
