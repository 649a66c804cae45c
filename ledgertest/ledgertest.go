// Package ledgertest helps tests of the ledger and of what is built on it: a
// home folder in a temporary directory, a realistic recorded trace, and the
// tools to copy a home and to tamper with its stored events the way an
// attacker with access to the files could.
package ledgertest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, for tampering
)

// Scope is the scope of the traces [Record] writes.
var Scope = sanad.Scope{Tenant: "acme", Case: "case-7"}

// DBFile is the name of the SQLite file in a home folder.
const DBFile = "sanad.db"

// Home opens a fresh home in a temporary folder and closes it when the test
// ends.
func Home(tb testing.TB) *home.Home {
	tb.Helper()
	return Open(tb, tb.TempDir())
}

// Open opens the home in dir (creating it if needed) and closes it when the
// test ends. Closing it earlier with [Close] is allowed.
func Open(tb testing.TB, dir string) *home.Home {
	tb.Helper()
	h, err := home.Open(context.Background(), home.Config{Dir: dir})
	if err != nil {
		tb.Fatalf("home.Open(%s): got error %v, want nil", dir, err)
	}
	tb.Cleanup(func() { _ = h.Close() })
	return h
}

// OpenErr opens the home in dir as [Open] does, but returns the error of an
// open that fails: a tampered home may be refused before any verification.
func OpenErr(tb testing.TB, dir string) (*home.Home, error) {
	tb.Helper()
	h, err := home.Open(context.Background(), home.Config{Dir: dir})
	if err != nil {
		return nil, err
	}
	tb.Cleanup(func() { _ = h.Close() })
	return h, nil
}

// Close closes h now, so that its files can be copied or changed. The
// cleanup registered by [Open] closes it again, which is harmless.
func Close(tb testing.TB, h *home.Home) {
	tb.Helper()
	if err := h.Close(); err != nil {
		tb.Fatalf("closing home %s: got error %v, want nil", h.Dir, err)
	}
}

// agents act in the traces Record writes, each with its own key.
var agents = []struct{ name, role string }{
	{"intake-agent", "intake"},
	{"mapping-agent", "mapping"},
	{"sanad-breaker", "sanad_breaker"},
	{"risk-officer", "risk_officer"},
	{"arbiter", "arbiter"},
}

// Record writes one trace of at least n events to h, as a workflow would: a
// root workflow run by an orchestrator, with child agent runs that take and
// produce artifacts (stored with h.Artifacts.Put), some of which start their
// own tool-gateway child runs; completions are signed by the acting agents;
// every seventh child is denied by policy and every fifth fails. It returns
// the trace id (the root run's id).
func Record(tb testing.TB, h *home.Home, n int) string {
	tb.Helper()
	ctx := context.Background()
	put := func(run, media string, content string) sanad.ArtifactRef {
		tb.Helper()
		ref, err := h.Artifacts.Put(ctx, Scope, run, media, []byte(content))
		if err != nil {
			tb.Fatalf("Artifacts.Put: got error %v, want nil", err)
		}
		return ref
	}
	brief := put("operator", "text/markdown", "# Intake brief\n\nThe client reports a breach of the supply contract of 2024-03-01.\n")
	policies := map[string]sanad.PolicyVersion{
		"lanes": {Version: "2025.1", SHA256: "3f0c2b7a9d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c"},
		"roles": {Version: "2025.1", SHA256: "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"},
	}
	root, err := h.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindWorkflow, Scope: Scope, Agent: "orchestrator", Role: "orchestrator",
		CorrelationID: "corr-1", PolicyVersions: policies, TaxonomyVersions: map[string]string{"coa": "v3"},
		Inputs: []sanad.ArtifactRef{brief}, Request: map[string]any{"playbook": "casework", "case": Scope.Case},
		Decision: runs.Decision{Allow: true, Reason: "orchestrator may run the casework workflow", Rule: "lane.casework"},
	})
	if err != nil {
		tb.Fatalf("starting the root run: got error %v, want nil", err)
	}
	events := 2
	var outputs []sanad.ArtifactRef
	for i := 0; events+1 < n; i++ {
		a := agents[i%len(agents)]
		input := brief
		if len(outputs) > 0 {
			input = outputs[len(outputs)-1]
		}
		allow := i%7 != 6
		child, err := h.Runs.Start(ctx, runs.Spec{
			Kind: sanad.KindAgent, Parent: root, Scope: Scope, Agent: a.name, Role: a.role,
			Inputs: []sanad.ArtifactRef{input}, Request: map[string]any{"step": i, "agent": a.name},
			Decision: runs.Decision{Allow: allow, Reason: fmt.Sprintf("lane %s for role %s", map[bool]string{true: "allows", false: "denies"}[allow], a.role), Action: "run:agent", Resource: a.name},
		})
		events += 2
		if !allow {
			if sanad.ErrorCode(err) != sanad.CodePolicyDenied {
				tb.Fatalf("denied child run %d: got error %v, want POLICY_DENIED", i, err)
			}
			events++
			continue
		}
		if err != nil {
			tb.Fatalf("starting child run %d: got error %v, want nil", i, err)
		}
		if i%3 == 1 {
			tool, err := h.Runs.Start(ctx, runs.Spec{
				Kind: sanad.KindToolGateway, Parent: child, Scope: Scope, Agent: a.name, Role: a.role,
				Request:  map[string]any{"tool": "search_evidence", "query": fmt.Sprintf("clause %d", i)},
				Decision: runs.Decision{Allow: true, Reason: "tool search_evidence is allowed for " + a.role, Action: "tool:search_evidence"},
			})
			if err != nil {
				tb.Fatalf("starting tool run %d: got error %v, want nil", i, err)
			}
			found := put(tool.Record.ID, "application/json", fmt.Sprintf(`{"hits":[{"doc":"contract.pdf","page":%d}]}`, i%40+1))
			if err := tool.Complete(ctx, []sanad.ArtifactRef{found}, map[string]any{"hits": 1}); err != nil {
				tb.Fatalf("completing tool run %d: got error %v, want nil", i, err)
			}
			events += 3
		}
		if i%5 == 4 {
			cause := sanad.Errorf(sanad.CodeDependencyDown, "model.call", "model provider timed out after 30s (step %d)", i)
			if err := child.Fail(ctx, cause); err != nil {
				tb.Fatalf("failing child run %d: got error %v, want nil", i, err)
			}
			events++
			continue
		}
		out := put(child.Record.ID, "application/json", fmt.Sprintf(`{"step":%d,"agent":%q,"finding":"clause %d supports the claim"}`, i, a.name, i))
		outputs = append(outputs, out)
		if err := child.Complete(ctx, []sanad.ArtifactRef{out}, map[string]any{"finding": i}); err != nil {
			tb.Fatalf("completing child run %d: got error %v, want nil", i, err)
		}
		events++
	}
	summary := put(root.Record.ID, "text/markdown", fmt.Sprintf("# Workflow summary\n\n%d findings.\n", len(outputs)))
	if err := root.Complete(ctx, []sanad.ArtifactRef{summary}, map[string]any{"findings": len(outputs)}); err != nil {
		tb.Fatalf("completing the root run: got error %v, want nil", err)
	}
	return root.Record.Trace
}

