package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestC03_PolicyVersions(t *testing.T) {
	for _, tt := range []struct {
		dir   string
		files []string
	}{
		{debateDir, []string{FileRoles, FileTools}},
		{caseworkDir, []string{FileRoles, FileLanes, FileTools}},
	} {
		s := loadDir(t, tt.dir)
		got := s.Versions()
		if len(got) != len(tt.files) {
			t.Errorf("%s: got versions %v, want keys %v", tt.dir, got, tt.files)
		}
		for _, key := range tt.files {
			data, err := os.ReadFile(filepath.Join(tt.dir, key+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			v := got[key]
			if v.Version != "1.0.0" {
				t.Errorf("%s %s version: got %q, want 1.0.0", tt.dir, key, v.Version)
			}
			if want := hex.EncodeToString(sum[:]); v.SHA256 != want {
				t.Errorf("%s %s sha256: got %s, want %s", tt.dir, key, v.SHA256, want)
			}
		}
		// Versions hands out a copy.
		delete(got, FileRoles)
		if _, ok := s.Versions()[FileRoles]; !ok {
			t.Errorf("%s: deleting from Versions() changed the Set", tt.dir)
		}
	}
}

func TestC03_VersionChangesWithContent(t *testing.T) {
	a := mustLoadFiles(t, goodFiles())
	files := goodFiles()
	files["tools.yaml"] += "# a comment changes the hash, not the version\n"
	b := mustLoadFiles(t, files)
	va, vb := a.Versions()[FileTools], b.Versions()[FileTools]
	if va.Version != vb.Version || va.SHA256 == vb.SHA256 {
		t.Errorf("got %v and %v, want the same version with different hashes", va, vb)
	}
}

func TestLoad_ReadOnlyAccessors(t *testing.T) {
	s := loadDir(t, debateDir)
	tool, ok := s.Tool("flag_defect")
	if !ok {
		t.Fatal("flag_defect: got none, want it")
	}
	tool.Roles[0] = "advocate"
	tool.Requires[0].MinItems = 0
	if d := s.Decide(Principal{Role: "advocate", Scope: caseA}, ToolCall("flag_defect"), Resource{Scope: caseA}); d.Allow {
		t.Error("changing a returned Tool changed the policy")
	}
	again, _ := s.Tool("flag_defect")
	if again.Requires[0].MinItems != 1 {
		t.Errorf("requires[0].min_items: got %d, want 1", again.Requires[0].MinItems)
	}
	if again.Approval != ApprovalNone || again.Risk != "write" {
		t.Errorf("flag_defect risk: got %s/%s, want write/none", again.Risk, again.Approval)
	}
	if q, _ := s.Tool("query_enrichment"); q.Approval != ApprovalCritic {
		t.Errorf("query_enrichment approval: got %s, want %s", q.Approval, ApprovalCritic)
	}
	r, ok := s.Role("analyst")
	if !ok || r.Kind != KindHuman {
		t.Errorf("analyst: got %+v, %v, want a human role", r, ok)
	}
}

// goodFiles returns a small valid policy with every file, for the bad-file
// tests to break one line at a time.
func goodFiles() map[string]string {
	return map[string]string{
		"roles.yaml": `version: "1"
roles:
  a:
    kind: agent
  b:
    kind: human
    includes: [c]
  c:
    kind: human
`,
		"tools.yaml": `version: "1"
risk_classes:
  low:
    approval: none
tools:
  t1:
    roles: [a]
    risk: low
    max_calls_per_round: 3
    requires:
      - field: refs
        min_items: 1
`,
		"lanes.yaml": `version: "1"
lanes:
  L:
    kind: db_write
    callers: [a]
    actions: ["append:x"]
    required_scope: [case_id]
    prohibitions: []
`,
	}
}

func TestLoad_GoodFiles(t *testing.T) {
	s := mustLoadFiles(t, goodFiles())
	if got := s.Tools(); len(got) != 1 || got[0] != "t1" {
		t.Errorf("tools: got %v, want [t1]", got)
	}
	if got := s.Lanes(); len(got) != 1 || got[0] != "L" {
		t.Errorf("lanes: got %v, want [L]", got)
	}
}

func TestLoad_BadFiles(t *testing.T) {
	tests := []struct {
		name    string
		file    string // the file replaced; "" removes nothing and replaces nothing
		content string
		where   string // "file:line:" the error must start with
		reason  string // a part of the reason
	}{
		{"unknown top-level key", "roles.yaml", "version: \"1\"\nrole: {}\nroles:\n  a: {kind: agent}\n",
			"roles.yaml:2:1:", `unknown key "role"`},
		{"unknown nested key", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: none}\ntools:\n  t1:\n    roles: [a]\n    risk: low\n    max_call_per_round: 3\n",
			"tools.yaml:8:5:", `tools.t1: unknown key "max_call_per_round"`},
		{"wrong type", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: none}\ntools:\n  t1:\n    roles: [a]\n    risk: low\n    max_calls_per_round: \"3\"\n",
			"tools.yaml:8:", "got string, want integer"},
		{"list where a map belongs", "roles.yaml", "version: \"1\"\nroles:\n  - a\n",
			"roles.yaml:2:", "got array, want object"},
		{"version is a number", "roles.yaml", "version: 1\nroles:\n  a: {kind: agent}\n",
			"roles.yaml:1:", "got number, want string (quote it"},
		{"missing version", "lanes.yaml", "lanes:\n  L: {kind: db_write, callers: [a], actions: [\"append:x\"], required_scope: [], prohibitions: []}\n",
			"lanes.yaml:1:", `missing key "version"`},
		{"lane without prohibitions", "lanes.yaml", "version: \"1\"\nlanes:\n  L:\n    kind: db_write\n    callers: [a]\n    actions: [\"append:x\"]\n    required_scope: []\n",
			"lanes.yaml:3:", `lanes.L: missing key "prohibitions"`},
		{"duplicate role", "roles.yaml", "version: \"1\"\nroles:\n  a: {kind: agent}\n  b: {kind: agent}\n  a: {kind: human}\n",
			"roles.yaml:5:", `"a" already defined`},
		{"unknown role kind", "roles.yaml", "version: \"1\"\nroles:\n  a:\n    kind: robot\n",
			"roles.yaml:4:", "want one of agent, human, system"},
		{"invalid role name", "roles.yaml", "version: \"1\"\nroles:\n  a: {kind: agent}\n  bad name: {kind: agent}\n",
			"roles.yaml:4:3:", `"bad name" is not a valid name`},
		{"include of an unknown role", "roles.yaml", "version: \"1\"\nroles:\n  a:\n    kind: agent\n    includes: [b, zz]\n  b: {kind: agent}\n",
			"roles.yaml:5:", `includes unknown role "zz"`},
		{"role includes itself", "roles.yaml", "version: \"1\"\nroles:\n  a:\n    kind: agent\n    includes: [a]\n",
			"roles.yaml:5:", "cannot include itself"},
		{"includes cycle", "roles.yaml", "version: \"1\"\nroles:\n  a:\n    kind: agent\n    includes: [b]\n  b:\n    kind: agent\n    includes: [a]\n",
			"roles.yaml:3:", "cycle: a → b → a"},
		{"unknown role in the matrix", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: none}\ntools:\n  t1:\n    roles:\n      - a\n      - ghost\n    risk: low\n",
			"tools.yaml:8:", `tools.t1.roles: unknown role "ghost"`},
		{"role listed twice in the matrix", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: none}\ntools:\n  t1:\n    roles:\n      - a\n      - a\n    risk: low\n",
			"tools.yaml:8:", "are the same"},
		{"unknown risk class", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: none}\ntools:\n  t1:\n    roles: [a]\n    risk: extreme\n",
			"tools.yaml:7:", `unknown risk class "extreme"`},
		{"unknown approval", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: maybe}\ntools:\n  t1: {roles: [a], risk: low}\n",
			"tools.yaml:3:", "want one of none, critic, human"},
		{"zero limit", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: none}\ntools:\n  t1:\n    roles: [a]\n    risk: low\n    max_calls_per_round: 0\n",
			"tools.yaml:8:", "got 0, want at least 1"},
		{"field rule with both minimums", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: none}\ntools:\n  t1:\n    roles: [a]\n    risk: low\n    requires:\n      - field: d\n        min_items: 1\n        min_chars: 5\n",
			"tools.yaml:9:", "exactly one of min_items and min_chars"},
		{"field rule with no minimum", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: none}\ntools:\n  t1: {roles: [a], risk: low}\nchallenges:\n  requires:\n    - field: claim_refs\n",
			"tools.yaml:8:7:", "challenges.requires[0]: set exactly one"},
		{"two rules for one field", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: none}\ntools:\n  t1:\n    roles: [a]\n    risk: low\n    requires:\n      - {field: d, min_chars: 5}\n      - {field: d, min_chars: 9}\n",
			"tools.yaml:10:", `field "d" already has a rule`},
		{"unknown caller", "lanes.yaml", "version: \"1\"\nlanes:\n  L:\n    kind: db_write\n    callers: [a, nobody]\n    actions: [\"append:x\"]\n    required_scope: []\n    prohibitions: []\n",
			"lanes.yaml:5:", `lanes.L.callers: unknown role "nobody"`},
		{"unknown prohibition", "lanes.yaml", "version: \"1\"\nlanes:\n  L:\n    kind: db_write\n    callers: [a]\n    actions: [\"append:x\"]\n    required_scope: []\n    prohibitions: [secrets]\n",
			"lanes.yaml:8:", "want one of cross_case_lookup"},
		{"unknown lane kind", "lanes.yaml", "version: \"1\"\nlanes:\n  L:\n    kind: shell\n    callers: [a]\n    actions: [\"append:x\"]\n    required_scope: []\n    prohibitions: []\n",
			"lanes.yaml:4:", "want one of tool_gateway"},
		{"db_write lane calling a tool", "lanes.yaml", "version: \"1\"\nlanes:\n  L:\n    kind: db_write\n    callers: [a]\n    actions: [\"append:x\", shell.exec]\n    required_scope: []\n    prohibitions: []\n",
			"lanes.yaml:6:", `"shell.exec" is not append:TABLE`},
		{"tool lane writing a table", "lanes.yaml", "version: \"1\"\nlanes:\n  L:\n    kind: tool_gateway\n    callers: [a]\n    actions:\n      - x.run\n      - \"upsert:x\"\n    required_scope: []\n    prohibitions: []\n",
			"lanes.yaml:8:", "through a db_write lane"},
		{"malformed action", "lanes.yaml", "version: \"1\"\nlanes:\n  L:\n    kind: db_write\n    callers: [a]\n    actions: [\"delete:x\"]\n    required_scope: []\n    prohibitions: []\n",
			"lanes.yaml:6:", `"delete:x" is not valid here`},
		{"cross case with its prohibition", "lanes.yaml", "version: \"1\"\nlanes:\n  L:\n    kind: db_write\n    callers: [a]\n    actions: [\"append:x\"]\n    required_scope: []\n    prohibitions: [cross_case_lookup]\n    cross_case: true\n",
			"lanes.yaml:9:", "cross_case is true but the lane prohibits cross_case_lookup"},
		{"anchor and alias", "roles.yaml", "version: \"1\"\nroles:\n  a: &r {kind: agent}\n  b: *r\n",
			"roles.yaml:3:", "anchors and aliases are not allowed"},
		{"tag", "roles.yaml", "version: !!str 1\nroles:\n  a: {kind: agent}\n",
			"roles.yaml:1:", "tags are not allowed"},
		{"merge key", "roles.yaml", "version: \"1\"\nroles:\n  a: {kind: agent}\n  b:\n    <<: {kind: agent}\n",
			"roles.yaml:5:", "merge keys"},
		{"integer key", "roles.yaml", "version: \"1\"\nroles:\n  1: {kind: agent}\n",
			"roles.yaml:3:", "keys must be strings"},
		{"not a number", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low: {approval: none}\ntools:\n  t1:\n    roles: [a]\n    risk: low\n    max_calls_per_round: .nan\n",
			"tools.yaml:8:", "not a finite number"},
		{"two documents", "roles.yaml", "version: \"1\"\nroles:\n  a: {kind: agent}\n---\nversion: \"2\"\n",
			"roles.yaml:5:", "one YAML document"},
		{"empty file", "roles.yaml", "# nothing here\n", "roles.yaml:", "file is empty"},
		{"not a map", "roles.yaml", "- a\n- b\n", "roles.yaml:1:", "a policy file is a map"},
		{"syntax error", "roles.yaml", "version: \"1\nroles:\n", "roles.yaml:", "invalid YAML"},
		{"bad indentation", "tools.yaml", "version: \"1\"\nrisk_classes:\n  low:\n    approval: none\n   tools: {}\n", "tools.yaml:", "invalid YAML"},
		{"deep brackets", "roles.yaml", "version: \"1\"\nroles: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n",
			"roles.yaml:2:", "nest more than 32 deep"},
		{"too large", "roles.yaml", "version: \"1\"\n" + strings.Repeat("# padding\n", 7000), "roles.yaml:", "larger than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := goodFiles()
			files[tt.file] = tt.content
			_, err := loadFiles(files)
			le := loadError(t, err)
			msg := le.Error()
			if !strings.HasPrefix(msg, tt.where) {
				t.Errorf("got %q, want it to start with %q", msg, tt.where)
			}
			if !strings.Contains(msg, tt.reason) {
				t.Errorf("got %q, want it to say %q", msg, tt.reason)
			}
		})
	}
}

