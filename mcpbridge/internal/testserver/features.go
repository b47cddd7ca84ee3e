package testserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Icon is the icon of the features server, its "roots" tool, its "colour"
// prompt, its "test://watched" resource and its "test://files/{name}"
// template; EvilIcon, a second icon of the roots tool, has a scheme no
// client should load.
var (
	Icon     = mcp.Icon{Src: "https://example.com/icon.png", MIMEType: "image/png", Sizes: []string{"48x48"}}
	EvilIcon = mcp.Icon{Src: "javascript:alert(1)", MIMEType: "image/png"}
)

// Colours are the values the "colour" prompt's argument "name" completes
// to (those starting with what was typed); files, those of the template's
// "name" argument.
var (
	Colours = []string{"blue", "brown", "green", "red"}
	files   = []string{"notes.txt", "todo.md"}
)

// listeners are the open subscriptions/listen streams of 2026-07-28
// clients: a resource update goes to those that subscribed to the
// resource (mcp-go's server leaves that fan-out to its user).
//
// A stream is the listen request, not its session. Over stdio every
// request shares one session, and a client that changes its filter
// cancels the old request and sends a new one: the server may see the
// new one before the old one's end, so keying by session let the old
// stream's end drop the new one's subscription.
type listeners struct {
	mu      sync.Mutex
	streams map[*listenStream]bool
	subs    map[string]map[string]bool // legacy resources/subscribe: session ID -> URIs
}

// listenStream is one open subscriptions/listen request.
type listenStream struct {
	sess server.ClientSession
	uris []string // the resources it asked for
}

// subscribed reports whether the legacy session of ctx subscribed to uri.
func (l *listeners) subscribed(ctx context.Context, uri string) bool {
	sess := server.ClientSessionFromContext(ctx)
	if sess == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.subs[sess.SessionID()][uri]
}

func (l *listeners) hooks() *server.Hooks {
	h := &server.Hooks{}
	h.AddBeforeSubscribe(func(ctx context.Context, _ any, r *mcp.SubscribeRequest) {
		if sess := server.ClientSessionFromContext(ctx); sess != nil {
			l.mu.Lock()
			if l.subs == nil {
				l.subs = map[string]map[string]bool{}
			}
			if l.subs[sess.SessionID()] == nil {
				l.subs[sess.SessionID()] = map[string]bool{}
			}
			l.subs[sess.SessionID()][r.Params.URI] = true
			l.mu.Unlock()
		}
	})
	h.AddBeforeUnsubscribe(func(ctx context.Context, _ any, r *mcp.UnsubscribeRequest) {
		if sess := server.ClientSessionFromContext(ctx); sess != nil {
			l.mu.Lock()
			delete(l.subs[sess.SessionID()], r.Params.URI)
			l.mu.Unlock()
		}
	})
	h.AddBeforeSubscriptionsListen(func(ctx context.Context, _ any, r *mcp.SubscriptionsListenRequest) {
		sess := server.ClientSessionFromContext(ctx)
		if sess == nil {
			return
		}
		st := &listenStream{sess: sess, uris: slices.Clone(r.Params.Notifications.ResourceSubscriptions)}
		l.mu.Lock()
		if l.streams == nil {
			l.streams = map[*listenStream]bool{}
		}
		l.streams[st] = true
		l.mu.Unlock()
		context.AfterFunc(ctx, func() {
			l.mu.Lock()
			delete(l.streams, st)
			l.mu.Unlock()
		})
	})
	return h
}

// updated sends notifications/resources/updated for uri to the listen
// streams that asked for it, once per session (two streams of a session
// overlap while a client replaces one), and reports whether there was one.
func (l *listeners) updated(uri string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	sent := false
	done := map[server.ClientSession]bool{}
	for st := range l.streams {
		sess := st.sess
		if done[sess] || !slices.Contains(st.uris, uri) {
			continue
		}
		done[sess] = true
		n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationResourceUpdated),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"uri": uri}},
		}}
		select {
		case sess.NotificationChannel() <- n:
			sent = true
		default:
		}
	}
	return sent
}

// DefaultsSchema is the form of the "ask_defaults" tool: every field has a
// default.
const DefaultsSchema = `{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},"status":{"type":"string","enum":["active","inactive"],"default":"active"}}}`

// featureOptions are the server options of Options.Features.
func featureOptions(l *listeners) []server.ServerOption {
	return []server.ServerOption{
		server.WithHooks(l.hooks()),
		server.WithLogging(),
		server.WithResourceCapabilities(true, true),
		server.WithCompletions(),
		server.WithPromptCapabilities(true),
		server.WithIcons(Icon),
		server.WithPromptCompletionProvider(completer{}),
		server.WithResourceCompletionProvider(completer{}),
	}
}

