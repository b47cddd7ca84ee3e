package schema

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestServerFixtures converts every tool of testdata/servers (the
// tools/list answers of published MCP servers) for every target: each
// output passes the checker and fits the budget unless its input is
// already larger (then it stays within 110% of its input), and for JSONSchema it keeps the references. The largest
// two tools of each server are also checked for determinism and
// idempotence (assertConverted).
func TestServerFixtures(t *testing.T) {
	servers := loadServerFixtures(t)
	for _, file := range sortedKeys(servers) {
		s := servers[file]
		bySize := slices.Clone(s.Tools)
		slices.SortStableFunc(bySize, func(a, b fixtureTool) int { return len(b.InputSchema) - len(a.InputSchema) })
		full := map[string]bool{}
		for i, tool := range bySize {
			if i < 2 {
				full[tool.Name] = true
			}
		}
		for _, target := range allTargets {
			t.Run(strings.TrimSuffix(file, ".json")+"/"+target.String(), func(t *testing.T) {
				for _, tool := range s.Tools {
					res, err := Convert(tool.InputSchema, &Options{Target: target})
					if err != nil {
						t.Fatalf("%s: %v", tool.Name, err)
					}
					// Over the budget only when the input already is, and
					// then by no more than the rewrites' own cost.
					raw := Size(compactLen(t, tool.InputSchema))
					if limit := max(DefaultBudget, raw*11/10); res.Size > limit {
						t.Errorf("%s: Size = %d, want at most %d (budget %d, input %d)", tool.Name, res.Size, limit, DefaultBudget, raw)
					}
					if got := Size(len(mustJSON(t, outputValue(res)))); got != res.Size {
						t.Errorf("%s: Size = %d, but the output has %d bytes", tool.Name, res.Size, got)
					}
					if full[tool.Name] {
						assertConverted(t, tool.InputSchema, target, res)
					} else if vs := CheckDeclaration(res.Declaration("f", ""), target); len(vs) > 0 {
						t.Errorf("%s: CheckDeclaration = %v", tool.Name, firstViolations(vs))
					}
					if target == JSONSchema && res.BudgetCuts == 0 && strings.Contains(string(tool.InputSchema), `"$ref"`) &&
						!strings.Contains(string(mustJSON(t, res.JSONSchema)), `"$ref"`) {
						t.Errorf("%s: JSONSchema output has no $ref left, want the references kept", tool.Name)
					}
				}
			})
		}
	}
}

// TestBudgetCutsRestore generates arguments, as for TestRestoreProperty,
// for every fixture tool whose conversion the budget cut: once restored
// they validate against the original schema, except where a Change
// explains (the values written as JSON text into a cut reference are
// decoded, and the validator still checks them by the original).
func TestBudgetCutsRestore(t *testing.T) {
	servers := loadServerFixtures(t)
	tools, cutTools, valid := 0, 0, 0
	reasons := map[string]int{}
	for _, file := range sortedKeys(servers) {
		for _, tool := range servers[file].Tools {
			res, err := Convert(tool.InputSchema, &Options{Target: Gemini})
			if err != nil {
				t.Fatal(err)
			}
			if res.BudgetCuts == 0 {
				continue
			}
			cutTools++
			cuts := 0
			for _, c := range res.Changes {
				if strings.Contains(c.Detail, "size budget") {
					cuts++
				}
			}
			if cuts == 0 {
				t.Errorf("%s: BudgetCuts = %d but no Change reports a cut for the budget", tool.Name, res.BudgetCuts)
			}
			sch, err := compileOriginal(tool.InputSchema)
			if err != nil {
				t.Fatalf("%s: %v", tool.Name, err)
			}
			var doc any
			if err := json.Unmarshal(tool.InputSchema, &doc); err != nil {
				t.Fatal(err)
			}
			for i := range 10 {
				g := &argGen{r: rand.New(rand.NewPCG(uint64(i), uint64(len(tool.Name))))}
				args, ok := g.value(res.Parameters, 0).(map[string]any)
				if !ok || g.gaveUp {
					continue
				}
				tools++
				restored := roundTrip(t, res.Restorer.Restore(args))
				verr := sch.Validate(restored)
				if verr == nil {
					valid++
					continue
				}
				var ve *jsonschema.ValidationError
				if !errors.As(verr, &ve) {
					t.Fatalf("%s: validation error %T: %v", tool.Name, verr, verr)
				}
				ex := &excuses{changes: res.Changes, doc: doc, cuts: g.cuts, reasons: reasons}
				if u := ex.unexcused(ve); len(u) > 0 {
					t.Errorf("%s: Restore(%s) does not validate against the original, and no Change explains:\n%s",
						tool.Name, mustJSON(t, args), strings.Join(u, "\n"))
				}
			}
		}
	}
	t.Logf("%d tools cut to the budget; %d argument sets, %d valid; explained: %v", cutTools, tools, valid, reasons)
	if cutTools == 0 || tools == 0 {
		t.Errorf("no tool was cut to the budget (%d) or no arguments generated (%d)", cutTools, tools)
	}
}

// TestBudgetOptions: a smaller budget cuts more, a negative one nothing,
// Tokens converts, and the cut output converts to itself.
func TestBudgetOptions(t *testing.T) {
	// Five definitions, each holding the next twice: 32 copies of the
	// last once inlined, from 1 KB of input.
	defs := []string{}
	for i := range 5 {
		next := `{"type":"string","description":"the end of the chain, a string long enough to count"}`
		if i < 4 {
			next = `{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"}`
		}
		defs = append(defs, `"d`+strconv.Itoa(i)+`":{"type":"object","description":"level `+strconv.Itoa(i)+`","properties":{"left":`+next+`,"right":`+next+`}}`)
	}
	raw := []byte(`{"type":"object","properties":{"root":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`)
	none, err := Convert(raw, &Options{Budget: -1})
	if err != nil {
		t.Fatal(err)
	}
	def, _ := Convert(raw, nil)
	small, _ := Convert(raw, &Options{Budget: Tokens(200)})
	if none.BudgetCuts != 0 || def.BudgetCuts != 0 || small.BudgetCuts == 0 {
		t.Errorf("BudgetCuts: none %d, default %d, 200 tokens %d; want 0, 0, > 0", none.BudgetCuts, def.BudgetCuts, small.BudgetCuts)
	}
	if !(small.Size <= Tokens(200) && small.Size < def.Size && def.Size == none.Size) {
		t.Errorf("Size: 200 tokens %d, default %d, none %d; want at most 800, then the whole", small.Size, def.Size, none.Size)
	}
	if got := Tokens(1000); got != 4000 || got.Tokens() != 1000 || Size(4001).Tokens() != 1001 {
		t.Errorf("Tokens(1000) = %d (%d tokens), Size(4001).Tokens() = %d", got, got.Tokens(), Size(4001).Tokens())
	}
	cutNote := false
	for _, c := range small.Changes {
		cutNote = cutNote || strings.Contains(c.Detail, "cut to fit the declaration's size budget")
	}
	if !cutNote || !strings.Contains(string(mustJSON(t, small.Parameters)), "too large to describe here") {
		t.Errorf("a cut is not reported (%v) or not described in %s", small.Changes, mustJSON(t, small.Parameters))
	}
	for _, target := range allTargets {
		opts := &Options{Target: target, Budget: Tokens(200)}
		res, _ := Convert(raw, opts)
		assertConvertedWith(t, raw, opts, res)
	}
}
