// Command ownloop is a Go program with its own Gemini loop that takes the
// tools of many MCP servers from mcpbridge: a plain genai loop
// (GenerateContent in a for loop, no agent package) on mcpbridge's public
// API alone.
//
//	go run ./examples/ownloop            # offline: a scripted model (geminitest)
//	go run ./examples/ownloop -gemini    # the Gemini API (GEMINI_API_KEY)
//
// It serves the tools of 77 real MCP servers, 789 in all, from in-process
// mcp-go servers on 127.0.0.1 (over streamable HTTP): LiveMCPBench's 70
// servers with their descriptions (mcpbridge/rank/testdata/livemcpbench)
// and the tools/list answers of seven published servers
// (schema/testdata/servers). The servers are stand-ins: the weather
// server's tools answer with a made-up report, every other tool with a
// line saying it did nothing.
//
// More tools than one request may carry (512 on the Gemini Developer API),
// so the loop asks the Bridge for each request's tools:
//
//  1. Bridge.Declare with the conversation so far gives the request's
//     tools, the best ranked for the conversation when they do not all fit,
//     and a report of what was left out;
//  2. the request is sent with genai's GenerateContent;
//  3. when the API answers 400 and blames a declaration, Declarations.Heal
//     drops the blamed tools and the loop declares again and resends;
//  4. Declarations.ExecuteAll runs the model's calls at their servers, and
//     each result's Part goes back in the next request.
//
// Offline, the model is geminitest's strict fake with a script: its backend
// refuses the declaration of the weather server's get_weather once, with
// the message the API gives a schema too complex to serve; the model then
// calls get_weather_by_city and answers from its result. The program prints
// each request's declarations, the healed 400, the call, its result and the
// answer.
//
// Flags:
//
//	-gemini       send the requests to the Gemini API instead of the fake:
//	              genai reads the key from GEMINI_API_KEY or GOOGLE_API_KEY
//	-model NAME   the model (default gemini-2.5-flash)
//	-prompt TEXT  the question, with -gemini (the fake's script knows one)
//	-max-tokens N bound each request's declarations to about N tokens as
//	              well (Selection.MaxSize); 0, the default, bounds only their
//	              count: 512 declarations of these servers come to about 1 MB
//	-data DIR     the repository's root, where the tools are read (default:
//	              found at or above the working directory)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/examples/internal/genaienv"
	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/schema"
)

// question is the user's message of the offline run.
const question = "What is the weather in Kyoto right now?"

// maxTurns bounds the model's turns for one question.
const maxTurns = 10

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the program, writing what happens to out and errors to errOut.
func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	fs := flag.NewFlagSet("ownloop", flag.ContinueOnError)
	fs.SetOutput(errOut)
	useAPI := fs.Bool("gemini", false, "send the requests to the Gemini API (key from GEMINI_API_KEY or GOOGLE_API_KEY)")
	model := fs.String("model", "gemini-2.5-flash", "the model")
	prompt := fs.String("prompt", "", "the question (with -gemini)")
	maxTokens := fs.Int("max-tokens", 0, "bound each request's declarations to about this many tokens (0: only their count)")
	data := fs.String("data", "", "the repository's root, where the tools are read (default: found from the working directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *prompt != "" && !*useAPI {
		fmt.Fprintln(errOut, "ownloop: -prompt needs -gemini: the fake's script answers one question")
		return 2
	}
	if *prompt == "" {
		*prompt = question
	}
	var sel *mcpbridge.Selection // nil: as many as the API takes, best ranked first
	if *maxTokens > 0 {
		sel = &mcpbridge.Selection{MaxSize: schema.Tokens(*maxTokens)}
	}
	if err := ownLoop(ctx, out, *useAPI, *model, *prompt, *data, sel); err != nil {
		fmt.Fprintf(errOut, "ownloop: %v\n", err)
		return 1
	}
	return 0
}

// ownLoop starts the servers, discovers them and answers prompt.
func ownLoop(ctx context.Context, out io.Writer, useAPI bool, model, prompt, data string, sel *mcpbridge.Selection) (err error) {
	root, err := findRoot(data)
	if err != nil {
		return err
	}
	specs, err := readServers(root)
	if err != nil {
		return err
	}
	srv, err := startServers(specs)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.Close()) }()

	b, err := mcpbridge.New(&mcpbridge.Config{Servers: srv.config}, &mcpbridge.Options{
		// The library logs renames and schemas cut to their budget;
		// the example prints what it wants to show itself.
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return err
	}
	defer b.Close() // before the servers stop (deferred calls run last first)
	if err := b.Discover(ctx); err != nil {
		return err
	}
	connected := 0
	for _, s := range b.Status().Servers {
		if s.State == mcpbridge.Connected {
			connected++
		}
	}
	fmt.Fprintf(out, "servers: %d of %d connected, %d tools\n", connected, len(specs), len(b.Tools()))

	gen, closeGen, err := generator(ctx, out, b, useAPI)
	if err != nil {
		return err
	}
	defer closeGen()
	fmt.Fprintf(out, "user: %s\n", prompt)
	answer, err := converse(ctx, out, b, gen, model, sel, []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser)})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "model: %s\n", answer)
	return nil
}

// contentGenerator sends one request: *genai.Models is one.
type contentGenerator interface {
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
}

