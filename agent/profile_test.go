package agent

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sanadhq/sanad"
)

const goodProfile = `id: legal-reviewer
name: Legal Reviewer
description: Reviews contracts.
role: legal_reviewer
model_class: reasoning
prompt_id: legal-reviewer.v1
permitted_tools: [search_evidence, flag_defect]
core_abilities: [evidence-citation]
abilities: [contract-review]
example_tasks:
  - Review the share purchase agreement
not_for_tasks:
  - Reconcile revenue
version: "1.0.0"
`

func TestParseProfile_Good(t *testing.T) {
	got, err := ParseProfile("good.yaml", []byte(goodProfile))
	if err != nil {
		t.Fatalf("ParseProfile: %v", err)
	}
	want := Profile{
		ID:             "legal-reviewer",
		Name:           "Legal Reviewer",
		Description:    "Reviews contracts.",
		Role:           "legal_reviewer",
		ModelClass:     "reasoning",
		PromptID:       "legal-reviewer.v1",
		PermittedTools: []string{"search_evidence", "flag_defect"},
		CoreAbilities:  []string{"evidence-citation"},
		Abilities:      []string{"contract-review"},
		ExampleTasks:   []string{"Review the share purchase agreement"},
		NotForTasks:    []string{"Reconcile revenue"},
		Enabled:        true, // absent: the default
		Version:        "1.0.0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	disabled, err := ParseProfile("off.yaml", []byte(goodProfile+"enabled: false\n"))
	if err != nil {
		t.Fatalf("ParseProfile: %v", err)
	}
	if disabled.Enabled {
		t.Errorf("got Enabled true with enabled: false, want false")
	}
}

func TestINV_AGT_001_InvalidProfilesRejected(t *testing.T) {
	// Each case replaces one line of goodProfile (or adds one) and names
	// the line and words the error must carry.
	tests := []struct {
		name, old, new string
		wantLine       int
		want           string
	}{
		{"unknown key", "role: legal_reviewer\n", "role: legal_reviewer\nexmple_tasks: []\n", 5, `unknown key "exmple_tasks"; did you mean "example_tasks"?`},
		{"missing required", "role: legal_reviewer\n", "", 1, `missing key "role"`},
		{"bad id", "id: legal-reviewer", "id: Legal_Reviewer", 1, `id: "Legal_Reviewer" is not valid: use lower case letters`},
		{"id double hyphen", "id: legal-reviewer", "id: legal--reviewer", 1, `is not valid`},
		{"id too long", "id: legal-reviewer", "id: " + strings.Repeat("a", 65), 1, "want at most 64"},
		{"number for string", `version: "1.0.0"`, "version: 1", 14, `version: got number, want string (quote it`},
		{"string for list", "permitted_tools: [search_evidence, flag_defect]", "permitted_tools: search_evidence", 7, "permitted_tools: got string, want array"},
		{"bad ability id", "core_abilities: [evidence-citation]", "core_abilities: [Evidence]", 8, `core_abilities[0]: "Evidence" is not valid`},
		{"duplicate tool", "permitted_tools: [search_evidence, flag_defect]", "permitted_tools: [flag_defect, flag_defect]", 7, "items 0 and 1 are the same"},
		{"empty example", "  - Review the share purchase agreement", "  - \"...\"", 11, "example_tasks[0]: \"...\" is not valid: it must contain a letter or a digit"},
		{"enabled not bool", `version: "1.0.0"`, "version: \"1\"\nenabled: \"yes\"", 15, "enabled: got string, want boolean"},
		{"core and extra", "abilities: [contract-review]", "abilities: [contract-review, evidence-citation]", 9, "abilities[1]: evidence-citation is already a core ability"},
		{"duplicate key", "model_class: reasoning", "model_class: reasoning\nmodel_class: fast", 6, `mapping key "model_class" already defined`},
		{"anchor", "model_class: reasoning", "model_class: &m reasoning", 5, "anchors and aliases are not allowed"},
		{"syntax", "name: Legal Reviewer", "name: [Legal", 0, "invalid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(goodProfile, tt.old) {
				t.Fatalf("test case: %q is not in goodProfile", tt.old)
			}
			src := strings.Replace(goodProfile, tt.old, tt.new, 1)
			_, err := ParseProfile("bad.yaml", []byte(src))
			wantCode(t, err, sanad.CodeInvalidInput, tt.want)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("got %T, want a *LoadError in the chain", err)
			}
			if le.File != "bad.yaml" {
				t.Errorf("got file %q, want bad.yaml", le.File)
			}
			if tt.wantLine > 0 && le.Line != tt.wantLine {
				t.Errorf("got line %d (%v), want %d", le.Line, err, tt.wantLine)
			}
		})
	}
}

func TestINV_AGT_001_NotAMap(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "- a\n- b\n", "just text", "a: 1\n---\nb: 2\n"} {
		if _, err := ParseProfile("x.yaml", []byte(src)); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("ParseProfile(%q): got %v, want INVALID_INPUT", src, err)
		}
	}
	big := goodProfile + "# " + strings.Repeat("x", MaxFileBytes) + "\n"
	wantCode(t, func() error { _, err := ParseProfile("big.yaml", []byte(big)); return err }(), sanad.CodeInvalidInput, "larger than")
}

