package main

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"

	"github.com/sanadhq/sanad/model/modeltest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"sanad": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI scripts in testdata/script: each is a txtar file
// of commands and expected output (rogpeppe/go-internal/testscript).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("SANAD_HOME", env.WorkDir+"/home")
			policies, err := filepath.Abs("../../examples/policies")
			if err != nil {
				return err
			}
			env.Setenv("POLICIES", policies)
			deals, err := filepath.Abs("../../examples/deals")
			if err != nil {
				return err
			}
			env.Setenv("DEALS", deals)
			cases, err := filepath.Abs("../../examples/cases")
			if err != nil {
				return err
			}
			env.Setenv("CASES", cases)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonenv":          jsonEnv,
			"checknote":        checkNote,
			"checkproof":       checkProof,
			"checkconsistency": checkConsistency,
			"truncate":         truncateFile,
			"sqlexec":          sqlExec,
			"fakemodel":        fakeModel,
			"expandenv":        expandEnv,
		},
	})
}

// jsonenv VAR FILE PATH sets VAR to the string (or number) at PATH of the
// first JSON value in FILE: keys and array indexes joined by dots, such as
// run or gates.0.
func jsonEnv(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: jsonenv VAR FILE PATH")
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[1])))
	ts.Check(dec.Decode(&v))
	for _, k := range strings.Split(args[2], ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				ts.Fatalf("no key %q in %s", k, args[1])
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				ts.Fatalf("no index %q in %s", k, args[1])
			}
			v = x[i]
		default:
			ts.Fatalf("%q of %s is not in an object or an array", k, args[1])
		}
	}
	switch x := v.(type) {
	case string:
		ts.Setenv(args[0], x)
	case float64:
		ts.Setenv(args[0], strconv.FormatFloat(x, 'f', -1, 64))
	default:
		ts.Fatalf("%q is not a string or number", args[2])
	}
}

// checknote CHECKPOINT_FILE KEY_FILE opens the signed note with a verifier
// made from the key text, as any C2SP signed-note user would.
func checkNote(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: checknote CHECKPOINT_FILE KEY_FILE")
	}
	v, err := note.NewVerifier(strings.TrimSpace(ts.ReadFile(args[1])))
	ts.Check(err)
	n, err := note.Open([]byte(ts.ReadFile(args[0])), note.VerifierList(v))
	if neg {
		if err == nil {
			ts.Fatalf("note verified, want failure")
		}
		return
	}
	ts.Check(err)
	if !strings.HasPrefix(n.Text, v.Name()+"\n") {
		ts.Fatalf("checkpoint origin is not %q", v.Name())
	}
}

// checkproof PROOF_JSON verifies `sanad ledger proof --json` output with
// transparency-dev/merkle's proof.VerifyInclusion.
func checkProof(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: checkproof PROOF_JSON")
	}
	var p struct {
		LeafIndex uint64   `json:"leaf_index"`
		TreeSize  uint64   `json:"tree_size"`
		LeafHash  string   `json:"leaf_hash"`
		RootHash  string   `json:"root_hash"`
		Proof     []string `json:"proof"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &p))
	dec := func(s string) []byte {
		b, err := base64.StdEncoding.DecodeString(s)
		ts.Check(err)
		return b
	}
	var hashes [][]byte
	for _, h := range p.Proof {
		hashes = append(hashes, dec(h))
	}
	err := proof.VerifyInclusion(rfc6962.DefaultHasher, p.LeafIndex, p.TreeSize, dec(p.LeafHash), hashes, dec(p.RootHash))
	if neg != (err != nil) {
		ts.Fatalf("VerifyInclusion = %v, neg %v", err, neg)
	}
}

// truncate FILE N cuts FILE to N bytes.
func truncateFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: truncate FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	ts.Check(os.Truncate(ts.MkAbs(args[0]), int64(n)))
}

// sqlexec DB STATEMENT runs one SQL statement on the SQLite file DB, as
// someone with the file and no key could.
func sqlExec(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sqlexec DB STATEMENT")
	}
	db, err := sql.Open("sqlite", ts.MkAbs(args[0]))
	ts.Check(err)
	defer db.Close()
	_, err = db.Exec(args[1])
	ts.Check(err)
}

// fakemodel VAR starts a fake OpenAI-compatible server in the test process
// for the rest of the script and sets VAR to its base URL (".../v1"). It
// answers every chat completion with "OK" (12 prompt tokens, 1 completion
// token), and a request made with the key "bad" with 401.
func fakeModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakemodel VAR")
	}
	srv := modeltest.NewServer(nil)
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.BaseURL())
}

// expandenv FILE replaces $VAR and ${VAR} in FILE with the script's
// environment variables.
func expandEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: expandenv FILE")
	}
	path := ts.MkAbs(args[0])
	ts.Check(os.WriteFile(path, []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
}

// checkconsistency REPORT_JSON verifies, with transparency-dev/merkle's
// proof.VerifyConsistency, the proof sanad ledger consistency --json printed.
func checkConsistency(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: checkconsistency REPORT_JSON")
	}
	type side struct {
		Size uint64 `json:"tree_size"`
		Root []byte `json:"root_hash"`
	}
	var r struct {
		Old, New side
		Proof    [][]byte
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &r))
	err := proof.VerifyConsistency(rfc6962.DefaultHasher, r.Old.Size, r.New.Size, r.Proof, r.Old.Root, r.New.Root)
	if neg != (err != nil) {
		ts.Fatalf("VerifyConsistency = %v, neg %v", err, neg)
	}
}
