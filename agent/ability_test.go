package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/sanadhq/sanad"
)

var (
	citation = Ability{ID: "evidence-citation", Title: "Evidence citation", Keywords: []string{"evidence"},
		Content: "Cite the evidence of every statement by artifact id and page."}
	grading = Ability{ID: "source-grading", Title: "Source reliability grading", Keywords: []string{"reliability", "adverse media"},
		Content: "Grade each source from A (official) to D (unverified)."}
	contracts = Ability{ID: "contract-review", Title: "Contract review", Keywords: []string{"contract", "change of control", "clause"},
		Content: "Report parties, term, termination rights and change of control clauses."}
	sanctions = Ability{ID: "sanctions-screening", Title: "Sanctions screening", Keywords: []string{"sanctions", "pep"},
		Content: "Screen every party against the consolidated sanctions lists."}
)

// reviewer has two core abilities, listed against id order, and two more.
func reviewer() Profile {
	p := profile("legal-reviewer", []string{"review the contract"}, nil)
	p.CoreAbilities = []string{"source-grading", "evidence-citation"}
	p.Abilities = []string{"sanctions-screening", "contract-review"}
	return p
}

// recorder is a Node that records what it is called with, in order.
type recorder struct {
	p       Profile
	calls   []string
	prompts []string
	invalid error
}

func (r *recorder) Profile() Profile { return r.p }

func (r *recorder) Execute(ctx context.Context, in Input) (Output, error) {
	r.calls = append(r.calls, "execute")
	r.prompts = append(r.prompts, in.SystemPrompt)
	return Output{Content: json.RawMessage(`{"ok":true}`), Summary: "done"}, nil
}

func (r *recorder) ValidateOutput(out Output) error {
	r.calls = append(r.calls, "validate")
	return r.invalid
}

var _ Node = (*recorder)(nil)

func TestINV_AGT_ABL_001_InjectedBeforePrompt(t *testing.T) {
	lib := library(t, citation, grading, contracts, sanctions)
	node := &recorder{p: reviewer()}
	in := Input{Task: "Review the change of control clause of the contract", SystemPrompt: "You are a legal reviewer."}
	out, inj, err := Run(context.Background(), node, lib, in, 1000)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if want := []string{"execute", "validate"}; !reflect.DeepEqual(node.calls, want) {
		t.Errorf("got calls %q, want %q", node.calls, want)
	}
	if string(out.Content) != `{"ok":true}` {
		t.Errorf("got output %s, want the node's", out.Content)
	}
	// Execute saw the final prompt: the block first, the prompt given last.
	got := node.prompts[0]
	if got != inj.Prompt {
		t.Errorf("got Execute prompt %q, want the injected %q", got, inj.Prompt)
	}
	if !strings.HasPrefix(got, "# Abilities\n") || !strings.HasSuffix(got, "\n---\n\nYou are a legal reviewer.") {
		t.Errorf("got prompt %q, want the ability block prepended to the system prompt", got)
	}
	for _, a := range []Ability{grading, citation, contracts} {
		if !strings.Contains(got, a.Content) {
			t.Errorf("got prompt without ability %s", a.ID)
		}
	}
	// The caller's input is a value: it keeps the prompt it had.
	if in.SystemPrompt != "You are a legal reviewer." {
		t.Errorf("got caller's prompt %q, want it unchanged", in.SystemPrompt)
	}
}

func TestINV_AGT_ABL_001_NoExecuteWithoutInjection(t *testing.T) {
	lib := library(t, citation) // grading, a core ability, is missing
	node := &recorder{p: reviewer()}
	_, _, err := Run(context.Background(), node, lib, Input{Task: "x"}, 1000)
	wantCode(t, err, sanad.CodeNotFound, "core ability source-grading of agent legal-reviewer is not in the library")
	if len(node.calls) != 0 {
		t.Errorf("got calls %q, want none: a node never runs without its abilities", node.calls)
	}
}

func TestRunStates(t *testing.T) {
	lib := library(t, citation, grading)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	node := &recorder{p: reviewer()}
	_, _, err := Run(ctx, node, lib, Input{Task: "x"}, 1000)
	wantCode(t, err, sanad.CodeCancelled)
	if len(node.calls) != 0 {
		t.Errorf("got calls %q with a cancelled context, want none", node.calls)
	}

	node = &recorder{p: reviewer(), invalid: errors.New("summary is empty")}
	_, _, err = Run(context.Background(), node, lib, Input{Task: "x"}, 1000)
	wantCode(t, err, sanad.CodeModelOutput, "agent legal-reviewer produced an invalid output: summary is empty")

	off := reviewer()
	off.Enabled = false
	node = &recorder{p: off}
	_, _, err = Run(context.Background(), node, lib, Input{Task: "x"}, 1000)
	wantCode(t, err, sanad.CodeInvalidInput, "agent legal-reviewer is disabled")
}

