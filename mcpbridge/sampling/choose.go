package sampling

import (
	"slices"
	"strings"
)

// choose picks the model for a request from def, the host's default, and
// allowed, the other models the host lets a server pick; a model is
// never chosen from outside them. The server's preferences are advisory:
//
//  1. The hints are read in order; the first that names part of one or
//     more candidates (case-insensitive substring, as the protocol
//     suggests: "flash" matches "gemini-2.5-flash") decides among them.
//  2. Without a matching hint, all candidates are in play.
//  3. Among the candidates in play, the priorities decide: a model whose
//     name says "pro" scores for intelligence, "flash" for speed and (half
//     as much) for cost, "lite" for speed and cost; the score is the sum
//     of each priority times the model's trait. The highest score wins;
//     on a tie the default wins if in play, then the earliest in allowed.
//
// Without hints and priorities the default answers.
func choose(def string, allowed []string, p Preferences) string {
	cands := []string{def}
	for _, m := range allowed {
		if m != "" && !slices.Contains(cands, m) {
			cands = append(cands, m)
		}
	}
	inPlay := cands
	for _, h := range p.Hints {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		var match []string
		for _, m := range cands {
			if strings.Contains(strings.ToLower(m), h) {
				match = append(match, m)
			}
		}
		if len(match) > 0 {
			inPlay = match
			break
		}
	}
	best, bestScore := "", -1.0
	for _, m := range inPlay {
		s := score(m, p)
		if s > bestScore || (s == bestScore && m == def) {
			best, bestScore = m, s
		}
	}
	return best
}

// score is how well model m meets the priorities of p.
func score(m string, p Preferences) float64 {
	m = strings.ToLower(m)
	var intel, speed, cost float64
	switch {
	case strings.Contains(m, "lite"):
		speed, cost = 1, 1
	case strings.Contains(m, "flash"):
		speed, cost = 1, 0.5
	case strings.Contains(m, "pro"):
		intel = 1
	}
	val := func(f *float64) float64 {
		if f == nil {
			return 0
		}
		return *f
	}
	return val(p.Intelligence)*intel + val(p.Speed)*speed + val(p.Cost)*cost
}
