package agent

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/schemafile"
)

const (
	opValidate = "agent.validate"
	opLoad     = "agent.load"
)

// Limits on a profile or ability file, checked before it is parsed.
const (
	// MaxFileBytes is the largest profile or ability file accepted.
	MaxFileBytes = 64 << 10
	// MaxFlowDepth is the deepest nesting of [ and { a file may hold.
	MaxFlowDepth = 32
)

var limits = schemafile.Limits{MaxBytes: MaxFileBytes, MaxDepth: MaxFlowDepth}

// LoadError says where a profile or ability is wrong and why. File is the
// name the file was given as (or "profile <id>" for a [Profile] built in Go);
// Line and Column are 1-based, or 0 when the error has no place in a file.
type LoadError = schemafile.Error

// Profile describes one agent: who it is, what it may use and which tasks it
// is for. Its YAML form uses the json names below; schema/profile.schema.json
// is its contract.
type Profile struct {
	// ID is unique in a registry: lower case letters and digits in words
	// joined by single hyphens, at most 64 bytes.
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Role is the policy role the agent acts under.
	Role string `json:"role"`
	// ModelClass names the kind of model the agent needs ("reasoning",
	// "fast", or "none" for an agent that calls no model).
	ModelClass string `json:"model_class,omitempty"`
	PromptID   string `json:"prompt_id,omitempty"`
	// Prompt is the template the task is rendered with before it reaches
	// the agent (text/template over [PromptData]; [DefaultPrompt] when
	// empty). It is checked when the profile is loaded.
	Prompt string `json:"prompt,omitempty"`
	// PermittedTools are the tools the agent may ask the gateway for.
	PermittedTools []string `json:"permitted_tools,omitempty"`
	// CoreAbilities are injected into every prompt of the agent.
	CoreAbilities []string `json:"core_abilities,omitempty"`
	// Abilities are injected when the task is about them, budget allowing.
	Abilities []string `json:"abilities,omitempty"`
	// ExampleTasks and NotForTasks steer [Registry.Select].
	ExampleTasks []string `json:"example_tasks,omitempty"`
	NotForTasks  []string `json:"not_for_tasks,omitempty"`
	// Enabled is true unless a file says enabled: false. A Profile built in
	// Go must set it: the zero Profile is disabled.
	Enabled bool   `json:"enabled"`
	Version string `json:"version"`
}

// clone returns a copy of p that shares no slices with it.
func (p Profile) clone() Profile {
	p.PermittedTools = slices.Clone(p.PermittedTools)
	p.CoreAbilities = slices.Clone(p.CoreAbilities)
	p.Abilities = slices.Clone(p.Abilities)
	p.ExampleTasks = slices.Clone(p.ExampleTasks)
	p.NotForTasks = slices.Clone(p.NotForTasks)
	return p
}

// Validate checks p against the profile schema and the rules the schema
// cannot state. A failure is INVALID_INPUT wrapping a *LoadError.
func (p Profile) Validate() error {
	what := "profile " + p.ID
	if p.ID == "" {
		what = "profile"
	}
	if err := validateValue(schemaProfile, what, p); err != nil {
		return invalid(err)
	}
	if i, id := overlap(p); i >= 0 {
		return invalid(&LoadError{File: what, Reason: "abilities[" + strconv.Itoa(i) + "]: " + id + " is already a core ability; list it once, under core_abilities"})
	}
	if err := checkPrompt(p); err != nil {
		return invalid(err)
	}
	return nil
}

// overlap returns the first entry of p.Abilities that is also core.
func overlap(p Profile) (int, string) {
	for i, id := range p.Abilities {
		if slices.Contains(p.CoreAbilities, id) {
			return i, id
		}
	}
	return -1, ""
}

// ParseProfile reads one profile from YAML. name is the file name errors
// use. The profile is checked against the schema before it is decoded, so
// every failure says file, line and what to fix: INVALID_INPUT wrapping a
// *LoadError.
func ParseProfile(name string, data []byte) (Profile, error) {
	root, err := schemafile.Parse(name, data, limits)
	if err != nil {
		return Profile{}, invalid(err)
	}
	if !root.IsMap() {
		return Profile{}, invalid(schemafile.Errorf(name, root.Pos(), "a profile is a map of keys, starting with id"))
	}
	if err := validate(schemaProfile, name, root); err != nil {
		return Profile{}, invalid(err)
	}
	raw, err := json.Marshal(root.Value())
	if err != nil {
		return Profile{}, invalid(&LoadError{File: name, Reason: err.Error()})
	}
	var f struct {
		Profile
		Enabled *bool `json:"enabled"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return Profile{}, invalid(&LoadError{File: name, Reason: err.Error()})
	}
	p := f.Profile
	p.Enabled = f.Enabled == nil || *f.Enabled
	if i, id := overlap(p); i >= 0 {
		at := root.Get("abilities").Items()[i].Pos()
		return Profile{}, invalid(schemafile.Errorf(name, at, "abilities[%d]: %s is already a core ability; list it once, under core_abilities", i, id))
	}
	if err := checkPrompt(p); err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			return Profile{}, invalid(schemafile.Errorf(name, root.Get("prompt").Pos(), "%s", le.Reason))
		}
		return Profile{}, invalid(err)
	}
	return p, nil
}

// LoadFS reads every *.yaml file at the root of fsys as a profile; see
// [LoadDir].
func LoadFS(fsys fs.FS) ([]Profile, error) { return LoadDir(fsys, ".") }

// LoadDir reads every *.yaml file of the folder dir of fsys as a profile and
// returns them sorted by id. Sub-folders are not read. It returns all the
// profiles or none: the first invalid file, or two files with the same id,
// fail the load with INVALID_INPUT.
func LoadDir(fsys fs.FS, dir string) ([]Profile, error) {
	var out []Profile
	from := map[string]string{}
	err := eachYAML(fsys, dir, func(file string, data []byte) error {
		p, err := ParseProfile(file, data)
		if err != nil {
			return err
		}
		if prev, dup := from[p.ID]; dup {
			return invalid(&LoadError{File: file, Reason: "profile id " + p.ID + " is already used by " + prev + "; ids must be unique"})
		}
		from[p.ID] = file
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// eachYAML calls fn with the name and contents of each *.yaml file of dir,
// in name order. A *.yml file is an error, so that it is not skipped
// unnoticed.
func eachYAML(fsys fs.FS, dir string, fn func(file string, data []byte) error) error {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInvalidInput, opLoad, dir+": cannot read the folder: "+err.Error())
	}
	for _, e := range entries {
		name := e.Name()
		file := path.Join(dir, name)
		switch {
		case e.IsDir():
			continue
		case strings.HasSuffix(name, ".yml"):
			return invalid(&LoadError{File: file, Reason: "files end in .yaml: rename it " + strings.TrimSuffix(name, ".yml") + ".yaml"})
		case !strings.HasSuffix(name, ".yaml"):
			continue
		}
		data, err := readFile(fsys, file)
		if err != nil {
			return invalid(&LoadError{File: file, Reason: err.Error()})
		}
		if err := fn(file, data); err != nil {
			return err
		}
	}
	return nil
}

// readFile reads name from fsys, reading at most one byte past MaxFileBytes
// so that schemafile.Parse can refuse an oversized file.
func readFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
}

// invalid wraps a load or validation failure as INVALID_INPUT. An error that
// already is a *sanad.Error is returned as it is.
func invalid(err error) error {
	var se *sanad.Error
	if errors.As(err, &se) {
		return err
	}
	return sanad.Wrap(err, sanad.CodeInvalidInput, opValidate, err.Error())
}