// addFeatures adds what exercises the client features:
//   - roots: returns the client's roots as JSON (roots/list, or a roots
//     input request on 2026-07-28);
//   - log: sends a log message {"level", "logger", "message"} (subject to
//     the level the client set), then answers "logged";
//   - touch: sends notifications/resources/updated for "uri" on the
//     subscriptions/listen streams subscribed to it or, when the calling
//     session subscribed with resources/subscribe, within the call, then
//     answers "touched"; "not subscribed" when nobody subscribed;
//   - add_resource: adds the resource test://added/<name> (the server
//     announces resources/list_changed);
//   - need_url: fails with -32042 URLElicitationRequired (a visit of
//     https://example.com/login, id "login-1") the first time it is
//     called with a given "key", and answers "authorized" the next;
//   - finish_url: sends notifications/elicitation/complete for "id";
//   - ask_defaults: asks for a form of DefaultsSchema, then returns "got
//     <content JSON>" or the refusal;
//   - ask_bad_url: asks the user to visit javascript:alert(1), then
//     returns the action;
//   - the prompt "colour" (argument "name", completed from Colours), the
//     resource test://watched and the template test://files/{name}
//     (completed from files), all with Icon.
func addFeatures(s *server.MCPServer, l *listeners) {
	s.AddTool(mcp.NewTool("roots", mcp.WithDescription("lists the client's roots"), mcp.WithToolIcons(Icon, EvilIcon)),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if roots := server.RootsResponse(r.Params.InputResponses, "roots"); roots != nil {
				b, err := json.Marshal(roots.Roots)
				if err != nil {
					return nil, err
				}
				return mcp.NewToolResultText(string(b)), nil
			}
			return server.NewInputRequestBuilder("").Roots("roots").ToolResult(), nil
		})
	s.AddTool(mcp.NewTool("log", mcp.WithString("level"), mcp.WithString("logger"), mcp.WithString("message")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := mcp.NewLoggingMessageNotification(mcp.LoggingLevel(r.GetString("level", "info")), r.GetString("logger", ""), r.GetString("message", ""))
			if err := s.SendLogMessageToClient(ctx, n); err != nil && !strings.Contains(err.Error(), "level") {
				return nil, err
			}
			return mcp.NewToolResultText("logged"), nil
		})
	s.AddTool(mcp.NewTool("touch", mcp.WithString("uri", mcp.Required())),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			uri := r.GetString("uri", "")
			if l.updated(uri) {
				return mcp.NewToolResultText("touched"), nil
			}
			if !l.subscribed(ctx, uri) {
				return mcp.NewToolResultText("not subscribed"), nil
			}
			if err := s.SendNotificationToClient(ctx, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": uri}); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("touched"), nil
		})
	s.AddTool(mcp.NewTool("add_resource", mcp.WithString("name", mcp.Required())),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			uri := "test://added/" + r.GetString("name", "x")
			s.AddResource(mcp.NewResource(uri, "added"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, Text: "added"}}, nil
			})
			return mcp.NewToolResultText("added " + uri), nil
		})
	var mu sync.Mutex
	asked := map[string]bool{}
	s.AddTool(mcp.NewTool("need_url", mcp.WithString("key")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			key := r.GetString("key", "")
			mu.Lock()
			again := asked[key]
			asked[key] = !again
			mu.Unlock()
			if again {
				return mcp.NewToolResultText("authorized"), nil
			}
			return nil, mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{{
				Mode: mcp.ElicitationModeURL, Message: "please log in", URL: "https://example.com/login", ElicitationID: "login-1",
			}}}
		})
	s.AddTool(mcp.NewTool("finish_url", mcp.WithString("id", mcp.Required())),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := s.SendElicitationComplete(ctx, server.ClientSessionFromContext(ctx), r.GetString("id", "")); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("finished"), nil
		})
	s.AddTool(mcp.NewTool("ask_defaults"),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer := server.ElicitationResponse(r.Params.InputResponses, "form"); answer != nil {
				if answer.Action != mcp.ElicitationResponseActionAccept {
					return mcp.NewToolResultText(refusal(answer.Action)), nil
				}
				b, err := json.Marshal(answer.Content)
				if err != nil {
					return nil, err
				}
				return mcp.NewToolResultText("got " + string(b)), nil
			}
			var schema map[string]any
			if err := json.Unmarshal([]byte(DefaultsSchema), &schema); err != nil {
				return nil, err
			}
			return server.NewInputRequestBuilder("").Elicit("form", mcp.ElicitationParams{
				Mode: mcp.ElicitationModeForm, Message: "who are you?", RequestedSchema: schema,
			}).ToolResult(), nil
		})
	s.AddTool(mcp.NewTool("ask_bad_url"),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer := server.ElicitationResponse(r.Params.InputResponses, "visit"); answer != nil {
				return mcp.NewToolResultText(string(answer.Action)), nil
			}
			return server.NewInputRequestBuilder("").Elicit("visit", mcp.ElicitationParams{
				Mode: mcp.ElicitationModeURL, Message: "visit", URL: "javascript:alert(1)", ElicitationID: "bad-1",
			}).ToolResult(), nil
		})
	s.AddPrompt(mcp.NewPrompt("colour", mcp.WithPromptDescription("a colour"), mcp.WithArgument("name", mcp.RequiredArgument()), mcp.WithPromptIcons(Icon)),
		func(_ context.Context, r mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("colour "+r.Params.Arguments["name"])),
			}}, nil
		})
	s.AddResource(mcp.NewResource("test://watched", "watched", mcp.WithResourceIcons(Icon)),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "test://watched", Text: "watched"}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://files/{name}", "files", mcp.WithTemplateIcons(Icon)),
		func(_ context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.Params.URI, Text: "file"}}, nil
		})
}

// completer completes the "colour" prompt's and the files template's
// argument "name".
type completer struct{}

func (completer) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if prompt != "colour" {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return prefixed(Colours, arg.Value), nil
}

func (completer) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if uri != "test://files/{name}" {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return prefixed(files, arg.Value), nil
}

// prefixed returns the values starting with p.
func prefixed(values []string, p string) *mcp.Completion {
	out := []string{}
	for _, v := range values {
		if strings.HasPrefix(v, p) {
			out = append(out, v)
		}
	}
	return &mcp.Completion{Values: out, Total: len(out)}
}
