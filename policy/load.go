package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/schemafile"
)

// The policy files, by the key their version has in [Set.Versions]. The file
// of key k is k + ".yaml".
const (
	FileRoles = "roles"
	FileTools = "tools"
	FileLanes = "lanes"
)

// fileNames lists the policy files in the order they are loaded: roles
// first, since the others refer to them.
var fileNames = []string{FileRoles, FileTools, FileLanes}

// Load reads the policy files of the folder dir; see [LoadFS]. Errors name
// files by their path under dir.
func Load(dir string) (*Set, error) {
	if dir == "" {
		dir = "."
	}
	return load(os.DirFS(dir), dir)
}

// LoadFS reads roles.yaml, tools.yaml and lanes.yaml from the root of fsys,
// checks each against its JSON Schema and against the others, and returns
// the Set they describe. Everything that can be wrong with a policy is found
// here, never at decision time.
//
// roles.yaml is required. tools.yaml and lanes.yaml are each optional, but
// one of them must be present: a playbook whose agents call tools by the
// tool matrix (debate) has tools.yaml, one whose agents act through lanes
// (casework) has lanes.yaml, and one may have both. Without tools.yaml every
// tool call is denied; without lanes.yaml every lane action is.
//
// A failure is a *sanad.Error with code INVALID_INPUT wrapping a *LoadError
// that says file, line and column.
func LoadFS(fsys fs.FS) (*Set, error) {
	return load(fsys, "")
}

const opLoad = "policy.load"

// Limits on a policy file, checked before it is parsed. Policy files are a
// few kilobytes; the limits keep a hostile or corrupted file from costing
// more than a moment at load time.
const (
	// MaxFileBytes is the largest policy file Load accepts.
	MaxFileBytes = 64 << 10
	// MaxFlowDepth is the deepest nesting of [ and { a policy file may hold.
	MaxFlowDepth = 32
)

var limits = schemafile.Limits{MaxBytes: MaxFileBytes, MaxDepth: MaxFlowDepth}

// LoadError says where a policy file is wrong and why. File is the path as
// Load was given it (or the name inside the fs.FS for LoadFS); Line and Column
// are 1-based, or 0 when the error concerns the whole file.
type LoadError = schemafile.Error

// source is one policy file read and checked against its schema.
type source struct {
	base string // "tools.yaml", for Decision.Source
	file string // path shown in errors
	root *schemafile.Node
}

func (src *source) at(p schemafile.Pos) string { return src.base + ":" + strconv.Itoa(p.Line) }

func (src *source) errorf(p schemafile.Pos, format string, args ...any) error {
	return schemafile.Errorf(src.file, p, format, args...)
}

func load(fsys fs.FS, dir string) (*Set, error) {
	s, err := loadSet(fsys, dir)
	if err != nil {
		var se *sanad.Error
		if errors.As(err, &se) {
			return nil, err
		}
		var le *LoadError
		if errors.As(err, &le) {
			return nil, sanad.Wrap(le, sanad.CodeInvalidInput, opLoad, le.Error())
		}
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, opLoad, "policy: "+err.Error())
	}
	return s, nil
}

func loadSet(fsys fs.FS, dir string) (*Set, error) {
	display := func(name string) string {
		if dir == "" {
			return name
		}
		return filepath.Join(dir, name)
	}
	if info, err := fs.Stat(fsys, "."); err != nil || !info.IsDir() {
		return nil, &LoadError{File: display("."), Reason: "policy folder not found"}
	}
	s := &Set{versions: make(map[string]sanad.PolicyVersion, len(fileNames))}
	srcs := make(map[string]*source, len(fileNames))
	for _, key := range fileNames {
		base := key + ".yaml"
		if _, err := fs.Stat(fsys, key+".yml"); err == nil {
			return nil, &LoadError{File: display(key + ".yml"), Reason: "policy files end in .yaml: rename it " + base}
		}
		data, err := readFile(fsys, base)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &LoadError{File: display(base), Reason: err.Error()}
		}
		src := &source{base: base, file: display(base)}
		if src.root, err = schemafile.Parse(src.file, data, limits); err != nil {
			return nil, err
		}
		if !src.root.IsMap() {
			return nil, src.errorf(src.root.Pos(), "a policy file is a map of keys, starting with version")
		}
		if err := validate(key, src.file, src.root); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		s.versions[key] = sanad.PolicyVersion{
			Version: src.root.Get("version").Str(),
			SHA256:  hex.EncodeToString(sum[:]),
		}
		srcs[key] = src
	}
	if srcs[FileRoles] == nil {
		return nil, &LoadError{File: display("roles.yaml"), Reason: "file is missing: every policy declares its roles"}
	}
	if srcs[FileTools] == nil && srcs[FileLanes] == nil {
		return nil, &LoadError{File: display("."), Reason: "policy has neither tools.yaml nor lanes.yaml: nothing could ever be allowed"}
	}
	if err := s.loadRoles(srcs[FileRoles]); err != nil {
		return nil, err
	}
	if src := srcs[FileTools]; src != nil {
		if err := s.loadTools(src); err != nil {
			return nil, err
		}
	}
	if src := srcs[FileLanes]; src != nil {
		if err := s.loadLanes(src); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readFile reads name from fsys, refusing files over MaxFileBytes before
// reading them whole.
func readFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	return data, nil
}

