package mcpbridge

import (
	"fmt"

	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
)

// EnvPolicy says which of the parent's environment variables a stdio server
// inherits. The zero value is [EnvWithholdSecrets].
type EnvPolicy int

const (
	// EnvWithholdSecrets passes the parent environment minus every variable
	// that looks secret, by its value (a private key; a token with a
	// well-known prefix such as "ghp_", "sk-" or "AKIA"; a JSON Web Token;
	// a URL with a password or a secret-looking query parameter; a DSN with
	// a password; a webhook URL) or by its name (split at '_', '-', '.'
	// and case changes, it contains TOKEN, SECRET, PASSWORD, PASSWD,
	// PASSPHRASE, CREDENTIAL, APIKEY or PRIVATEKEY, or has a part KEY,
	// KEYS, AUTH, OAUTH, AUTHORIZATION, CREDS, PRIVATE, SESSION, COOKIE,
	// COOKIES, PAT, PASS or BEARER, or a part PWD among others). The
	// variables a process needs to run (PATH, HOME, USER, LOGNAME, SHELL,
	// TERM, LANG, LANGUAGE, TZ, TMPDIR, TMP, TEMP, PWD,
	// DBUS_SESSION_BUS_ADDRESS, LC_* and XDG_*) always pass. The rule errs
	// on the side of withholding; a withheld variable a server needs can be
	// given to it through [ServerConfig.Env], which always wins.
	EnvWithholdSecrets EnvPolicy = iota
	// EnvPassAll passes the parent environment unchanged.
	EnvPassAll
)

// String returns "withhold-secrets" or "pass-all".
func (p EnvPolicy) String() string {
	switch p {
	case EnvWithholdSecrets:
		return "withhold-secrets"
	case EnvPassAll:
		return "pass-all"
	}
	return fmt.Sprintf("EnvPolicy(%d)", int(p))
}

// childEnv returns the environment for the server's process, as
// "NAME=value" entries sorted by name, given the parent's environment (as
// from [os.Environ]): the parent's variables, minus those that look secret
// unless policy is [EnvPassAll], plus s.Env, which always wins (the rule is
// documented on [EnvWithholdSecrets]). parent is not modified.
func (s ServerConfig) childEnv(parent []string, policy EnvPolicy) []string {
	return secrets.ChildEnv(parent, s.Env, policy != EnvPassAll)
}
