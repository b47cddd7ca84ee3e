package secrets

// What a server's command line shows: the arguments that carry secrets
// (flags, headers, assignments) hidden by name and shape.

import (
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/mcpgenai/bridge/mcpbridge/internal/expand"
)

// CommandLine returns command and args joined by spaces for display, with
// arguments quoted (Go syntax) when they are empty or hold spaces or quotes,
// and with secrets replaced by [Redacted]:
//
//   - the argument after a flag whose name looks secret (--token,
//     --api-key, --password, --secret, --auth, --bearer, --key ...),
//     unless that argument starts with "--" or the flag starts with
//     "--no-";
//   - the argument after -p unless it is a number (a port);
//   - the password in the argument after -u or --user ("user:***");
//   - the value in --flag=value and NAME=value when the name looks secret;
//   - the value in "Name: value" when Name is a secret-looking header, also
//     as the value of a flag ("--header=X-Api-Key: ***");
//   - an argument equal to a configured secret, and configured secrets,
//     URL credentials, DSN passwords and tokens inside any argument (see
//     [Redactor.Text]).
//
// args is not modified.
func (r *Redactor) CommandLine(command string, args []string) string {
	words := []string{displayWord(r.Text(command))}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var w string
		name, value, hasEq := strings.Cut(a, "=")
		switch {
		case r.known(a):
			w = Redacted
		case isFlag(a) && attachedValue(command, a):
			w, _, _ = argValue(command, a)
		case hasEq && (secretFlag(name) || expand.ValidName(name) && secretName(name)):
			w = name + "=" + Redacted
		case secretHeaderLine(a):
			w = redactHeaderLine(a)
		case hasEq && isFlag(name) && secretHeaderLine(value):
			w = name + "=" + redactHeaderLine(value)
		case i+1 < len(args):
			if shown, _, ok := flagValue(command, a, args[i+1]); ok {
				words = append(words, a)
				w = shown
				i++
				break
			}
			w = r.Text(a)
		default:
			w = r.Text(a)
		}
		words = append(words, displayWord(w))
	}
	return strings.Join(words, " ")
}

// flagValue reports whether next, the argument after flag, holds a secret,
// and returns how to show next and the secret itself. command is the
// server's command.
func flagValue(command, flag, next string) (shown, secret string, ok bool) {
	switch {
	case secretFlag(flag) && !strings.HasPrefix(next, "--"):
		return Redacted, next, true
	case flag == "-p" && next != "" && !isNumber(next) && !strings.HasPrefix(next, "-"):
		return Redacted, next, true
	case flag == "-a" && redisCLI(command) && next != "" && !strings.HasPrefix(next, "-"):
		return Redacted, next, true
	case flag == "-u" || flag == "--user":
		if user, pw, found := strings.Cut(next, ":"); found && pw != "" {
			return user + ":" + Redacted, pw, true
		}
	}
	return "", "", false
}

// attachedValue reports whether arg, a flag, carries a secret in itself:
// --user=user:password, -uuser:password, or mysql's -pPASSWORD.
func attachedValue(command, arg string) bool {
	_, _, ok := argValue(command, arg)
	return ok
}

// argValue returns how to show arg, a flag carrying a secret in itself (see
// attachedValue), and the secret.
func argValue(command, arg string) (shown, secret string, ok bool) {
	if v, found := strings.CutPrefix(arg, "--user="); found {
		if user, pw, hasPw := strings.Cut(v, ":"); hasPw && pw != "" {
			return "--user=" + user + ":" + Redacted, pw, true
		}
	}
	if v, found := strings.CutPrefix(arg, "-u"); found && !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "=") {
		if user, pw, hasPw := strings.Cut(v, ":"); hasPw && pw != "" && !strings.ContainsAny(user, "/=") && !isNumber(pw) {
			return "-u" + user + ":" + Redacted, pw, true
		}
	}
	if v, found := strings.CutPrefix(arg, "-p"); found && v != "" && mysqlCLI(command) && !strings.HasPrefix(v, "-") {
		return "-p" + Redacted, v, true
	}
	return "", "", false
}

// commandName returns the base name of command, without a Windows ".exe".
func commandName(command string) string {
	if i := strings.LastIndexAny(command, `/\`); i >= 0 {
		command = command[i+1:]
	}
	return strings.TrimSuffix(strings.ToLower(command), ".exe")
}

// redisCLI reports whether command is redis-cli or a client of its family,
// whose -a takes a password.
func redisCLI(command string) bool {
	switch commandName(command) {
	case "redis-cli", "valkey-cli", "keydb-cli":
		return true
	}
	return false
}

// mysqlCLI reports whether command is a MySQL or MariaDB client, whose
// -pPASSWORD carries the password attached.
func mysqlCLI(command string) bool {
	name := commandName(command)
	return strings.HasPrefix(name, "mysql") || strings.HasPrefix(name, "mariadb")
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// secretHeaderLine reports whether s is "Name: value" with a secret-looking
// header name and a value.
func secretHeaderLine(s string) bool {
	header, value, ok := strings.Cut(s, ":")
	return ok && httpguts.ValidHeaderFieldName(header) && secretHeader(header) && !strings.HasPrefix(value, "//") && strings.TrimSpace(value) != ""
}

func redactHeaderLine(s string) string {
	header, _, _ := strings.Cut(s, ":")
	return header + ": " + Redacted
}

// known reports whether s equals a configured secret.
func (r *Redactor) known(s string) bool {
	if s == "" {
		return false
	}
	for _, p := range r.each() {
		if _, ok := slices.BinarySearchFunc(p.secrets, s, bySize); ok {
			return true
		}
	}
	return false
}

func isFlag(s string) bool { return len(s) > 1 && s[0] == '-' }

// secretFlag reports whether s is a flag whose name looks secret.
func secretFlag(s string) bool {
	if !isFlag(s) {
		return false
	}
	name := strings.TrimLeft(s, "-")
	switch strings.ToLower(name) {
	case "pwd", "pw", "pass":
		return true
	}
	return !strings.HasPrefix(name, "no-") && secretName(name)
}

func secretHeader(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	return secretName(name)
}

// displayWord quotes w when it would otherwise be misread as several words.
func displayWord(w string) string {
	if w == "" || strings.ContainsAny(w, " \t\n\"'\\") {
		return strconv.Quote(w)
	}
	return w
}
