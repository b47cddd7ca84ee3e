package secrets

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

var ghToken = "ghp_" + strings.Repeat("Ab1", 12)

func TestRedactorCommandLine(t *testing.T) {
	r := New(Config{
		Env: map[string]string{
			"API_KEY":      "env-secret-value",
			"SHORT_TOKEN":  "abc",
			"DATABASE_URL": "postgres://app:dbpass99@db/app",
			"DEBUG":        "true", // not secret: never redacted
		},
		Headers: map[string]string{"Authorization": "Bearer hdr-bearer-token", "Accept": "text/plain"},
	})
	tests := []struct {
		name string
		cmd  string
		args []string
		want string
	}{
		{"plain", "python", []string{"-m", "srv", "--port", "8080"}, "python -m srv --port 8080"},
		{"flag then value", "srv", []string{"--token", "t0k3n", "--verbose"}, "srv --token *** --verbose"},
		{"flag=value", "srv", []string{"--api-key=k3y", "--mode=fast"}, "srv --api-key=*** --mode=fast"},
		{"many secret flags", "srv", []string{"--password", "p", "--secret", "s", "--auth", "a", "-key", "k", "--client-secret", "c", "--access_token", "t"},
			"srv --password *** --secret *** --auth *** -key *** --client-secret *** --access_token ***"},
		{"flag followed by flag", "srv", []string{"--token", "--verbose"}, "srv --token --verbose"},
		{"flag at end", "srv", []string{"--token"}, "srv --token"},
		{"negated flag", "srv", []string{"--no-auth", "server.js"}, "srv --no-auth server.js"},
		{"port flag is not secret", "srv", []string{"-p", "8080", "--keyboard", "us"}, "srv -p 8080 --keyboard us"},
		{"docker env assignment", "docker", []string{"run", "-e", "API_KEY", "-e", "GITHUB_TOKEN=xyz", "-e", "MODE=dev"},
			"docker run -e API_KEY -e GITHUB_TOKEN=*** -e MODE=dev"},
		{"header argument", "curl", []string{"-H", "Authorization: Bearer abc", "-H", "Accept: json"}, `curl -H "Authorization: ***" -H "Accept: json"`},
		{"configured secret as argument", "srv", []string{"env-secret-value", "abc", "true"}, "srv *** *** true"},
		{"configured secret inside argument", "srv", []string{"--config=k:env-secret-value"}, "srv --config=k:***"},
		{"header line as a flag's value", "srv", []string{"--header=X-Api-Key: abc"}, `srv "--header=X-Api-Key: ***"`},
		{"-p password, -p port", "mysql", []string{"-p", "hunter2", "-P", "3306", "-p", "8080"}, "mysql -p *** -P 3306 -p 8080"},
		{"-u user:password", "curl", []string{"-u", "me:pa55", "-u", "justme"}, "curl -u me:*** -u justme"},
		{"--bearer", "srv", []string{"--bearer", "xyz", "--bearer-file", "f"}, "srv --bearer *** --bearer-file ***"},
		{"DSN", "srv", []string{"--db", "app:pw9@tcp(localhost:3306)/x", "root:pw8@db:5432"}, "srv --db app:***@tcp(localhost:3306)/x root:***@db:5432"},
		{"key prefixes", "srv", []string{"sk_live_" + strings.Repeat("a1", 10), "npm_" + strings.Repeat("Z9", 15)}, "srv *** ***"},
		{"unknown query value that looks like a key", "srv", []string{"https://h/x?k=a1b2c3d4e5&page=2"}, "srv https://h/x?k=***&page=2"},
		{"bearer credential alone", "srv", []string{"hdr-bearer-token"}, "srv ***"},
		{"password of a configured URL", "srv", []string{"dbpass99"}, "srv ***"},
		{"URL credentials and query", "srv", []string{"--endpoint", "https://u:p@h/x?api_key=1&q=go#access_token=z"},
			"srv --endpoint https://***@h/x?api_key=***&q=go#access_token=***"},
		{"token-shaped argument", "srv", []string{ghToken}, "srv ***"},
		{"quoting", "my tool", []string{"", "a b", `say "hi"`}, `"my tool" "" "a b" "say \"hi\""`},
		{"no args", "srv", nil, "srv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.CommandLine(tt.cmd, tt.args)
			if got != tt.want {
				t.Errorf("CommandLine(%q, %q) = %q, want %q", tt.cmd, tt.args, got, tt.want)
			}
		})
	}
}

