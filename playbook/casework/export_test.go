package casework_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/casework/redact"
	"github.com/sanadhq/sanad/playbook/casework"
	"github.com/sanadhq/sanad/runner"
)

func runnerOpts(caseID string) runner.Options {
	return runner.Options{Scope: scopeOf(caseID), Caller: "test"}
}

func exportRequest(caseID, profile string) redact.Request {
	return redact.Request{ID: "exp-" + caseID + "-" + profile, CaseID: caseID, Profile: profile, Scope: redact.Scopes, Reason: "production to opposing counsel"}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// exportBundle writes the bundle of trace as the kernel's exporter does,
// verifies it offline against the home's pinned log key, and returns its
// files by name.
func exportBundle(t *testing.T, e *env, caseID, trace string) map[string][]byte {
	t.Helper()
	var buf bytes.Buffer
	x := &bundle.Exporter{Ledger: e.h.Ledger, Artifacts: e.h.Artifacts, Runs: e.h.Runs}
	res, err := x.Export(t.Context(), scopeOf(caseID), trace, &buf)
	if err != nil {
		t.Fatal(err)
	}
	key, err := e.h.Ledger.VerifierKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bundle.Verify(bytes.NewReader(buf.Bytes()), bundle.Options{Types: e.h.Types, LogKeys: bundle.PinLogKey(key)}); err != nil {
		t.Fatalf("the export does not verify offline: %v", err)
	}
	// The export run records its authorize, assemble and finalize events.
	var got []string
	for _, ev := range e.events(res.ExportRun) {
		if strings.HasPrefix(ev.Type, "export.") {
			got = append(got, ev.Type)
		}
	}
	if want := []string{bundle.TypeExportAuthorized, bundle.TypeExportAssembled, bundle.TypeExportFinalized}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("export events %v, want %v", got, want)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = data
	}
	return files
}

// redactedContents returns the exported items of a bundle's files by path:
// the outputs of redaction.apply.
func redactedContents(t *testing.T, files map[string][]byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for name, data := range files {
		if !strings.HasPrefix(name, "artifacts/") {
			continue
		}
		var r casework.Redacted
		if json.Unmarshal(data, &r) == nil && r.Path != "" && r.Item != "" {
			out[r.Path] = []byte(r.Content)
		}
	}
	return out
}

// bundleEvents returns the actions the bundle's authz decisions name.
func bundleEvents(t *testing.T, e *env, files map[string][]byte) []string {
	t.Helper()
	var out []string
	for _, line := range bytes.Split(files["events.jsonl"], []byte("\n")) {
		var ev struct {
			Type string `json:"type"`
			Body struct {
				Action string `json:"action"`
			} `json:"body"`
		}
		if len(line) > 0 && json.Unmarshal(line, &ev) == nil && ev.Type == "authz.decision" {
			out = append(out, ev.Body.Action)
		}
	}
	return out
}

// TestC12_ExportRedactsEveryFileOfTheBundle: with the discovery profile, no
// file of the bundle (events, artifacts, manifest, keys) holds any personal
// data of the case: the client's and the parties' names, emails, phones
// and addresses, nor the privileged note; the bundle verifies offline.
func TestC12_ExportRedactsEveryFileOfTheBundle(t *testing.T) {
	e := newEnv(t)
	e.openMatter("tenant-retaliation", "c-1")
	e.run(casework.Map, "c-1", casework.MapInput{})
	res := e.run(casework.Export, "c-1", casework.ExportInput{Request: exportRequest("c-1", "discovery")})
	files := exportBundle(t, e, "c-1", res.Trace)
	pii := []string{"Maria", "Delgado", "Victor Hale", "Hale,", "Janet", "Ruiz", "maria.delgado@example.net", "vhale@harborviewprops.example",
		"555 0148", "555 0193", "2210 Alder Street", "480 Grand Avenue", "Harbor View Properties", "presumption of retaliation"}
	for name, data := range files {
		for _, v := range pii {
			if bytes.Contains(bytes.ToLower(data), bytes.ToLower([]byte(v))) {
				t.Errorf("%s holds %q", name, v)
			}
		}
	}
	actions := strings.Join(bundleEvents(t, e, files), " ")
	for _, a := range []string{casework.ToolExportAuthorize, casework.ToolRedact, casework.ToolExportAssemble, casework.ToolExportFinalize} {
		if !strings.Contains(actions, "tool:"+a) {
			t.Errorf("the bundle records no decision on %s", a)
		}
	}
	// The redacted content is still useful: the amounts and dates remain.
	var all strings.Builder
	for _, c := range redactedContents(t, files) {
		all.Write(c)
	}
	for _, keep := range []string{"$1,800", "October 29, 2025", "security deposit"} {
		if !strings.Contains(all.String(), keep) {
			t.Errorf("the export lost %q", keep)
		}
	}
}

// TestC12_PrivilegedItemRefusedWhateverTheCaller: redaction.apply of a
// privileged document is refused by the store's tag, not the caller's word.
func TestC12_PrivilegedItemRefusedWhateverTheCaller(t *testing.T) {
	e := newEnv(t)
	e.openMatter("tenant-retaliation", "c-1")
	res := e.run(casework.Export, "c-1", casework.ExportInput{Request: exportRequest("c-1", "attorney_review")})
	var out casework.ExportOutcome
	if err := json.Unmarshal(res.Outputs["export"], &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Excluded) != 1 {
		t.Fatalf("excluded %+v, want the privileged note", out.Excluded)
	}
	g := e.gateway()
	parent := e.agentRun(casework.RoleExport, "c-1")
	got := g.Call(t.Context(), parent, principalOf(casework.RoleExport, "c-1"), toolRequest(t, casework.ToolRedact,
		map[string]any{"export_request_id": "x-1", "item": out.Excluded[0].Item, "profile": "attorney_review"}))
	if got.Code != sanad.CodePolicyDenied {
		t.Errorf("redacting the privileged item: got %s %s, want POLICY_DENIED", got.Code, got.Message)
	}
}
