package secrets

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// ChildEnv returns the environment for a server's process, as "NAME=value"
// entries sorted by name, given the parent's environment (as from
// [os.Environ]) and the variables configured for the server. Neither
// parent nor configured is modified.
//
// The child gets the parent's variables, minus those that look secret when
// withhold is true, plus configured, which always wins: a configured
// variable is passed even when its name looks secret, so
// "env": {"GITHUB_TOKEN": "$GITHUB_TOKEN"} is how a server is given one
// secret on purpose. Parent entries without '=' are dropped; when the parent
// holds a name twice, the later entry wins.
//
// A parent variable looks secret when its value looks like a credential (a
// PEM private key; a well-known token prefix such as "ghp_",
// "github_pat_", "glpat-", "xoxb-", "sk-", "sk_live_", "AKIA", "AIza"; a
// JSON Web Token; a URL with a password, such as a database, cache or
// proxy URL, or with a secret-looking query parameter; a DSN such as
// user:password@tcp(host); a connection string with a Password, Pwd,
// AccountKey or SharedAccessKey field; a Slack, Discord or similar webhook
// URL) or
// when its name does. Names are compared case-insensitively after splitting them into
// parts at '_', '-', '.' and lower-to-upper case changes ("apiKey" is "api",
// "key"). A name looks secret when
//
//   - it contains TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL,
//     APIKEY, PRIVATEKEY, JWT, CONNECTIONSTRING or CONNSTR anywhere
//     (GITHUBTOKEN, DB_PASSWORD_FILE, CI_JOB_JWT, CONNECTION_STRING), or
//   - one of its parts is exactly KEY, KEYS, AUTH, OAUTH, AUTHORIZATION,
//     CREDS, PRIVATE, SESSION, COOKIE, COOKIES, PAT, PASS or BEARER
//     (API_KEY, SSH_AUTH_SOCK, GITHUB_PAT), or
//   - one of several parts is PWD (MYSQL_PWD; PWD alone is the working
//     directory),
//
// unless it is one of the variables a process needs to run at all, which are
// never withheld: PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG, LANGUAGE,
// TZ, TMPDIR, TMP, TEMP, PWD, DBUS_SESSION_BUS_ADDRESS and every name
// starting with LC_ or XDG_. Parts are whole words, so KEYBOARD_LAYOUT,
// AUTHOR, GNUPGHOME and MONKEY_PATCH pass. Certificate variables such as
// SSL_CERT_FILE pass too: they name public trust roots that TLS clients
// need. The rule errs on the side of withholding (TOKENIZERS_PARALLELISM
// is withheld too); a withheld variable the
// server needs can be passed through configured.
func ChildEnv(parent []string, configured map[string]string, withhold bool) []string {
	vars := make(map[string]string, len(parent)+len(configured))
	for _, kv := range parent {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if withhold && (secretName(name) || credentialValue(value)) {
			delete(vars, name) // an earlier harmless duplicate must not survive
			continue
		}
		vars[name] = value
	}
	for name, value := range configured {
		vars[name] = value
	}
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	slices.Sort(names)
	env := make([]string, len(names))
	for i, name := range names {
		env[i] = name + "=" + vars[name]
	}
	return env
}

// secretSubstrings are name fragments that mark a secret wherever they occur.
var secretSubstrings = []string{
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
	"APIKEY", "PRIVATEKEY", "JWT", "CONNECTIONSTRING", "CONNSTR",
}

// secretParts are name parts that mark a secret only as a whole part.
var secretParts = map[string]bool{
	"KEY": true, "KEYS": true, "AUTH": true, "OAUTH": true,
	"AUTHORIZATION": true, "CREDS": true, "PRIVATE": true, "SESSION": true,
	"COOKIE": true, "COOKIES": true, "PAT": true, "PASS": true, "BEARER": true,
}

// alwaysPassed are variables a process needs to run; never withheld.
var alwaysPassed = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"TERM": true, "LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true,
	"TMP": true, "TEMP": true, "PWD": true, "DBUS_SESSION_BUS_ADDRESS": true,
}

// secretName reports whether an environment variable, flag, header or
// query-parameter name looks like it holds a secret, by the rule documented
// on [ChildEnv].
func secretName(name string) bool {
	upper := strings.ToUpper(name)
	if alwaysPassed[upper] || strings.HasPrefix(upper, "LC_") || strings.HasPrefix(upper, "XDG_") {
		return false
	}
	parts := nameParts(name)
	joined := strings.Join(parts, "")
	for _, sub := range secretSubstrings {
		if strings.Contains(joined, sub) {
			return true
		}
	}
	for _, p := range parts {
		if secretParts[p] || p == "PWD" && len(parts) > 1 {
			return true
		}
	}
	return false
}

