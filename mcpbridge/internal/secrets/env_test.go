package secrets

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSecretName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"GITHUB_TOKEN", true},
		{"GITHUBTOKEN", true},
		{"API_KEY", true},
		{"OPENAI_API_KEY", true},
		{"apiKey", true},
		{"openaiApiKey", true},
		{"x-api-key", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"AWS_SESSION_TOKEN", true},
		{"DB_PASSWORD", true},
		{"PGPASSWORD", true},
		{"MYSQL_PWD", true},
		{"SMTP_PASSWD", true},
		{"GPG_PASSPHRASE", true},
		{"SSH_AUTH_SOCK", true},
		{"NPM_CONFIG__AUTH", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", true},
		{"DOCKER_CREDS", true},
		{"GITHUB_PAT", true},
		{"SESSION_ID", true},
		{"COOKIE_JAR", true},
		{"PRIVATE_KEY_PATH", true},
		{"SIGNING_KEYS", true},
		{"oauth_client", true},
		{"github.token", true},
		{"PATH", false},
		{"HOME", false},
		{"PWD", false},
		{"OLDPWD", false},
		{"USER", false},
		{"SHELL", false},
		{"LANG", false},
		{"LC_ALL", false},
		{"TMPDIR", false},
		{"XDG_SESSION_TYPE", false},
		{"XDG_RUNTIME_DIR", false},
		{"DBUS_SESSION_BUS_ADDRESS", false},
		{"KEYBOARD_LAYOUT", false},
		{"AUTHOR_NAME", false},
		{"GNUPGHOME", false},
		{"MONKEY_PATCH", false},
		{"SSL_CERT_FILE", false},
		{"GOPATH", false},
		{"NODE_OPTIONS", false},
		{"DATABASE_URL", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := secretName(tt.name); got != tt.want {
				t.Errorf("secretName(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

func TestSecretValue(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  bool
	}{
		{"github classic", "ghp_" + strings.Repeat("a1", 18), true},
		{"github fine-grained", "github_pat_" + strings.Repeat("B2", 20), true},
		{"gitlab", "glpat-" + strings.Repeat("x", 20), true},
		{"slack bot", "xoxb-1234-5678-abcdefghijkl", true},
		{"openai", "sk-" + strings.Repeat("Z", 40), true},
		{"aws access key id", "AKIAIOSFODNN7EXAMPLE", true},
		{"google api key", "AIza" + strings.Repeat("q", 35), true},
		{"pem", "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n", true},
		{"aws prefix but lower case", "AKIAiosfodnn7example", false},
		{"too short", "ghp_abc", false},
		{"prefix inside a path", "sk-" + strings.Repeat("a", 20) + "/x", false},
		{"public certificate", "-----BEGIN CERTIFICATE-----", false},
		{"path", "/usr/local/bin", false},
		{"word", "ASIAN_FOOD_IS_GREAT_AND_TASTY", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := secretValue(tt.value); got != tt.want {
				t.Errorf("secretValue(%q) = %v, want %v", tt.value, got, tt.want)
			}
		})
	}
}

func TestChildEnv(t *testing.T) {
	ghp := "ghp_" + strings.Repeat("x", 36)
	parent := []string{
		"PATH=/usr/bin",
		"HOME=/home/u",
		"GITHUB_TOKEN=gh-secret",
		"API_KEY=parent-key",
		"HARMLESS_NAME=" + ghp,
		"FOO=first",
		"FOO=second",
		"DUP=plain",
		"DUP=" + ghp,
		"NOEQUALS",
		"=nameless",
		"KEYBOARD=us",
		"EMPTY=",
	}
	orig := slices.Clone(parent)
	configured := map[string]string{
		"API_KEY": "configured-key", // configured beats withheld
		"PATH":    "/opt/bin",       // configured beats inherited
		"NEW":     "1",
	}
	tests := []struct {
		name       string
		configured map[string]string
		withhold   bool
		want       []string
	}{
		{
			name:       "withhold secrets",
			configured: configured,
			withhold:   true,
			want: []string{
				"API_KEY=configured-key", "EMPTY=", "FOO=second", "HOME=/home/u",
				"KEYBOARD=us", "NEW=1", "PATH=/opt/bin",
			},
		},
		{
			name:       "pass all",
			configured: configured,
			withhold:   false,
			want: []string{
				"API_KEY=configured-key", "DUP=" + ghp, "EMPTY=", "FOO=second",
				"GITHUB_TOKEN=gh-secret", "HARMLESS_NAME=" + ghp, "HOME=/home/u",
				"KEYBOARD=us", "NEW=1", "PATH=/opt/bin",
			},
		},
		{
			name:     "no configured env",
			withhold: true,
			want:     []string{"EMPTY=", "FOO=second", "HOME=/home/u", "KEYBOARD=us", "PATH=/usr/bin"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChildEnv(parent, tt.configured, tt.withhold)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ChildEnv(withhold=%v) (-want +got):\n%s", tt.withhold, diff)
			}
		})
	}
	if diff := cmp.Diff(orig, parent); diff != "" {
		t.Errorf("ChildEnv modified parent (-want +got):\n%s", diff)
	}
}

func TestChildEnvNilParent(t *testing.T) {
	got := ChildEnv(nil, map[string]string{"B": "2", "A": "1"}, true)
	if want := []string{"A=1", "B=2"}; !slices.Equal(got, want) {
		t.Errorf("ChildEnv(nil) = %q, want %q", got, want)
	}
}

// TestChildEnvCredentialValues: values that carry credentials under
// innocent names are withheld; ordinary URLs and values pass.
func TestChildEnvCredentialValues(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	parent := []string{
		"DATABASE_URL=postgres://app:dbpass99@db:5432/app",
		"REDIS_URL=redis://:cachepw@cache:6379/0",
		"MYSQL_DSN=app:pw9@tcp(localhost:3306)/x",
		"HTTPS_PROXY=http://me:proxypw@proxy:3128",
		"SLACK_HOOK=https://hooks.slack.com/services/T000/B000/XXXXXXXX",
		"SESSION_JWT_X=" + jwt,
		"STRIPE=sk_live_" + strings.Repeat("a1", 12),
		"SIGNED=https://bucket/x?X-Amz-Signature=abc&X-Amz-Date=1",
		"PLAIN_URL=https://example.com/docs?page=2",
		"NO_PROXY=localhost,127.0.0.1",
		"HTTP_PROXY=http://proxy:3128",
		"MODE=production",
	}
	got := ChildEnv(parent, nil, true)
	want := []string{"HTTP_PROXY=http://proxy:3128", "MODE=production", "NO_PROXY=localhost,127.0.0.1", "PLAIN_URL=https://example.com/docs?page=2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ChildEnv() (-want +got):\n%s", diff)
	}
}