func (s *Set) loadRoles(src *source) error {
	rn := src.root.Get("roles")
	s.roleNames = rn.Keys()
	sort.Strings(s.roleNames)
	s.roles = make(map[string]*role, len(s.roleNames))
	for i, name := range s.roleNames {
		v := rn.Get(name)
		includes, _ := v.Get("includes").Strings()
		s.roles[name] = &role{idx: i, info: Role{
			Name:        name,
			Kind:        RoleKind(v.Get("kind").Str()),
			Description: v.Get("description").Str(),
			Includes:    includes,
		}}
	}
	// Check includes in file order, so the first error is the first written.
	for _, name := range rn.Keys() {
		inc, at := rn.Get(name).Get("includes").Strings()
		for j, other := range inc {
			switch {
			case other == name:
				return src.errorf(at[j], "roles.%s: a role cannot include itself", name)
			case s.roles[other] == nil:
				return src.errorf(at[j], "roles.%s: includes unknown role %q", name, other)
			}
		}
	}
	for _, name := range rn.Keys() {
		seen := map[string]bool{}
		if cycle := s.walkIncludes(name, seen, nil); cycle != nil {
			return src.errorf(rn.KeyPos(name), "roles.%s: includes form a cycle: %s", name, strings.Join(cycle, " → "))
		}
		s.roles[name].satisfies = seen
	}
	return nil
}

// walkIncludes marks name and every role it includes in seen. It returns the
// path of a cycle through name, if there is one.
func (s *Set) walkIncludes(name string, seen map[string]bool, path []string) []string {
	for _, p := range path {
		if p == name {
			return append(path, name)
		}
	}
	if seen[name] {
		return nil
	}
	seen[name] = true
	for _, inc := range s.roles[name].info.Includes {
		if cycle := s.walkIncludes(inc, seen, append(path, name)); cycle != nil {
			return cycle
		}
	}
	return nil
}

// loadRoleList checks that every name in the list n is a declared role.
func (s *Set) loadRoleList(src *source, where string, n *schemafile.Node) ([]string, error) {
	names, at := n.Strings()
	for i, name := range names {
		if s.roles[name] == nil {
			return nil, src.errorf(at[i], "%s: unknown role %q: roles.yaml does not declare it", where, name)
		}
	}
	return names, nil
}

