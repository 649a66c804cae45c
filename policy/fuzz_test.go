package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/sanadhq/sanad"
)

// FuzzLoad feeds arbitrary bytes to the loader in place of each policy file
// of the example playbooks. The loader must never panic, must answer every
// bad file with a *LoadError, and what it accepts must answer every decision.
func FuzzLoad(f *testing.F) {
	type slot struct{ dir, file string }
	slots := []slot{
		{debateDir, "roles.yaml"}, {debateDir, "tools.yaml"},
		{caseworkDir, "roles.yaml"}, {caseworkDir, "lanes.yaml"},
	}
	base := make([]fstest.MapFS, len(slots))
	for i, sl := range slots {
		base[i] = fstest.MapFS{}
		entries, err := os.ReadDir(sl.dir)
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(sl.dir, e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			base[i][e.Name()] = &fstest.MapFile{Data: data}
		}
		f.Add(uint8(i), base[i][sl.file].Data)
	}
	f.Add(uint8(1), []byte("version: \"1\"\nrisk_classes: {low: {approval: none}}\ntools: {t: {roles: [arbiter], risk: low}}\n"))
	f.Add(uint8(3), []byte("version: \"1\"\nlanes: {L: {kind: export, callers: [EXPORT_AGENT], actions: [x], required_scope: [], prohibitions: [], cross_case: true}}\n"))
	f.Add(uint8(0), []byte("a: &x [*x]\n"))

	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		i := int(which) % len(slots)
		fsys := fstest.MapFS{}
		for name, file := range base[i] {
			fsys[name] = file
		}
		fsys[slots[i].file] = &fstest.MapFile{Data: data}
		s, err := LoadFS(fsys)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got %v (%T), want an INVALID_INPUT *LoadError", err, err)
			}
			if le.Line < 0 || le.Reason == "" {
				t.Fatalf("load error without a place or reason: %+v", le)
			}
			return
		}
		if len(s.Versions()) < 2 {
			t.Fatalf("loaded without versions: %v", s.Versions())
		}
		roles := append(s.Roles(), "nobody")
		for _, role := range roles {
			p := Principal{Role: role, Scope: caseA}
			for _, tool := range append(s.Tools(), "nothing") {
				checkDecision(t, s.Decide(p, ToolCall(tool), Resource{Scope: caseA}))
				_ = s.CheckAbuse(tool, Usage{Round: 1, Run: 1}, map[string]any{"description": "x"})
			}
			for _, name := range s.Lanes() {
				l, _ := s.Lane(name)
				for _, action := range l.Actions {
					d := s.Decide(p, LaneAction(name, action), laneResource(l, caseB))
					checkDecision(t, d)
					if d.Allow && !l.CrossCase {
						t.Fatalf("lane %s allowed case A into case B without cross_case", name)
					}
				}
			}
		}
		_ = s.CheckChallenge(map[string]any{})
	})
}

func checkDecision(t *testing.T, d Decision) {
	t.Helper()
	if d.Rule == "" || d.Reason == "" {
		t.Fatalf("decision without rule or reason: %+v", d)
	}
}