func TestRedactorURL(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"http://localhost:3000/mcp", "http://localhost:3000/mcp"},
		{"https://user:pass@host/sse", "https://***@host/sse"},
		{"https://token@host", "https://***@host"},
		{"https://host/sse?token=abc&x=1&key=k&KEY=K", "https://host/sse?token=***&x=1&key=***&KEY=***"},
		{"https://host/?access_token=a&api_key=b&apiKey=c&secret=d&password=e&auth=f&sig=g&signature=h&code=i", "https://host/?access_token=***&api_key=***&apiKey=***&secret=***&password=***&auth=***&sig=***&signature=***&code=***"},
		{"https://s3/x?X-Amz-Credential=c&X-Amz-Signature=s&X-Amz-Date=d", "https://s3/x?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Date=d"},
		{"https://host/p?%74oken=abc", "https://host/p?%74oken=***"},
		{"https://host/p?flag&token", "https://host/p?flag&token"},
		{"https://host/cb#access_token=abc&state=s", "https://host/cb#access_token=***&state=s"},
		{"https://host/a@b/c", "https://host/a@b/c"},
		{"not a url", "not a url"},
		{"", ""},
	}
	var r *Redactor // nil works
	for _, tt := range tests {
		if got := r.URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := r.URL(r.URL(tt.in)); again != tt.want {
			t.Errorf("URL(URL(%q)) = %q, want %q (idempotent)", tt.in, again, tt.want)
		}
	}
}

func TestRedactorText(t *testing.T) {
	r := New(Config{
		Env:     map[string]string{"SERVICE_TOKEN": "svc-123456"},
		Headers: map[string]string{"X-Api-Key": "hdr-key-42"},
	})
	tests := []struct {
		name, in, want string
	}{
		{"plain", "connection refused", "connection refused"},
		{"configured env secret", "auth failed for svc-123456", "auth failed for ***"},
		{"configured header secret", "bad key hdr-key-42.", "bad key ***."},
		{"url in go error", `Get "https://u:pw@host/sse?token=abc": dial tcp: refused`, `Get "https://***@host/sse?token=***": dial tcp: refused`},
		{"bearer", "sent Authorization: Bearer abcdef123", "sent Authorization: Bearer ***"},
		{"assignment", "using api_key=zzz9 and mode=fast", "using api_key=*** and mode=fast"},
		{"token shape", "token " + ghToken + " rejected", "token *** rejected"},
		{"multi-line", "line1 svc-123456\nline2", "line1 ***\nline2"},
		{"JSON", `{"password": "p@ss w0rd", "user": "me", "apiKey":"k"}`, `{"password": "***", "user": "me", "apiKey":"***"}`},
		{"Python dict", `{'client_secret': 'abc', 'name': 'x'}`, `{'client_secret': '***', 'name': 'x'}`},
		{"quoted assignment", `export DB_PASSWORD='a b c' MODE="x" TOKEN="t t"`, `export DB_PASSWORD='***' MODE="x" TOKEN="***"`},
		{"colon form", "api_key: abc123\nX-Api-Key: zzz\nError: refused", "api_key: ***\nX-Api-Key: ***\nError: refused"},
		{"authorization header line", "Authorization: Bearer abcdef123", "Authorization: Bearer ***"},
		{"DSN", "dial app:s3cret@tcp(db:3306)/x failed; pg root:pw9@db.local:5432", "dial app:***@tcp(db:3306)/x failed; pg root:***@db.local:5432"},
		{"JWT", "got eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok", "got *** ok"},
		{"unknown query param", "GET https://h/x?sid=a1b2c3d4e5f6&page=10: 500", "GET https://h/x?sid=***&page=10: 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Text(tt.in)
			if got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := r.Text(got); again != got {
				t.Errorf("Text(Text(%q)) = %q, want %q (idempotent)", tt.in, again, got)
			}
		})
	}
}

func TestNewSecrets(t *testing.T) {
	r := New(Config{
		Env: map[string]string{
			"A_TOKEN": "aaaa", "B_TOKEN": "bbbbbbbb", "PLAIN": "visible-value",
			"HARMLESS": ghToken, "EMPTY_SECRET": "",
		},
		Headers: map[string]string{"Cookie": "sid=1", "Authorization": "Basic dXNlcjpwYXNz", "X-Trace": "trace-1"},
	})
	// Each secret in its forms (see Forms): "Basic dXNlcjpwYXNz" also
	// query-escaped, "sid=1" also escaped.
	want := []string{ghToken, "Basic%20dXNlcjpwYXNz", "Basic dXNlcjpwYXNz", "Basic+dXNlcjpwYXNz", "dXNlcjpwYXNz", "bbbbbbbb", "sid%3D1", "sid=1", "aaaa"}
	if strings.Join(r.secrets, "|") != strings.Join(want, "|") {
		t.Errorf("New secrets = %q, want %q", r.secrets, want)
	}
}

