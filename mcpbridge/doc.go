// Package mcpbridge connects Go programs that talk to Gemini through
// [google.golang.org/genai] to the tools of MCP (Model Context Protocol)
// servers.
//
// # Settings
//
// The servers are described the way Gemini CLI describes them: the
// mcpServers object of a settings.json, so a user's existing file works
// unchanged. [LoadSettings] reads the user's then the project's file
// (when given no paths), keeps the servers in the order they are written,
// expands $VAR, ${VAR} and ${VAR:-default}, and reports bad JSON with file,
// line and column:
//
//	cfg, err := mcpbridge.LoadSettings(nil, nil)
//	if err != nil {
//		return err // e.g. ".gemini/settings.json:7:15: server "db": timeout: want number of milliseconds, got string"
//	}
//	for _, w := range cfg.Warnings {
//		log.Print(w) // unset variables, unknown keys, duplicate names
//	}
//
// The same configuration can be written in Go:
//
//	cfg := &mcpbridge.Config{Servers: []mcpbridge.ServerConfig{{
//		Name:    "files",
//		Command: "npx",
//		Args:    []string{"-y", "@modelcontextprotocol/server-filesystem", "."},
//		Timeout: 30 * time.Second,
//	}}}
//	if err := cfg.Validate(); err != nil {
//		return err
//	}
//
// A stdio server's process inherits the parent environment minus variables
// whose names or values look secret, plus its configured env, which always
// wins ([Config.InheritSecretEnv]).
//
// # Discovery
//
// A [Bridge] connects the servers in parallel, lists their tools page by
// page, converts each tool's raw inputSchema for the chosen
// [schema.Target] and registers the tools under unique function names in
// configuration order ([registry]). Changes (server states, discovery state,
// tools added, removed or renamed) arrive on [Bridge.Subscribe]; a server
// that dies is reconnected on its next use.
//
//	b, err := mcpbridge.New(cfg, nil)
//	if err != nil {
//		return err
//	}
//	defer b.Close()
//	if err := b.Discover(ctx); err != nil {
//		return err // only ctx's end; server failures are in b.Status()
//	}
//	for _, t := range b.Tools() {
//		fmt.Println(t.Name, t.Server, t.ServerTool) // t.Declaration is ready for genai
//	}
//
// # Login
//
// A remote server that answers 401 asks for an OAuth 2.1 login (the oauth
// and authProviderType settings of Gemini CLI, [OAuthConfig],
// [AuthProviderType]). Discovery does not wait for it: the server is
// [Disconnected] and its [ServerStatus.Auth] says a login is needed.
// [Bridge.Login] runs the login, handing the authorization URL to
// [Options.LoginURL] (the host shows it; the library never opens a
// browser), waits for the redirect, stores the token ([auth.Store], by
// default a 0600 file) and connects the server. Stored tokens are reused
// and refreshed; Google credentials need no login.
//
// # Execution
//
// [Bridge.Execute] runs one function call of the model: it finds the tool,
// restores the arguments to the original schema's types and validates them
// against it, asks [Options.Policy] whether the call may run, calls the
// server with the tool's original name within the server's timeout, and
// converts the result into a [CallResult]: LLMContent for the model,
// ReturnDisplay for a person, and [CallResult.Part], the FunctionResponse
// part for the next request. Every failure (unknown tool, denied, invalid
// arguments, timeout, the server's isError, a dead connection) is a
// result the model can read, never a panic. Without a Policy only the
// tools of servers with trust: true run; give a [confirm.Policy] with a
// Confirmer to ask a person.
//
// [Bridge.Declare] gives the tools of one request of any loop (the host's
// own, ADK's, Genkit's): the host's declarations and functions
// ([HostFunction]) first, then the Bridge's tools, chosen for the
// conversation so far when there are more than a request may carry (a
// [rank.Ranker], lexical by default: [Selection], [RequestReport]). The
// [Declarations] it returns run the model's calls ([Declarations.Execute],
// [Declarations.ExecuteAll]) and heal a declaration the API rejected with
// a 400 ([Declarations.Heal], [DroppedTool]):
//
//	for {
//		d, err := b.Declare(ctx, history, nil)
//		if err != nil {
//			return err
//		}
//		resp, err := client.Models.GenerateContent(ctx, model, history, &genai.GenerateContentConfig{Tools: d.Tools})
//		if d.Heal(err) != nil {
//			continue // the blamed tools are dropped: declare again
//		}
//		if err != nil {
//			return err
//		}
//		calls := resp.FunctionCalls()
//		if len(calls) == 0 {
//			return nil // the answer: resp.Text()
//		}
//		history = append(history, resp.Candidates[0].Content)
//		var parts []*genai.Part
//		for _, r := range d.ExecuteAll(ctx, calls) {
//			parts = append(parts, r.Part())
//		}
//		history = append(history, &genai.Content{Role: genai.RoleUser, Parts: parts})
//	}
//
// Package [github.com/mcpgenai/bridge/mcpbridge/agent] is that loop, ready
// made: multi-turn Run, streaming RunStream, the Live API, background
// calls.
//
// Package [github.com/mcpgenai/bridge/geminitest] is a strict fake
// of the Gemini API for the tests of programs built on the Bridge.
//
// # Many users
//
// A service keeps one Bridge for all its users and names the user of each
// operation in its context ([WithUser]; [Options.MaxUsers] makes a
// context without one an error). Servers whose requests carry a person's
// OAuth token get each user's tokens, login, tools list and, before
// protocol 2026-07-28, connection; stdio servers and servers without a
// person's credentials run once for everyone. A server's question goes to
// the one user it belongs to, or is refused. Idle users' state is dropped
// after [Options.UserIdle].
//
// # Status
//
// [Status] is the /mcp view: every server with its state, command or URL,
// working directory, timeout, tools and last error, and the discovery state.
// It prints in Gemini CLI's layout ([Status.WriteText]) and encodes to JSON.
// Secrets never appear: env and header values, URL credentials and secret
// query parameters, and arguments after flags such as --token are hidden.
//
// # Secrets
//
// The Bridge redacts at its exits: call results, events, errors, log
// records and the status all show "***" in place of a secret. The
// configured secrets are every env and header value whose name looks
// secret (TOKEN, KEY, SECRET, PASSWORD, AUTH ..., plus Authorization and
// Cookie) or whose value may be a credential (a well-known token prefix, a
// private key, or 8 characters or more mixing letters and digits that are
// not a path or URL), the password and secret query values of every URL,
// the argument after a secret-looking flag, the OAuth client secret, and
// [ServerConfig.Secrets]. What a server sent loses only the configured
// secrets; the text the Bridge writes itself (errors, logs, the status,
// stderr) also loses credentials by their shape: bearer tokens, URL
// credentials, name=value pairs with secret-looking names, DSN passwords
// and JSON Web Tokens.
//
//	fmt.Print(bridge.Status())
package mcpbridge
