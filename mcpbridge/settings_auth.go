package mcpbridge

import (
	"maps"
	"slices"
)

// oauth reads the oauth entry of a server. Gemini CLI's keys are read;
// unknown ones are warned about. Variables are expanded in every string
// value but the scopes and audiences.
func (p *settingsParser) oauth(s *ServerConfig, v any, off int) bool {
	m, isMap := v.(map[string]any)
	if !isMap {
		p.fail(off, s.Name, "oauth", "want object, got %s", valueKind(v))
		return false
	}
	o := &OAuthConfig{Enabled: true}
	for _, key := range slices.Sorted(maps.Keys(m)) {
		field := "oauth." + key
		val := m[key]
		if val == nil {
			continue
		}
		str := func(dst *string) bool {
			x, isString := val.(string)
			if !isString {
				p.fail(off, s.Name, field, "want string, got %s", valueKind(val))
				return false
			}
			*dst = p.expand(x, s.Name, field, off)
			return true
		}
		var ok bool
		switch key {
		case "enabled":
			b, isBool := val.(bool)
			if !isBool {
				p.fail(off, s.Name, field, "want boolean, got %s", valueKind(val))
				return false
			}
			o.Enabled, ok = b, true
		case "clientId":
			ok = str(&o.ClientID)
		case "clientSecret":
			ok = str(&o.ClientSecret)
		case "authorizationUrl":
			ok = str(&o.AuthorizationURL)
		case "tokenUrl":
			ok = str(&o.TokenURL)
		case "registrationUrl":
			ok = str(&o.RegistrationURL)
		case "redirectUri":
			ok = str(&o.RedirectURI)
		case "tokenParamName":
			ok = str(&o.TokenParamName)
		case "scopes":
			ok = p.strings(&o.Scopes, val, s.Name, field, off, false)
		case "audiences":
			ok = p.strings(&o.Audiences, val, s.Name, field, off, false)
		default:
			p.warnAt(off, "server %q: ignoring unknown key %q", s.Name, field)
			ok = true
		}
		if !ok {
			return false
		}
	}
	s.OAuth = o
	return true
}
