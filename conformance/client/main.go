// Command client is the program the official MCP conformance suite runs
// as the client under test: .ci/conformance starts it once per client
// scenario as "client URL", with the scenario's name in
// MCP_CONFORMANCE_SCENARIO and its data (client credentials, keys) in
// MCP_CONFORMANCE_CONTEXT.
//
// It uses only mcpbridge's public API, the way a host program would: the
// server goes into a settings document read by ParseSettings, a Bridge
// discovers it, a server that wants a login is logged in to (headlessly:
// the driver follows the authorization URL with an http.Client, so the
// authorization server's redirect reaches the Bridge's loopback listener),
// and then every tool is called once. It exits non-zero when something
// the scenario needs did not happen.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/elicit"
)

const serverName = "conformance"

// maxLogins bounds the logins of one run: a first one, then step-ups.
const maxLogins = 3

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: client SERVER_URL")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, os.Args[1], os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, serverURL, scenario, scenarioContext string) error {
	settings, err := settingsFor(serverURL, scenario, scenarioContext)
	if err != nil {
		return err
	}
	cfg, err := mcpbridge.ParseSettings(settings, "conformance-settings.json", nil)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b, err := mcpbridge.New(cfg, &mcpbridge.Options{
		Logger:     logger,
		TokenStore: auth.NewMemoryStore(),
		LoginURL:   followLogin,
		Client:     &mcpbridge.ClientFeatures{Elicit: acceptEmpty},
	})
	if err != nil {
		return err
	}
	defer b.Close()

	logins := 0
	connect := func() error {
		if err := b.Discover(ctx); err != nil {
			return err
		}
		for {
			st := serverStatus(b)
			switch {
			case st.State == mcpbridge.Connected:
				return nil
			case strings.Contains(st.Error, "offers no tools"):
				// Reached, with nothing to call (the initialize
				// scenario): the Bridge closes such a server.
				return nil
			case st.Auth.NeedsLogin() && logins < maxLogins:
				logins++
				// A login whose connection meets another 401 (the
				// server moved to another authorization server) asks
				// for one more: the loop sees it in the status.
				if err := b.Login(ctx, serverName); err != nil && !serverStatus(b).Auth.NeedsLogin() {
					return err
				}
			default:
				return fmt.Errorf("server not connected: %s (%s)", st.State, st.Error)
			}
		}
	}
	if err := connect(); err != nil {
		return err
	}
	if err := useSkills(ctx, b, scenario); err != nil {
		return err
	}
	for _, c := range callsFor(b, scenario, scenarioContext) {
		for {
			res := b.Execute(ctx, &genai.FunctionCall{Name: c.name, Args: c.args})
			if res.Err == nil {
				fmt.Printf("%s: %s\n", c.name, res.ReturnDisplay)
				break
			}
			// A refusal for want of scope asks for another login (a
			// step-up); anything else is the scenario's failure.
			if st := serverStatus(b); st.Auth.NeedsLogin() && logins < maxLogins {
				logins++
				if err := b.Login(ctx, serverName); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("calling %s: %w", c.name, res.Err)
		}
	}
	return nil
}

// useSkills lists the server's skills (the Skills extension); in the
// scenarios that ask a host to use one, it loads the first skill and,
// once the Bridge accepted it, reads its other files, as a model that
// follows the skill would. A skill the Bridge refuses is the scenario's
// point, not a failure of the driver.
func useSkills(ctx context.Context, b *mcpbridge.Bridge, scenario string) error {
	if !strings.HasPrefix(scenario, "sep-2640-") {
		return nil
	}
	skills, err := b.Skills(ctx, serverName)
	if err != nil {
		return err
	}
	fmt.Printf("skills: %d listed\n", len(skills))
	if !strings.HasPrefix(scenario, "sep-2640-client-verify") || len(skills) == 0 {
		return nil // listed, never used: nothing is read
	}
	s := skills[0]
	if _, err := b.ReadSkill(ctx, serverName, s.URI); err != nil {
		if errors.Is(err, mcpbridge.ErrSkillVerification) {
			fmt.Println("skill refused:", err)
			return nil
		}
		return err
	}
	for _, f := range s.Files {
		if f == s.URI {
			continue
		}
		if _, err := b.ReadSkill(ctx, serverName, f); err != nil {
			return err
		}
	}
	return nil
}

// serverStatus returns the status of the one server.
func serverStatus(b *mcpbridge.Bridge) mcpbridge.ServerStatus {
	for _, s := range b.Status().Servers {
		if s.Name == serverName {
			return s
		}
	}
	return mcpbridge.ServerStatus{}
}