func TestINV_AGT_001_GoProfilesValidated(t *testing.T) {
	ok := profile("ok", nil, nil)
	tests := []struct {
		name   string
		mutate func(*Profile)
		want   string
	}{
		{"empty id", func(p *Profile) { p.ID = "" }, `id: "" is not valid`},
		{"upper id", func(p *Profile) { p.ID = "Ok" }, `id: "Ok" is not valid`},
		{"no name", func(p *Profile) { p.Name = "" }, "name: got 0 characters, want at least 1"},
		{"no version", func(p *Profile) { p.Version = "" }, "version: got 0 characters"},
		{"bad tool", func(p *Profile) { p.PermittedTools = []string{"Rm -rf"} }, "permitted_tools[0]"},
		{"bad model class", func(p *Profile) { p.ModelClass = "GPT 4" }, "model_class"},
		{"core twice", func(p *Profile) { p.CoreAbilities = []string{"a"}; p.Abilities = []string{"a"} }, "abilities[0]: a is already a core ability"},
		{"blank example", func(p *Profile) { p.ExampleTasks = []string{" ? "} }, "example_tasks[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ok.clone()
			tt.mutate(&p)
			r := NewRegistry()
			wantCode(t, r.Create(p), sanad.CodeInvalidInput, tt.want)
			if got := len(r.List()); got != 1 {
				t.Errorf("got %d agents after a refused Create, want 1 (standard)", got)
			}
			// Update runs the same validation, on an id that exists.
			if err := r.Create(ok); err != nil {
				t.Fatalf("Create: %v", err)
			}
			p.ID = ok.ID
			if tt.name == "empty id" || tt.name == "upper id" {
				return
			}
			wantCode(t, r.Update(p), sanad.CodeInvalidInput, tt.want)
			if got, _ := r.Get(ok.ID); !reflect.DeepEqual(got, ok) {
				t.Errorf("got %+v after a refused Update, want %+v", got, ok)
			}
		})
	}
}

func TestINV_AGT_001_CreateAllIsAtomic(t *testing.T) {
	r := NewRegistry()
	bad := profile("bad", nil, nil)
	bad.Version = ""
	wantCode(t, r.CreateAll(profile("a", nil, nil), bad), sanad.CodeInvalidInput)
	wantCode(t, r.CreateAll(profile("a", nil, nil), profile("a", nil, nil)), sanad.CodeConflict)
	if got := len(r.List()); got != 1 {
		t.Errorf("got %d agents, want 1: a failed CreateAll adds nothing", got)
	}
}

func TestExampleProfilesValid(t *testing.T) {
	fsys := os.DirFS("../examples/agents")
	ps, err := LoadFS(fsys)
	if err != nil {
		t.Fatalf("LoadFS: %v", err)
	}
	if len(ps) < 5 {
		t.Fatalf("got %d example profiles, want at least 5", len(ps))
	}
	lib, err := LoadLibrary(fsys, "abilities")
	if err != nil {
		t.Fatalf("LoadLibrary: %v", err)
	}
	r := registry(t, ps...)
	for _, p := range ps {
		if err := lib.Check(p); err != nil {
			t.Errorf("Check(%s): %v", p.ID, err)
		}
		if !p.Enabled {
			t.Errorf("%s: got disabled, want enabled", p.ID)
		}
		// Each example task routes to its own agent first.
		for _, task := range p.ExampleTasks {
			if got := r.Select(task)[0]; got.Agent != p.ID || got.Confidence != 0.6 {
				t.Errorf("Select(%q): got %s at %v, want %s at 0.6", task, got.Agent, got.Confidence, p.ID)
			}
		}
		inj, err := lib.Inject(p, p.ExampleTasks[0], "You are "+p.Name+".", 2000)
		if err != nil {
			t.Errorf("Inject(%s): %v", p.ID, err)
			continue
		}
		if len(inj.Truncated) > 0 {
			t.Errorf("Inject(%s): got truncated %v at a budget of 2000, want none", p.ID, inj.Truncated)
		}
	}
}

func TestLoadDir(t *testing.T) {
	good := []byte(goodProfile)
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string // "" for success
	}{
		{"ok", fstest.MapFS{"p/a.yaml": {Data: good}, "p/notes.txt": {Data: []byte("x")}, "p/sub/b.yaml": {Data: []byte("bad")}}, ""},
		{"duplicate id", fstest.MapFS{"p/a.yaml": {Data: good}, "p/b.yaml": {Data: good}}, "p/b.yaml: profile id legal-reviewer is already used by p/a.yaml"},
		{"yml", fstest.MapFS{"p/a.yml": {Data: good}}, "rename it a.yaml"},
		{"bad file", fstest.MapFS{"p/a.yaml": {Data: good}, "p/z.yaml": {Data: []byte("id: z\n")}}, `p/z.yaml:1:1: missing keys ["name" "description" "role" "version"]: add them`},
		{"no folder", fstest.MapFS{}, "cannot read the folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := LoadDir(tt.fsys, "p")
			if tt.want == "" {
				if err != nil || len(ps) != 1 {
					t.Fatalf("got %d profiles, %v; want 1, nil", len(ps), err)
				}
				return
			}
			wantCode(t, err, sanad.CodeInvalidInput, tt.want)
			if ps != nil {
				t.Errorf("got %d profiles with an error, want none", len(ps))
			}
		})
	}
}
