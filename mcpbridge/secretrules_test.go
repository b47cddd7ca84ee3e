package mcpbridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestStatusHidesMoreSecrets: credentials in command lines (--pwd, --user=,
// redis-cli -a, mysql -pX, short sk- keys), in query parameters under other
// names (jwt, authkey, accesskey, session IDs) and in URL passwords holding
// '#' or '?' (URLs in arguments; the configuration refuses such a server
// URL) stay out of the status and the logs of servers that fail.
func TestStatusHidesMoreSecrets(t *testing.T) {
	secretsOf := []string{"redisPw9x", "MyPw123x", "pwdSecret1", "userPw7x", "sk-abc123def4",
		"aaaa.bbbb.cccc", "akey1zz", "xkey2zz", "sess3zz", "pa#ss9", "w0?rd1"}
	servers := []ServerConfig{
		{Name: "redis", Command: "redis-cli", Args: []string{"-h", "127.0.0.1", "-a", "redisPw9x"}, Timeout: 5 * time.Second},
		{Name: "mysql", Command: "/usr/bin/mysql", Args: []string{"-uroot", "-pMyPw123x"}, Timeout: 5 * time.Second},
		{Name: "srv", Command: "no-such-mcp-server", Args: []string{"--pwd", "pwdSecret1", "--user=me:userPw7x", "sk-abc123def4"}, Timeout: 5 * time.Second},
		{Name: "query", HTTPURL: "http://127.0.0.1:1/mcp?jwt=aaaa.bbbb.cccc&authkey=akey1zz&accesskey=xkey2zz&sessionid=sess3zz&page=2", Timeout: 5 * time.Second},
		{Name: "urls", Command: "no-such-mcp-server", Args: []string{"--db", "postgres://user:pa#ss9@db/app", "redis://:w0?rd1@cache:6379"},
			Env: map[string]string{"UPSTREAM": "https://user:pa#ss9@up.example/x"}, Timeout: 5 * time.Second},
	}
	var e exits
	b := newBridge(t, &Options{Logger: e.logger(), ReconnectInterval: -1}, servers...)
	stop := e.watch(b)
	e.status(b) // before discovery: the configuration as written
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e.err("Discover", b.Discover(ctx))
	e.status(b)
	_ = b.Close()
	stop()
	for _, l := range e.leaks(secretsOf...) {
		t.Errorf("secret leaked: %s", l)
	}
	st := b.Status()
	byName := map[string]ServerStatus{}
	for _, s := range st.Servers {
		byName[s.Name] = s
	}
	for name, want := range map[string]string{
		"redis": "redis-cli -h 127.0.0.1 -a ***",
		"mysql": "/usr/bin/mysql -uroot -p***",
		"srv":   "no-such-mcp-server --pwd *** --user=me:*** ***",
		"urls":  "no-such-mcp-server --db postgres://***@db/app redis://***@cache:6379",
	} {
		if got := byName[name].Command; got != want {
			t.Errorf("Status %s Command = %q, want %q", name, got, want)
		}
	}
	for name, want := range map[string]string{
		"query": "http://127.0.0.1:1/mcp?jwt=***&authkey=***&accesskey=***&sessionid=***&page=2",
	} {
		if got := byName[name].URL; got != want {
			t.Errorf("Status %s URL = %q, want %q", name, got, want)
		}
	}
}

// TestChildEnvWithholdsCITokens: a stdio server does not receive the CI
// job's tokens or connection strings from the host's environment.
func TestChildEnvWithholdsCITokens(t *testing.T) {
	vars := map[string]string{
		"CI_JOB_JWT":                      "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln",
		"CI_JOB_JWT_V2":                   "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ5In0.c2ln",
		"CONNECTION_STRING":               "Server=db;Database=app;User Id=sa;Password=Pw0rd!",
		"AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=a2V5",
		"APP_DATABASE":                    "Server=db;Pwd=Pw0rd2;",
		"MCPBRIDGE_TEST_PLAIN":            "visible",
	}
	for k, v := range vars {
		t.Setenv(k, v)
	}
	cfg := stdioServer("s")
	cfg.Trust = true
	b := newBridge(t, nil, cfg)
	discover(t, b)
	for name := range vars {
		r, err := call(t, b, "s", "env", map[string]any{"var": name})
		if err != nil {
			t.Fatalf("env %s: %v", name, err)
		}
		var got struct {
			Set bool `json:"set"`
		}
		if err := json.Unmarshal([]byte(r), &got); err != nil {
			t.Fatalf("env %s = %s: %v", name, r, err)
		}
		if want := name == "MCPBRIDGE_TEST_PLAIN"; got.Set != want {
			t.Errorf("the server sees %s: %v, want %v", name, got.Set, want)
		}
		if strings.Contains(r, "Pw0rd") {
			t.Errorf("env %s = %s, holds a password", name, r)
		}
	}
}