func TestINV_AGT_ABL_002_CoreAlwaysIncluded(t *testing.T) {
	lib := library(t, citation, grading, contracts, sanctions)
	p := reviewer()
	tests := []struct {
		task string
		want []string
	}{
		// Nothing matches: the core abilities alone, in profile order.
		{"bake a cake", []string{"source-grading", "evidence-citation"}},
		// contract-review scores 3 (contract, change of control, clause),
		// sanctions-screening 1: core first, then by relevance.
		{"Screen for sanctions and review the change of control clause in the contract", []string{"source-grading", "evidence-citation", "contract-review", "sanctions-screening"}},
		// Both score 1: ties by id.
		{"sanctions or contract?", []string{"source-grading", "evidence-citation", "contract-review", "sanctions-screening"}},
		// A core ability the task is about is not added twice.
		{"grade the reliability of the evidence", []string{"source-grading", "evidence-citation"}},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			inj, err := lib.Inject(p, tt.task, "", 1000)
			if err != nil {
				t.Fatalf("Inject: %v", err)
			}
			if !reflect.DeepEqual(inj.Included, tt.want) {
				t.Errorf("got %q, want %q", inj.Included, tt.want)
			}
			if len(inj.Truncated) != 0 || len(inj.Warnings) != 0 {
				t.Errorf("got truncated %q, warnings %q, want none", inj.Truncated, inj.Warnings)
			}
		})
	}
}

func TestINV_AGT_ABL_002_CoreCutNeverDropped(t *testing.T) {
	long := citation
	long.Content = strings.Repeat("Cite the evidence of every statement. ", 100)
	lib := library(t, long, grading)
	p := reviewer()
	p.Abilities = nil
	// The block with both cut to their headings.
	cut := tokenText{tokens: []int{0}}
	headings := (&blockBuilder{secs: []section{{a: grading, content: cut}, {a: long, content: cut}}}).render()
	min := tokens(t, headings)

	// Room for the first core ability and part of the second.
	inj, err := lib.Inject(p, "anything", "", min+30)
	if err != nil {
		t.Fatalf("Inject: %v", err)
	}
	if want := []string{"source-grading", "evidence-citation"}; !reflect.DeepEqual(inj.Included, want) {
		t.Errorf("got included %q, want %q", inj.Included, want)
	}
	if want := []string{"evidence-citation"}; !reflect.DeepEqual(inj.Truncated, want) {
		t.Errorf("got truncated %q, want %q", inj.Truncated, want)
	}
	if len(inj.Warnings) != 1 || !strings.Contains(inj.Warnings[0], "ability evidence-citation cut to") {
		t.Errorf("got warnings %q, want one saying evidence-citation was cut", inj.Warnings)
	}
	if inj.Tokens > min+30 {
		t.Errorf("got %d tokens, want at most %d", inj.Tokens, min+30)
	}
	if !strings.Contains(inj.Prompt, grading.Content) {
		t.Errorf("got %q, want the first core ability whole", inj.Prompt)
	}

	// Room for the headings only: both cut, both present.
	inj, err = lib.Inject(p, "anything", "", min)
	if err != nil {
		t.Fatalf("Inject at the headings' size: %v", err)
	}
	if len(inj.Included) != 2 || inj.Tokens > min {
		t.Errorf("got included %q in %d tokens, want both in at most %d", inj.Included, inj.Tokens, min)
	}

	// Less than the headings: an error, never a silent drop.
	_, err = lib.Inject(p, "anything", "", min-1)
	wantCode(t, err, sanad.CodeInvalidInput, fmt.Sprintf("token budget %d is too small for the 2 core abilities of agent legal-reviewer", min-1))
}

