package geminitest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgenai/bridge/geminitest"
	"google.golang.org/genai"
)

func Example() {
	ctx := context.Background()
	srv := geminitest.New(nil, nil,
		geminitest.Calls(geminitest.Call{Name: "get_time", Args: map[string]any{"zone": "UTC"}}),
		func(req *geminitest.Request) geminitest.Response {
			r := req.FunctionResponses()[0]
			return geminitest.Response{Parts: []*genai.Part{{Text: fmt.Sprintf("It is %v.", r.Response["output"])}}}
		},
	)
	defer srv.Close()
	client := srv.Client(ctx)

	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name:       "get_time",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"zone": {Type: genai.TypeString}}},
	}}}}}
	history := []*genai.Content{genai.NewContentFromText("What time is it?", genai.RoleUser)}
	resp, _ := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, config)
	call := resp.FunctionCalls()[0]
	fmt.Println(call.ID, call.Name, call.Args["zone"])

	answer := genai.NewPartFromFunctionResponse(call.Name, map[string]any{"output": "12:00"})
	answer.FunctionResponse.ID = call.ID
	history = append(history, resp.Candidates[0].Content, genai.NewContentFromParts([]*genai.Part{answer}, genai.RoleUser))
	resp, _ = client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, config)
	fmt.Println(resp.Text())
	fmt.Println(len(srv.Requests()), "requests")
	// Output:
	// call-1 get_time UTC
	// It is 12:00.
	// 2 requests
}

func Example_rejection() {
	ctx := context.Background()
	srv := geminitest.New(nil, nil, geminitest.Text("unused"))
	defer srv.Close()
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name: "pick",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{
			"n": {Type: genai.TypeInteger, Enum: []string{"1", "2"}},
		}},
	}}}}}
	_, err := srv.Client(ctx).Models.GenerateContent(ctx, "gemini-2.5-flash",
		[]*genai.Content{genai.NewContentFromText("Pick one.", genai.RoleUser)}, config)
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Code, apiErr.Status)
		fmt.Print(apiErr.Message)
	}
	// Output:
	// 400 INVALID_ARGUMENT
	// * GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[n].enum: only allowed for STRING type
}
