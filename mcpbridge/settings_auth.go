package mcpbridge

import (
	"maps"
	"slices"

	"github.com/mcpgenai/bridge/mcpbridge/internal/jsonc"
)

// oauth reads the oauth entry of a server. Gemini CLI's keys are read;
// unknown ones are warned about. Variables are expanded in every string
// value but the scopes and audiences.
func (p *settingsParser) oauth(s *ServerConfig, v any, off int) bool {
	m, isMap := v.(map[string]any)
	if !isMap {
		p.fail(off, s.Name, "oauth", "want object, got %s", jsonc.Kind(v))
		return false
	}
	o := &OAuthConfig{Enabled: true}
	// Every key but enabled is a string (expanded) or a list of strings.
	strs := map[string]*string{
		"clientId": &o.ClientID, "clientSecret": &o.ClientSecret,
		"authorizationUrl": &o.AuthorizationURL, "tokenUrl": &o.TokenURL,
		"registrationUrl": &o.RegistrationURL, "redirectUri": &o.RedirectURI,
		"tokenParamName": &o.TokenParamName,
		// mcpbridge's own keys (Gemini CLI has none for these).
		"clientMetadataUrl": &o.ClientMetadataURL, "grantType": &o.GrantType,
		"privateKey": &o.PrivateKey, "signingAlgorithm": &o.SigningAlgorithm,
		"idpTokenUrl": &o.IDPTokenURL, "idpClientId": &o.IDPClientID,
		"idpClientSecret": &o.IDPClientSecret, "idToken": &o.IDToken,
		"assertion": &o.Assertion, "assertionFile": &o.AssertionFile,
		"dpop": &o.DPoP, "dpopKey": &o.DPoPKey,
	}
	lists := map[string]*[]string{"scopes": &o.Scopes, "audiences": &o.Audiences}
	for _, key := range slices.Sorted(maps.Keys(m)) {
		field := "oauth." + key
		val := m[key]
		if val == nil {
			continue
		}
		ok := true
		switch {
		case key == "enabled":
			b, isBool := val.(bool)
			if !isBool {
				p.fail(off, s.Name, field, "want boolean, got %s", jsonc.Kind(val))
				return false
			}
			o.Enabled = b
		case strs[key] != nil:
			x, isString := val.(string)
			if !isString {
				p.fail(off, s.Name, field, "want string, got %s", jsonc.Kind(val))
				return false
			}
			*strs[key] = p.expand(x, s.Name, field, off)
		case lists[key] != nil:
			ok = p.strings(lists[key], val, s.Name, field, off, false)
		default:
			p.warnAt(off, "server %q: ignoring unknown key %q", s.Name, field)
		}
		if !ok {
			return false
		}
	}
	s.OAuth = o
	return true
}