func TestINV_AGT_ABL_003_TokenBudget(t *testing.T) {
	lib := library(t, citation, grading, contracts, sanctions)
	p := reviewer()
	task := "Screen for sanctions and review the change of control clause in the contract"
	sys := "You are a legal reviewer."
	full, err := lib.Inject(p, task, sys, 100000)
	if err != nil {
		t.Fatalf("Inject: %v", err)
	}
	block := strings.TrimSuffix(full.Prompt, sys)
	if got := tokens(t, block); got != full.Tokens {
		t.Fatalf("got Tokens %d, want %d, the count of the block as emitted", full.Tokens, got)
	}

	// Exactly the block's size: everything, uncut.
	inj, err := lib.Inject(p, task, sys, full.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(inj, full) {
		t.Errorf("got %+v at a budget of exactly %d, want %+v", inj, full.Tokens, full)
	}

	// One token less: the last ability (sanctions-screening) is cut.
	inj, err = lib.Inject(p, task, sys, full.Tokens-1)
	if err != nil {
		t.Fatal(err)
	}
	if inj.Tokens > full.Tokens-1 {
		t.Errorf("got %d tokens, want at most %d", inj.Tokens, full.Tokens-1)
	}
	if want := []string{"sanctions-screening"}; !reflect.DeepEqual(inj.Truncated, want) {
		t.Errorf("got truncated %q, want %q", inj.Truncated, want)
	}

	// Room for the core and the first match: the second is left out.
	core, err := lib.Inject(p, "bake a cake", sys, 100000)
	if err != nil {
		t.Fatal(err)
	}
	withContract, err := lib.Inject(p, "contract", sys, 100000)
	if err != nil {
		t.Fatal(err)
	}
	inj, err = lib.Inject(p, task, sys, withContract.Tokens+2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"source-grading", "evidence-citation", "contract-review"}; !reflect.DeepEqual(inj.Included, want) {
		t.Errorf("got included %q, want %q", inj.Included, want)
	}
	if want := "ability sanctions-screening left out: the token budget of"; len(inj.Warnings) != 1 || !strings.HasPrefix(inj.Warnings[0], want) {
		t.Errorf("got warnings %q, want one starting %q", inj.Warnings, want)
	}
	if core.Tokens >= withContract.Tokens {
		t.Errorf("got %d tokens with a match, %d without, want more with", withContract.Tokens, core.Tokens)
	}

	// No abilities: the prompt is unchanged and costs nothing.
	inj, err = library(t).Inject(profile("plain", nil, nil), task, sys, 0)
	if err != nil || inj.Prompt != sys || inj.Tokens != 0 || inj.Included != nil {
		t.Errorf("got %+v, %v; want the prompt unchanged at 0 tokens", inj, err)
	}
	_, err = lib.Inject(p, task, sys, -1)
	wantCode(t, err, sanad.CodeInvalidInput, "negative")
}

// TestINV_AGT_ABL_003_TokenBudgetProperty checks, over random abilities,
// profiles, tasks and budgets, that the block never exceeds its budget, is
// counted as emitted, and holds every core ability first, whole or cut with
// a warning, or that Inject refuses a budget too small for their headings.
func TestINV_AGT_ABL_003_TokenBudgetProperty(t *testing.T) {
	vocab := []string{"evidence", "contract", "sanctions", "review", "clause", "owner", "revenue", "the", "of", "and",
		"Straße", "合同", "дело", "🙂", "<|endoftext|>", "a.b", "\n", "---", "#"}
	words := func(t *rapid.T, label string, lo, hi int) string {
		return strings.Join(rapid.SliceOfN(rapid.SampledFrom(vocab), lo, hi).Draw(t, label), " ")
	}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(t, "n")
		var abilities []Ability
		var ids []string
		for i := range n {
			a := Ability{
				ID:       fmt.Sprintf("ab-%d", i),
				Title:    "Title " + strings.ReplaceAll(words(t, "title", 0, 3), "\n", " "),
				Keywords: slices.Compact(slices.Sorted(slices.Values(rapid.SliceOfN(rapid.SampledFrom(vocab[:7]), 0, 3).Draw(t, "keywords")))),
				Content:  "x " + words(t, "content", 0, 300) + " " + rapid.String().Draw(t, "noise"),
			}
			abilities = append(abilities, a)
			ids = append(ids, a.ID)
		}
		lib, err := NewLibrary(abilities...)
		if err != nil {
			t.Fatalf("NewLibrary: %v", err)
		}
		perm := rapid.Permutation(ids).Draw(t, "order")
		nCore := rapid.IntRange(0, min(3, n)).Draw(t, "ncore")
		p := profile("prop", nil, nil)
		p.CoreAbilities = perm[:nCore]
		p.Abilities = perm[nCore:]
		task := words(t, "task", 0, 12)
		sys := rapid.SampledFrom([]string{"", "You are careful."}).Draw(t, "system")
		budget := rapid.IntRange(0, 800).Draw(t, "budget")

		inj, err := lib.Inject(p, task, sys, budget)
		if err != nil {
			// Only a budget below the core headings may be refused.
			var b blockBuilder
			for _, id := range p.CoreAbilities {
				a, _ := lib.Get(id)
				b.secs = append(b.secs, section{a: a, content: tokenText{tokens: []int{0}}})
			}
			b.sep = sys != ""
			if need := tokens(t, b.render()); need <= budget {
				t.Fatalf("got %v, but the core headings take %d tokens of %d", err, need, budget)
			}
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got %v, want INVALID_INPUT", err)
			}
			return
		}
		if !strings.HasSuffix(inj.Prompt, sys) {
			t.Fatalf("got prompt %q, want it to end with the system prompt", inj.Prompt)
		}
		block := strings.TrimSuffix(inj.Prompt, sys)
		got := tokens(t, block)
		if got > budget {
			t.Fatalf("got a block of %d tokens, want at most the budget %d", got, budget)
		}
		if got != inj.Tokens {
			t.Fatalf("got Tokens %d, want %d, the block as emitted", inj.Tokens, got)
		}
		if len(inj.Included) < nCore || !slices.Equal(inj.Included[:nCore], p.CoreAbilities) {
			t.Fatalf("got included %q, want the core %q first", inj.Included, p.CoreAbilities)
		}
		for _, id := range inj.Included {
			a, _ := lib.Get(id)
			if !strings.Contains(block, "## "+a.Title+" ["+id+"]\n") {
				t.Fatalf("got no heading for included %s", id)
			}
			if slices.Contains(inj.Truncated, id) {
				if !slices.ContainsFunc(inj.Warnings, func(w string) bool { return strings.HasPrefix(w, "ability "+id+" cut") }) {
					t.Fatalf("got %s cut without a warning: %q", id, inj.Warnings)
				}
			} else if !strings.Contains(block, a.Content) {
				t.Fatalf("got %s neither whole nor marked truncated", id)
			}
		}
		for _, id := range inj.Included[nCore:] {
			if !slices.Contains(p.Abilities, id) {
				t.Fatalf("got %s included, want only the profile's abilities", id)
			}
		}
		if len(inj.Truncated) == 0 && len(inj.Warnings) == 0 {
			// Nothing was cut or left out: a larger budget adds nothing.
			more, err := lib.Inject(p, task, sys, budget+100000)
			if err != nil || !slices.Equal(more.Included, inj.Included) {
				t.Fatalf("got %q with no warning, but %q (%v) with a larger budget", inj.Included, more.Included, err)
			}
		}
	})
}