// converse is the host's own loop: for each request, the tools Declare
// gives for the conversation so far, healing a declaration the API
// refused; the model's calls run through the request's Declarations until
// it answers without calls. It returns the answer's text.
func converse(ctx context.Context, out io.Writer, b *mcpbridge.Bridge, gen contentGenerator, model string,
	sel *mcpbridge.Selection, history []*genai.Content) (string, error) {
	opts := &mcpbridge.DeclareOptions{Selection: sel}
	for turn := 1; turn <= maxTurns; turn++ {
		d, resp, err := send(ctx, out, b, gen, model, opts, history, turn)
		if err != nil {
			return "", err
		}
		if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
			return "", fmt.Errorf("request %d: the model gave no content", turn)
		}
		calls := resp.FunctionCalls()
		if len(calls) == 0 {
			return resp.Text(), nil
		}
		history = append(history, resp.Candidates[0].Content)
		for _, c := range calls {
			args, _ := json.Marshal(c.Args)
			fmt.Fprintf(out, "model calls %s(%s)\n", c.Name, args)
		}
		var parts []*genai.Part
		for _, r := range d.ExecuteAll(ctx, calls) {
			status := "result"
			if r.Err != nil {
				status = "error"
			}
			fmt.Fprintf(out, "%s of %s (server %s): %s\n", status, r.Name, r.Server, r.ReturnDisplay)
			parts = append(parts, r.Part())
		}
		history = append(history, &genai.Content{Role: genai.RoleUser, Parts: parts})
	}
	return "", fmt.Errorf("the model still called functions after %d requests", maxTurns)
}

// send declares the tools of request turn for history and sends it. When
// the API refuses it for declarations of Bridge tools, Heal drops them and
// the request goes again with a fresh Declare (at most three times).
func send(ctx context.Context, out io.Writer, b *mcpbridge.Bridge, gen contentGenerator, model string,
	opts *mcpbridge.DeclareOptions, history []*genai.Content, turn int) (*mcpbridge.Declarations, *genai.GenerateContentResponse, error) {
	for attempt := 1; ; attempt++ {
		d, err := b.Declare(ctx, history, opts)
		if err != nil {
			return nil, nil, err
		}
		r := d.Report
		fmt.Fprintf(out, "request %d: %d of %d tools declared (%d bytes), %d left out\n",
			turn, r.Declared, r.Declared+len(r.Omitted), r.Size, len(r.Omitted))
		config := &genai.GenerateContentConfig{Tools: d.Tools}
		if si := d.SystemInstruction(); si != nil { // what the servers say about themselves
			config.SystemInstruction = &genai.Content{Parts: []*genai.Part{si}}
		}
		resp, err := gen.GenerateContent(ctx, model, history, config)
		dropped := d.Heal(err)
		if dropped == nil || attempt == 3 {
			return d, resp, err
		}
		for _, t := range dropped {
			fmt.Fprintf(out, "request %d: the API refused %s (server %s): %s\n", turn, t.Name, t.Server, firstLine(t.Reason))
		}
		fmt.Fprintf(out, "request %d: healed: %d tool dropped for good; declaring again\n", turn, len(dropped))
	}
}

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// generator returns the genai models the loop sends its requests to: the
// Gemini API's with useAPI, else a geminitest server's that answers the
// offline question by script. The function returned releases it.
func generator(ctx context.Context, out io.Writer, b *mcpbridge.Bridge, useAPI bool) (contentGenerator, func(), error) {
	if useAPI {
		client, err := genaienv.NewClient(ctx, ", or leave out -gemini to run offline")
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintln(out, "model: the Gemini API")
		return client.Models, func() {}, nil
	}
	// The registered names of the weather server's tools (a name another
	// server took first would be "weather__...").
	refused, wanted := registered(b, "weather", "get_weather"), registered(b, "weather", "get_weather_by_city")
	if refused == "" || wanted == "" {
		return nil, nil, errors.New("the weather server's tools are not registered")
	}
	// The backend's refusal of one declaration, as the API refuses a
	// schema it finds too complex to serve; the schema checks cannot
	// foresee it.
	tooComplex := func(d *genai.FunctionDeclaration) (string, string) {
		if d.Name == refused {
			return "parameters", "schema produces a constraint that has too many states for serving"
		}
		return "", ""
	}
	fake := geminitest.New(nil, &geminitest.Options{DeclarationRules: []geminitest.DeclarationRule{tooComplex}},
		func(req *geminitest.Request) geminitest.Response {
			if req.Declaration(wanted) == nil {
				return geminitest.Text("I have no tool that gives the weather.")(req)
			}
			return geminitest.Calls(geminitest.Call{Name: wanted, Args: map[string]any{"city": "Kyoto", "country_code": "JP"}})(req)
		},
		func(req *geminitest.Request) geminitest.Response {
			var report struct {
				Temperature float64 `json:"temperature"`
				Conditions  string  `json:"conditions"`
			}
			if rs := req.FunctionResponses(); len(rs) == 1 {
				text, _ := rs[0].Response["output"].(string)
				_ = json.Unmarshal([]byte(text), &report)
			}
			if report.Conditions == "" {
				return geminitest.Text("The weather server did not answer.")(req)
			}
			return geminitest.Text(fmt.Sprintf("In Kyoto it is %.1f °C with %s.", report.Temperature, report.Conditions))(req)
		},
	)
	fmt.Fprintln(out, "model: scripted (geminitest, offline)")
	return fake.Client(ctx).Models, fake.Close, nil
}

// registered returns the name under which the Bridge registered server's
// tool, or "".
func registered(b *mcpbridge.Bridge, server, tool string) string {
	for _, t := range b.Tools() {
		if t.Server == server && t.ServerTool == tool {
			return t.Name
		}
	}
	return ""
}