func TestLoad_Files(t *testing.T) {
	without := func(names ...string) map[string]string {
		files := goodFiles()
		for _, n := range names {
			delete(files, n)
		}
		return files
	}
	t.Run("roles and tools", func(t *testing.T) {
		s := mustLoadFiles(t, without("lanes.yaml"))
		if _, ok := s.Versions()[FileLanes]; ok {
			t.Error("got a lanes version without lanes.yaml")
		}
	})
	t.Run("roles and lanes", func(t *testing.T) { mustLoadFiles(t, without("tools.yaml")) })
	t.Run("no roles", func(t *testing.T) {
		_, err := loadFiles(without("roles.yaml"))
		if le := loadError(t, err); le.File != "roles.yaml" || !strings.Contains(le.Reason, "missing") {
			t.Errorf("got %v, want roles.yaml missing", le)
		}
	})
	t.Run("roles only", func(t *testing.T) {
		_, err := loadFiles(without("tools.yaml", "lanes.yaml"))
		if le := loadError(t, err); !strings.Contains(le.Reason, "neither tools.yaml nor lanes.yaml") {
			t.Errorf("got %v, want neither tools.yaml nor lanes.yaml", le)
		}
	})
	t.Run("yml extension", func(t *testing.T) {
		files := goodFiles()
		files["tools.yml"] = files["tools.yaml"]
		_, err := loadFiles(files)
		if le := loadError(t, err); le.File != "tools.yml" || !strings.Contains(le.Reason, "rename it tools.yaml") {
			t.Errorf("got %v, want tools.yml to be renamed", le)
		}
	})
	t.Run("errors name the folder", func(t *testing.T) {
		dir := t.TempDir()
		for name, content := range goodFiles() {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "lanes.yaml"), []byte("version: \"1\"\nlanes: {L: {kind: db_write}}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir)
		want := filepath.Join(dir, "lanes.yaml") + ":2:"
		if le := loadError(t, err); !strings.HasPrefix(le.Error(), want) {
			t.Errorf("got %q, want it to start with %q", le.Error(), want)
		}
	})
	t.Run("missing folder", func(t *testing.T) {
		_, err := Load(filepath.Join(t.TempDir(), "nope"))
		if le := loadError(t, err); !strings.Contains(le.Reason, "folder not found") {
			t.Errorf("got %v, want folder not found", le)
		}
	})
}