// clientMetadataURL is the Client ID Metadata Document the conformance
// scenarios expect a client to name.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// settingsFor returns the settings document of the scenario: the server,
// trusted so its tools run without confirmation, with the oauth block the
// scenario's context calls for, in the keys a user would write.
func settingsFor(serverURL, scenario, scenarioContext string) ([]byte, error) {
	server := map[string]any{"httpUrl": serverURL, "trust": true}
	sc := map[string]string{}
	if scenarioContext != "" {
		var raw map[string]any
		if err := json.Unmarshal([]byte(scenarioContext), &raw); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
		for k, v := range raw {
			if s, ok := v.(string); ok {
				sc[k] = s
			}
		}
	}
	oauth := map[string]any{"enabled": true, "clientMetadataUrl": clientMetadataURL}
	set := func(key, ctxKey string) {
		if v, ok := sc[ctxKey]; ok {
			oauth[key] = v
		}
	}
	set("clientId", "client_id")
	set("clientSecret", "client_secret")
	switch {
	case sc["private_key_pem"] != "":
		oauth["grantType"] = "client_credentials"
		set("privateKey", "private_key_pem")
		set("signingAlgorithm", "signing_algorithm")
	case sc["valid_jwt"] != "":
		// Workload identity: the platform's token for this workload.
		oauth["grantType"] = "jwt_bearer"
		set("assertion", "valid_jwt")
	case sc["idp_id_token"] != "":
		oauth["grantType"] = "enterprise"
		set("idToken", "idp_id_token")
		set("idpClientId", "idp_client_id")
		set("idpTokenUrl", "idp_token_endpoint")
	case strings.HasPrefix(scenario, "auth/client-credentials"):
		oauth["grantType"] = "client_credentials"
	}
	server["oauth"] = oauth
	return json.Marshal(map[string]any{"mcpServers": map[string]any{serverName: server}})
}

// call is one function call the driver makes, as the model would.
type call struct {
	name string // the function name the Bridge registered
	args map[string]any
}

// callsFor returns the calls the scenario asks of a host: those its
// context lists (by the server's tool names), or the scenario's own, or
// one call of every tool with the arguments it expects.
func callsFor(b *mcpbridge.Bridge, scenario, scenarioContext string) []call {
	byTool := map[string]*mcpbridge.Tool{}
	for _, t := range b.Tools() {
		byTool[t.ServerTool] = t
	}
	var sc struct {
		ToolCalls []struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"toolCalls"`
	}
	_ = json.Unmarshal([]byte(scenarioContext), &sc)
	var calls []call
	if len(sc.ToolCalls) > 0 {
		for _, c := range sc.ToolCalls {
			if t, ok := byTool[c.Name]; ok {
				calls = append(calls, call{t.Name, c.Arguments})
			}
		}
		return calls
	}
	switch scenario {
	case "json-schema-ref-no-deref":
		// Listing is the whole scenario: nothing may fetch the schema's
		// network reference.
		return nil
	case "json-schema-2020-12-preservation":
		// The echo tool is given the focal tool's input schema as the
		// server sent it.
		focal, ok := byTool["json_schema_2020_12_tool"]
		echo, ok2 := byTool["json_schema_echo"]
		if !ok || !ok2 {
			return nil
		}
		var schema map[string]any
		if json.Unmarshal(focal.InputSchema(), &schema) != nil {
			return nil
		}
		return []call{{echo.Name, map[string]any{"schema": schema}}}
	}
	for _, t := range b.Tools() {
		calls = append(calls, call{t.Name, argsFor(t.ServerTool)})
	}
	return calls
}

// argsFor returns the arguments the scenarios' tools expect.
func argsFor(tool string) map[string]any {
	switch tool {
	case "add_numbers":
		return map[string]any{"a": 2, "b": 3}
	case "valid_tool":
		return map[string]any{"region": "us-west1"}
	}
	return map[string]any{}
}

// followLogin plays the person at the browser: it requests the
// authorization URL and follows the redirects, the last of which lands on
// the Bridge's loopback listener.
func followLogin(ctx context.Context, _, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("authorization URL: %s", resp.Status)
	}
	return nil
}

// acceptEmpty accepts every question without filling in anything, as a
// person who leaves every field as it is: the library fills in the
// defaults of the requested schema (SEP-1034), which is what the suite's
// elicitation scenario checks.
func acceptEmpty(context.Context, elicit.Request) (elicit.Response, error) {
	return elicit.Response{Action: elicit.Accept}, nil
}