// loadFieldRules reads a requires list.
func loadFieldRules(src *source, where string, n *schemafile.Node) ([]FieldRule, error) {
	if n == nil {
		return nil, nil
	}
	items := n.Items()
	rules := make([]FieldRule, 0, len(items))
	for i, item := range items {
		r := FieldRule{
			Field:    item.Get("field").Str(),
			MinItems: item.Get("min_items").Int(),
			MinChars: item.Get("min_chars").Int(),
			Reason:   item.Get("reason").Str(),
		}
		if (r.MinItems > 0) == (r.MinChars > 0) {
			return nil, src.errorf(item.Pos(), "%s.requires[%d]: set exactly one of min_items and min_chars", where, i)
		}
		for _, prev := range rules {
			if prev.Field == r.Field {
				return nil, src.errorf(item.Pos(), "%s.requires[%d]: field %q already has a rule; write one rule per field", where, i, r.Field)
			}
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// loadGuard reads required_scope and prohibitions of a tool or lane.
func loadGuard(src *source, subject string, n *schemafile.Node) guard {
	var g guard
	g.required, _ = n.Get("required_scope").Strings()
	g.missingReason = make([]string, len(g.required))
	for i, f := range g.required {
		g.missingReason[i] = subject + " requires the scope field " + f + "; the request does not provide it"
	}
	tags, _ := n.Get("prohibitions").Strings()
	for _, tag := range tags {
		bit, i := tagBit(tag)
		g.prohibited |= bit
		g.tagReason[i] = subject + " prohibits " + tag + "; the resource carries it"
	}
	g.fieldSource = src.at(n.KeyPos("required_scope"))
	g.tagSource = src.at(n.KeyPos("prohibitions"))
	return g
}

func (s *Set) loadTools(src *source) error {
	s.hasTools = true
	risks := map[string]Approval{}
	rc := src.root.Get("risk_classes")
	for _, name := range rc.Keys() {
		risks[name] = Approval(rc.Get(name).Get("approval").Str())
	}
	tn := src.root.Get("tools")
	names, items := tn.Keys(), tn.Items()
	s.tools = make(map[string]*tool, len(names))
	for i, name := range names {
		v := items[i]
		where := "tools." + name
		roles, err := s.loadRoleList(src, where+".roles", v.Get("roles"))
		if err != nil {
			return err
		}
		risk := v.Get("risk").Str()
		approval, ok := risks[risk]
		if !ok {
			return src.errorf(v.Get("risk").Pos(), "%s.risk: unknown risk class %q: risk_classes does not declare it", where, risk)
		}
		requires, err := loadFieldRules(src, where, v.Get("requires"))
		if err != nil {
			return err
		}
		t := &tool{
			info: Tool{
				Name:             name,
				Description:      v.Get("description").Str(),
				Roles:            roles,
				Risk:             risk,
				Approval:         approval,
				MaxCallsPerRound: v.Get("max_calls_per_round").Int(),
				MaxCallsPerRun:   v.Get("max_calls_per_run").Int(),
				Requires:         requires,
			},
			source: src.at(v.KeyPos("roles")),
			guard:  loadGuard(src, "tool "+name, v),
		}
		t.info.RequiredScope = clone(t.required)
		t.info.Prohibitions, _ = v.Get("prohibitions").Strings()
		n := len(s.roleNames)
		t.allow, t.allowReason, t.denyReason = make([]bool, n), make([]string, n), make([]string, n)
		for _, r := range roles {
			t.allow[s.roles[r].idx] = true
		}
		for ri, r := range s.roleNames {
			t.allowReason[ri] = "the tool matrix lets " + r + " call " + name
			t.denyReason[ri] = "the tool matrix does not let " + r + " call " + name
		}
		s.tools[name] = t
	}
	if ch := src.root.Get("challenges"); ch != nil {
		rules, err := loadFieldRules(src, "challenges", ch.Get("requires"))
		if err != nil {
			return err
		}
		s.challenges = rules
	}
	return nil
}

// isWrite reports whether a lane action is a table write ("append:facts").
func isWrite(action string) bool {
	return strings.HasPrefix(action, "append:") || strings.HasPrefix(action, "upsert:")
}

func (s *Set) loadLanes(src *source) error {
	s.hasLanes = true
	ln := src.root.Get("lanes")
	names, items := ln.Keys(), ln.Items()
	s.lanes = make(map[string]*lane, len(names))
	for i, name := range names {
		v := items[i]
		where := "lanes." + name
		callers, err := s.loadRoleList(src, where+".callers", v.Get("callers"))
		if err != nil {
			return err
		}
		kind := sanad.RunKind(v.Get("kind").Str())
		actions, at := v.Get("actions").Strings()
		for j, a := range actions {
			switch {
			case (kind == sanad.KindDBWrite || kind == sanad.KindPromotion) && !isWrite(a):
				return src.errorf(at[j], "%s.actions: a %s lane only writes: %q is not append:TABLE or upsert:TABLE", where, kind, a)
			case kind == sanad.KindToolGateway && isWrite(a):
				return src.errorf(at[j], "%s.actions: a tool_gateway lane calls tools: write %q through a db_write lane", where, a)
			}
		}
		crossCase := v.Get("cross_case").Bool()
		g := loadGuard(src, "lane "+name, v)
		if ccl, _ := tagBit(TagCrossCaseLookup); crossCase && g.prohibited&ccl != 0 {
			return src.errorf(v.KeyPos("cross_case"), "%s: cross_case is true but the lane prohibits cross_case_lookup", where)
		}
		prohibitions, _ := v.Get("prohibitions").Strings()
		l := &lane{
			info: Lane{
				Name:          name,
				Description:   v.Get("description").Str(),
				Kind:          kind,
				Callers:       callers,
				Actions:       actions,
				RequiredScope: clone(g.required),
				Prohibitions:  prohibitions,
				CrossCase:     crossCase,
			},
			actions:   make(map[string]int, len(actions)),
			source:    src.at(v.KeyPos("callers")),
			crossCase: crossCase,
			caseReason: "case isolation: the resource is outside the principal's case and lane " + name +
				" does not allow cross-case access",
			guard: g,
		}
		for j, a := range actions {
			l.actions[a] = j
		}
		n := len(s.roleNames)
		l.callers, l.denyReason, l.allowReason = make([]bool, n), make([]string, n), make([][]string, n)
		for _, r := range callers {
			l.callers[s.roles[r].idx] = true
		}
		across := ""
		if crossCase {
			across = " (the lane allows cross-case access)"
		}
		for ri, r := range s.roleNames {
			l.denyReason[ri] = fmt.Sprintf("%s is not a caller of lane %s (callers: %s)", r, name, strings.Join(callers, ", "))
			if !l.callers[ri] {
				continue
			}
			l.allowReason[ri] = make([]string, len(actions))
			for j, a := range actions {
				l.allowReason[ri][j] = r + " is a caller of lane " + name + ", which allows " + a + across
			}
		}
		s.lanes[name] = l
	}
	return nil
}