// CopyHome copies the closed home folder src to a new temporary folder and
// returns its path.
func CopyHome(tb testing.TB, src string) string {
	tb.Helper()
	return copyHome(tb, src, true)
}

// CopyLedger copies what a ledger needs of the closed home folder src — the
// database and the keys, not the artifact blobs — to a new temporary folder
// and returns its path.
func CopyLedger(tb testing.TB, src string) string {
	tb.Helper()
	return copyHome(tb, src, false)
}

func copyHome(tb testing.TB, src string, blobs bool) string {
	tb.Helper()
	dst := tb.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if !blobs && rel == "blobs" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, info.Mode().Perm())
		}
		return copyFile(p, target, info.Mode().Perm())
	})
	if err != nil {
		tb.Fatalf("copying home %s: %v", src, err)
	}
	return dst
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Tamper opens the SQLite file of the closed home in dir directly, as an
// attacker with the files would, and calls fn with it.
func Tamper(tb testing.TB, dir string, fn func(db *sql.DB) error) {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		tb.Fatalf("opening %s for tampering: %v", dir, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	// Many small edits: do not wait for the disk after each.
	if _, err := db.Exec("PRAGMA synchronous = OFF"); err != nil {
		tb.Fatalf("opening %s for tampering: %v", dir, err)
	}
	if err := fn(db); err != nil {
		tb.Fatalf("tampering with %s: %v", dir, err)
	}
	if err := db.Close(); err != nil {
		tb.Fatalf("closing %s after tampering: %v", dir, err)
	}
}

// Reseal returns the sealed event raw after edit has changed its JSON object
// (numbers are json.Number, the body a map): the hash is recomputed as the
// SHA-256 of the RFC 8785 form without hash and sig, and the event is signed
// again with key. With a nil key the old signature is kept, as an attacker
// without the key would have to. The result is canonical, so it decodes.
func Reseal(tb testing.TB, raw []byte, key *keyring.Key, edit func(ev map[string]any)) []byte {
	tb.Helper()
	var ev map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&ev); err != nil {
		tb.Fatalf("Reseal: event does not parse: %v", err)
	}
	if edit != nil {
		edit(ev)
	}
	sig := ev["sig"]
	delete(ev, "hash")
	delete(ev, "sig")
	pre, err := canon.Marshal(ev)
	if err != nil {
		tb.Fatalf("Reseal: canonical form: %v", err)
	}
	h := canon.Sum(pre)
	ev["hash"] = h.String()
	ev["sig"] = sig
	if key != nil {
		ev["sig"] = base64.StdEncoding.EncodeToString(key.Sign(ledger.SigningMessage(h)))
	}
	out, err := canon.Marshal(ev)
	if err != nil {
		tb.Fatalf("Reseal: canonical form: %v", err)
	}
	return out
}

// Field returns the string at the dotted path of the event raw ("actor.key").
func Field(tb testing.TB, raw []byte, path string) string {
	tb.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		tb.Fatalf("Field: event does not parse: %v", err)
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			tb.Fatalf("Field: %s: not an object at %q", path, k)
		}
		v = m[k]
	}
	s, ok := v.(string)
	if !ok {
		tb.Fatalf("Field: %s is %T, not a string", path, v)
	}
	return s
}