// nameParts splits name at non-alphanumeric characters and at lower-to-upper
// case changes, and upper-cases every part.
func nameParts(name string) []string {
	var parts []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, strings.ToUpper(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return parts
}

// tokenPrefixes are prefixes of well-known credential formats, each with the
// minimum length of a whole token so short ordinary words do not match.
var tokenPrefixes = []struct {
	prefix string
	minLen int
	upper  bool // the whole token is upper-case letters and digits
}{
	{"ghp_", 20, false}, {"gho_", 20, false}, {"ghu_", 20, false},
	{"ghs_", 20, false}, {"ghr_", 20, false}, {"github_pat_", 30, false},
	{"glpat-", 20, false}, {"xoxb-", 20, false}, {"xoxp-", 20, false},
	{"xoxa-", 20, false}, {"sk-", 11, false}, {"AIza", 35, false},
	{"AKIA", 20, true}, {"ASIA", 20, true},
	{"sk_live_", 20, false}, {"sk_test_", 20, false}, {"rk_live_", 20, false},
	{"xoxs-", 20, false}, {"xapp-", 20, false}, {"ya29.", 30, false},
	{"npm_", 30, false}, {"pypi-", 40, false}, {"hf_", 30, false},
	{"glptt-", 20, false}, {"shpat_", 30, false}, {"dop_v1_", 30, false},
}

// secretValue reports whether value looks like a credential by its shape.
func secretValue(value string) bool {
	if strings.Contains(value, "-----BEGIN") && strings.Contains(value, "PRIVATE KEY") {
		return true
	}
	for _, t := range tokenPrefixes {
		if len(value) < t.minLen || !strings.HasPrefix(value, t.prefix) || strings.ContainsAny(value, " \t\n/") {
			continue
		}
		if len(value) < 20 && !strings.ContainsAny(value, "0123456789") {
			continue // a short one must hold a digit: "sk-learn-extras" is a word
		}
		if !t.upper || strings.IndexFunc(value, func(r rune) bool {
			return (r < 'A' || r > 'Z') && (r < '0' || r > '9')
		}) < 0 {
			return true
		}
	}
	return false
}

// connStringPattern is a secret field of a connection string, as in
// "Server=h;User Id=u;Password=p" or Azure's "...;AccountKey=k".
var connStringPattern = regexp.MustCompile(`(?i)(?:^|;)\s*(?:password|pwd|accountkey|sharedaccesskey|sharedaccesssignature)\s*=\s*[^;\s]`)

// webhookHosts are hosts whose URLs are credentials in themselves.
var webhookHosts = []string{"hooks.slack.com", "discord.com/api/webhooks", "discordapp.com/api/webhooks",
	"outlook.office.com/webhook", ".webhook.office.com", "hooks.zapier.com", "api.telegram.org/bot"}

// credentialValue reports whether an environment value carries a
// credential: by its shape (see secretValue), as a JSON Web Token, as a URL
// with a password or a secret-looking query parameter, as a DSN with a
// password, or as a webhook URL.
func credentialValue(v string) bool {
	if secretValue(v) || jwtPattern.MatchString(v) || dsnPattern.MatchString(v) || connStringPattern.MatchString(v) {
		return true
	}
	if !strings.Contains(v, "://") {
		return false
	}
	lower := strings.ToLower(v)
	for _, h := range webhookHosts {
		if strings.Contains(lower, h) {
			return true
		}
	}
	for _, field := range strings.Fields(v) { // NO_PROXY-like lists hold several
		for _, u := range strings.Split(field, ",") {
			if redactURL(u) != u {
				return true
			}
		}
	}
	return false
}

// HostSecrets returns the credentials in the host program's own
// environment (as from [os.Environ]), the ones [ChildEnv] withholds from a
// child: the value of a variable whose value looks like a credential (for
// a URL, its password and secret query values), and the value of a
// variable whose name looks secret when it is 8 bytes or longer, holds no
// space and is no path or URL. A short flag under a secret-looking name
// (TOKENIZERS_PARALLELISM=false) is no credential, and hiding "false"
// wherever it appears would break what is sent. environ is not modified.
func HostSecrets(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || value == "" {
			continue
		}
		switch {
		case strings.Contains(value, "://") && credentialValue(value):
			out = append(out, urlSecrets(value)...)
		case credentialValue(value):
			out = append(out, value)
		case secretName(name) && len(value) >= 8 && !strings.ContainsAny(value, " \t\n") && !strings.Contains(value, "://") &&
			!strings.HasPrefix(value, "/") && !strings.HasPrefix(value, "~") && !strings.HasPrefix(value, ".") &&
			!(len(value) > 2 && value[1] == ':' && (value[2] == '\\' || value[2] == '/')):
			out = append(out, value)
		}
	}
	return out
}