func TestNewLibraryInvalid(t *testing.T) {
	tests := []struct {
		name string
		in   []Ability
		want string
	}{
		{"bad id", []Ability{{ID: "Bad", Title: "T", Content: "c"}}, `id: "Bad" is not valid`},
		{"no content", []Ability{{ID: "a", Title: "T", Content: "  \n"}}, "content"},
		{"two-line title", []Ability{{ID: "a", Title: "T\nU", Content: "c"}}, "title"},
		{"duplicate", []Ability{{ID: "a", Title: "T", Content: "c"}, {ID: "a", Title: "U", Content: "d"}}, "used twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewLibrary(tt.in...)
			wantCode(t, err, sanad.CodeInvalidInput, tt.want)
		})
	}
}

func TestParseAbility(t *testing.T) {
	a, err := ParseAbility("a.yaml", []byte("id: a\ntitle: An ability\nkeywords: [x]\ncontent: |\n  Line one.\n  Line two.\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Ability{ID: "a", Title: "An ability", Keywords: []string{"x"}, Content: "Line one.\nLine two."}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("got %+v, want %+v", a, want)
	}
	_, err = ParseAbility("b.yaml", []byte("id: b\ntitle: B\ncontent: c\nkeyword: [x]\n"))
	wantCode(t, err, sanad.CodeInvalidInput, `b.yaml:4:1: unknown key "keyword"; did you mean "keywords"?`)
}

func TestInjectConcurrent(t *testing.T) {
	lib := library(t, citation, grading, contracts, sanctions)
	want, err := lib.Inject(reviewer(), "review the contract", "sys", 60)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, err := lib.Inject(reviewer(), "review the contract", "sys", 60)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, %v; want %+v", got, err, want)
			}
		})
	}
	wg.Wait()
}

func TestLibraryCheckAndIDs(t *testing.T) {
	lib := library(t, grading, citation)
	if got, want := lib.IDs(), []string{"evidence-citation", "source-grading"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	wantCode(t, lib.Check(reviewer()), sanad.CodeNotFound, "agent legal-reviewer uses ability sanctions-screening, which the library does not hold")
	// An extra ability the library lacks is left out with a warning.
	inj, err := lib.Inject(reviewer(), "sanctions", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ability sanctions-screening of agent legal-reviewer is not in the library; left out"; len(inj.Warnings) != 2 || inj.Warnings[0] != want {
		t.Errorf("got warnings %q, want %q first", inj.Warnings, want)
	}
	// A Go-built profile listing a core ability again gets it once.
	p := reviewer()
	p.Abilities = []string{"evidence-citation"}
	if inj, err := lib.Inject(p, "evidence", "", 1000); err != nil || len(inj.Included) != 2 {
		t.Errorf("got %q, %v; want the two core abilities once each", inj.Included, err)
	}
	var nilLib *Library
	if _, ok := nilLib.Get("x"); ok || nilLib.IDs() != nil {
		t.Errorf("got abilities from a nil library, want none")
	}
}
