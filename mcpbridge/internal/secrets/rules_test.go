package secrets

import (
	"slices"
	"strings"
	"testing"
)

// TestCommandLineMoreFlags covers the command-line shapes found by trying
// the status as a hostile reader would.
func TestCommandLineMoreFlags(t *testing.T) {
	tests := []struct {
		name string
		cmd  string
		args []string
		want string
	}{
		{"--pwd value", "srv", []string{"--pwd", "hunter2"}, "srv --pwd ***"},
		{"--pwd=value", "srv", []string{"--pwd=hunter2"}, "srv --pwd=***"},
		{"--user=user:pass", "curl", []string{"--user=me:pa55"}, "curl --user=me:***"},
		{"-uuser:pass", "curl", []string{"-ume:pa55"}, "curl -ume:***"},
		{"-u... that is no user", "srv", []string{"-upstream=localhost:8080", "-url:8080"}, "srv -upstream=localhost:8080 -url:8080"},
		{"redis-cli -a", "redis-cli", []string{"-h", "db", "-a", "hunter2"}, "redis-cli -h db -a ***"},
		{"redis-cli by path", "/usr/bin/redis-cli", []string{"-a", "hunter2"}, "/usr/bin/redis-cli -a ***"},
		{"-a elsewhere is a flag", "ls", []string{"-a", "dir"}, "ls -a dir"},
		{"mysql -pX", "mysql", []string{"-uroot", "-phunter2", "db"}, "mysql -uroot -p*** db"},
		{"mysqldump -pX", "mysqldump", []string{"-pS3cret"}, "mysqldump -p***"},
		{"-pX elsewhere", "go", []string{"-parallel", "4"}, "go -parallel 4"},
		{"short sk- key", "srv", []string{"sk-abc123def4"}, "srv ***"},
		{"short sk- key in a flag", "srv", []string{"--model-key-x=sk-abc123def4"}, "srv --model-key-x=***"},
		{"sk- word", "pip", []string{"install", "sk-learn", "scikit-learn"}, "pip install sk-learn scikit-learn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r *Redactor
			if got := r.CommandLine(tt.cmd, tt.args); got != tt.want {
				t.Errorf("CommandLine(%q, %q) = %q, want %q", tt.cmd, tt.args, got, tt.want)
			}
			r = New(Config{Command: tt.cmd, Args: tt.args})
			if got := r.CommandLine(tt.cmd, tt.args); got != tt.want {
				t.Errorf("New(args).CommandLine(%q, %q) = %q, want %q", tt.cmd, tt.args, got, tt.want)
			}
		})
	}
}

// TestConfiguredFlagSecrets: the values the command-line rules hide are
// configured secrets, hidden in any text.
func TestConfiguredFlagSecrets(t *testing.T) {
	r := New(Config{Command: "redis-cli", Args: []string{"-a", "redisPw9", "--pwd", "pwdSecret", "--user=me:userPw7"}})
	got := r.Text("auth failed for redisPw9, pwdSecret and userPw7")
	for _, s := range []string{"redisPw9", "pwdSecret", "userPw7"} {
		if strings.Contains(got, s) {
			t.Errorf("Text(...) = %q, still holds %q", got, s)
		}
	}
	r = New(Config{Command: "mysql", Args: []string{"-pMyPw123"}})
	if got := r.Text("denied: MyPw123"); got != "denied: ***" {
		t.Errorf("Text = %q, want the -p password hidden", got)
	}
}

// TestURLMoreParams: query parameters that carry credentials under other
// names, and passwords holding '#' or '?'.
func TestURLMoreParams(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://h/x?jwt=aaaa.bbbb.cccc&page=2", "https://h/x?jwt=***&page=2"},
		{"https://h/x?sessionid=abc&sid=def&PHPSESSID=ghi&JSESSIONID=jkl", "https://h/x?sessionid=***&sid=***&PHPSESSID=***&JSESSIONID=***"},
		{"https://h/x?authkey=abc&accesskey=def&appkey=ghi&apikey=jkl", "https://h/x?authkey=***&accesskey=***&appkey=***&apikey=***"},
		{"https://h/x?monkey=1&page=2&lang=en", "https://h/x?monkey=1&page=2&lang=en"},
		{"https://user:pa#ss@host/x", "https://***@host/x"},
		{"https://user:pa?ss@host/x?a=1", "https://***@host/x?a=1"},
		{"https://user:p#a?s@host", "https://***@host"},
		{"https://host/x?next=a@b", "https://host/x?next=a@b"},
		{"https://host?x=a@b/c", "https://host?x=a@b/c"},
	}
	for _, tt := range tests {
		var r *Redactor
		if got := r.URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := r.Text("failed: " + tt.in + " (retrying)"); got != "failed: "+tt.want+" (retrying)" {
			t.Errorf("Text(%q) = %q, want the URL as %q", tt.in, got, tt.want)
		}
	}
}

// TestURLPasswordConfigured: a configured URL's password holding '#' or
// '?' is a configured secret, in its escaped forms too.
func TestURLPasswordConfigured(t *testing.T) {
	r := New(Config{URLs: []string{"https://user:pa#ss?w0rd@host/x"}})
	for _, s := range []string{"pa#ss?w0rd", "pa%23ss%3Fw0rd"} {
		if got := r.ReplaceConfigured("x " + s + " y"); got != "x *** y" {
			t.Errorf("ReplaceConfigured(%q) = %q, want it hidden", s, got)
		}
	}
}

// TestChildEnvMore: CI job tokens and connection strings are withheld.
func TestChildEnvMore(t *testing.T) {
	parent := []string{"CI_JOB_JWT=eyJx", "CI_JOB_JWT_V2=eyJy", "CONNECTION_STRING=Server=x;Password=y", "SQLCONNSTR_main=z",
		"AZURE_STORAGE_CONNECTION_STRING=a", "SENTRY_DSN=https://k@o.ingest.sentry.io/1", "APP_DB=Server=h;User Id=u;Pwd=p9;",
		"STORAGE=DefaultEndpointsProtocol=https;AccountName=a;AccountKey=k==", "KEEP=1", "JWT_ISSUER_X=2"}
	got := ChildEnv(parent, nil, true)
	want := []string{"KEEP=1"}
	if !slices.Equal(got, want) {
		t.Errorf("ChildEnv = %q, want %q", got, want)
	}
}