func ExampleChildEnv() {
	parent := []string{"PATH=/usr/bin", "HOME=/home/me", "GITHUB_TOKEN=secret", "OPENAI_API_KEY=secret"}
	configured := map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "given-on-purpose"}
	for _, kv := range ChildEnv(parent, configured, true) {
		fmt.Println(kv)
	}
	// Output:
	// GITHUB_PERSONAL_ACCESS_TOKEN=given-on-purpose
	// HOME=/home/me
	// PATH=/usr/bin
}

func TestHostSecrets(t *testing.T) {
	env := []string{
		"GEMINI_API_KEY=AIzaSyA-not-a-real-key-0123456789abcd",
		"GOOGLE_API_KEY=plainlettersonly",
		"TOKENIZERS_PARALLELISM=false",
		"GOOGLE_APPLICATION_CREDENTIALS=/home/ada/.config/gcloud/adc.json",
		"DATABASE_URL=postgres://ada:hunter2pw@db.example/app",
		"SSH_AUTH_SOCK=/tmp/ssh-x/agent.1",
		"HOME=/home/ada",
		"REGION=us-central1",
		"GITHUB=ghp_0123456789abcdefghijklmnopqrstuvwxyz",
		"MALFORMED",
	}
	got := HostSecrets(env)
	want := []string{"AIzaSyA-not-a-real-key-0123456789abcd", "plainlettersonly", "hunter2pw", "ghp_0123456789abcdefghijklmnopqrstuvwxyz"}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("HostSecrets() = %q, want %q among them", got, w)
		}
	}
	for _, no := range []string{"false", "/home/ada/.config/gcloud/adc.json", "/tmp/ssh-x/agent.1", "/home/ada", "us-central1"} {
		if slices.Contains(got, no) {
			t.Errorf("HostSecrets() = %q, want %q left out", got, no)
		}
	}
}

// FuzzHostSecrets: on any environment entry, no panic; every credential
// found is in the entry's value, at least 4 bytes, and no short flag
// ("false") or path is taken for one.
func FuzzHostSecrets(f *testing.F) {
	for _, kv := range []string{"GEMINI_API_KEY=AIzaSyA-0123456789abcdefghijklmnopqrstuv", "TOKENIZERS_PARALLELISM=false", "DATABASE_URL=postgres://u:pw@h/db", "HOME=/root", "A_TOKEN=/run/secrets/x"} {
		f.Add(kv)
	}
	f.Fuzz(func(t *testing.T, kv string) {
		_, value, _ := strings.Cut(kv, "=")
		for _, s := range HostSecrets([]string{kv}) {
			if s == "" || !strings.Contains(value, s) && !strings.Contains(value, url.QueryEscape(s)) {
				t.Fatalf("HostSecrets(%q) = %q: not from the value", kv, s)
			}
			if s == "false" || s == "true" || strings.HasPrefix(s, "/") && !credentialValue(s) {
				t.Fatalf("HostSecrets(%q) = %q: a flag or a path", kv, s)
			}
		}
	})
}