func FuzzRedactorText(f *testing.F) {
	for _, s := range []string{"https://u:p@h/x?token=1#code=2", "Bearer abcdef", "api_key=1", ghToken, "a=b&c", "http://@", "https://h?=&==",
		`{"password": "x\"y"}`, "KEY='v' token: t", "u:p@tcp(h)/d u:p@h:1", "eyJabcdefghij.eyJabcdefghij.abcdefghij"} {
		f.Add(s)
	}
	r := New(Config{Env: map[string]string{"TOKEN": "s3cr3t-value"}})
	f.Fuzz(func(t *testing.T, s string) {
		once := r.Text(s)
		if twice := r.Text(once); twice != once {
			t.Fatalf("Text not idempotent: %q -> %q -> %q", s, once, twice)
		}
		if strings.Contains(once, "s3cr3t-value") {
			t.Fatalf("Text(%q) = %q still holds the configured secret", s, once)
		}
	})
}

// TestNewConfigFields: every field of Config contributes its secrets.
func TestNewConfigFields(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"URL password and secret query", Config{URLs: []string{"", "https://me:urlpass@h/x?api_key=qk1&page=2"}}, []string{"urlpass", "qk1"}},
		{"argument after a secret flag", Config{Args: []string{"--token", "argtok", "--port", "8080"}}, []string{"argtok"}},
		{"client secret", Config{ClientSecret: "cs"}, []string{"cs"}},
		{"extra secrets, empty skipped", Config{Secrets: []string{"xs", ""}}, []string{"xs"}},
		{"zero", Config{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := New(tt.cfg).secrets; !slices.Equal(got, tt.want) {
				t.Errorf("New(%+v) secrets = %q, want %q", tt.cfg, got, tt.want)
			}
		})
	}
}

func TestJoinAndReplaceConfigured(t *testing.T) {
	a := New(Config{Secrets: []string{"alpha-secret"}})
	b := New(Config{Secrets: []string{"beta-secret", "abc"}})
	j := Join(a, nil, b)
	tests := []struct{ in, want string }{
		{"alpha-secret and beta-secret", "*** and ***"},
		{"abc is too short to replace inside text", "abc is too short to replace inside text"},
		{"api_key=visible stays: only configured secrets go", "api_key=visible stays: only configured secrets go"},
	}
	for _, tt := range tests {
		if got := j.ReplaceConfigured(tt.in); got != tt.want {
			t.Errorf("ReplaceConfigured(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if !j.HasConfigured() {
		t.Error("HasConfigured() = false, want true")
	}
	if New(Config{Secrets: []string{"abc"}}).HasConfigured() {
		t.Error("HasConfigured() with only a 3-byte secret = true, want false")
	}
	var nilR *Redactor
	if nilR.HasConfigured() || nilR.ReplaceConfigured("x") != "x" {
		t.Error("a nil Redactor replaced something")
	}
}

func TestExpanded(t *testing.T) {
	tests := []struct {
		name, value string
		want        []string
	}{
		{"GITHUB_TOKEN", "abc", []string{"abc"}},
		{"REGION", "us-central1", []string{"us-central1"}}, // shaped like a credential
		{"MODE", "production", nil},
		{"BASE_URL", "https://me:pw12@h/x?page=2", []string{"pw12"}},
		{"DB_PASSWORD_URL", "https://me:pw12@h/x", []string{"https://me:pw12@h/x"}},
		{"TOKEN", "", nil},
	}
	for _, tt := range tests {
		if got := Expanded(tt.name, tt.value); !slices.Equal(got, tt.want) {
			t.Errorf("Expanded(%q, %q) = %q, want %q", tt.name, tt.value, got, tt.want)
		}
	}
}

func ExampleRedactor_CommandLine() {
	r := New(Config{})
	fmt.Println(r.CommandLine("db-mcp", []string{"--dsn", "postgres://app:hunter22@db/app", "--api-key=k-123", "--readonly"}))
	// Output:
	// db-mcp --dsn postgres://***@db/app --api-key=*** --readonly
}
