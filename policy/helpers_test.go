package policy

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/sanadhq/sanad"
)

const (
	debateDir   = "../examples/policies/debate"
	caseworkDir = "../examples/policies/casework"
)

// loadDir loads a policy folder or fails the test.
func loadDir(tb testing.TB, dir string) *Set {
	tb.Helper()
	s, err := Load(dir)
	if err != nil {
		tb.Fatalf("Load(%s): %v", dir, err)
	}
	return s
}

// loadFiles loads a policy made of the given files (name → content).
func loadFiles(files map[string]string) (*Set, error) {
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	return LoadFS(fsys)
}

// mustLoadFiles is loadFiles that fails the test on error.
func mustLoadFiles(tb testing.TB, files map[string]string) *Set {
	tb.Helper()
	s, err := loadFiles(files)
	if err != nil {
		tb.Fatalf("LoadFS: %v", err)
	}
	return s
}

// loadError returns the *LoadError inside err, or fails the test.
func loadError(tb testing.TB, err error) *LoadError {
	tb.Helper()
	if err == nil {
		tb.Fatal("got no error, want a load error")
	}
	if got := sanad.ErrorCode(err); got != sanad.CodeInvalidInput {
		tb.Errorf("error code: got %s, want %s", got, sanad.CodeInvalidInput)
	}
	var le *LoadError
	if !errors.As(err, &le) {
		tb.Fatalf("got %v (%T), want a *LoadError inside", err, err)
	}
	return le
}

// Scopes used across the tests.
var (
	caseA      = sanad.Scope{Tenant: "acme", Case: "case-a"}
	caseB      = sanad.Scope{Tenant: "acme", Case: "case-b"}
	tenantWide = sanad.Scope{Tenant: "acme"}
	otherCaseA = sanad.Scope{Tenant: "globex", Case: "case-a"}
)

// laneResource returns a resource in scope that provides every scope field
// lane l requires.
func laneResource(l Lane, scope sanad.Scope) Resource {
	fields := map[string]string{}
	for _, f := range l.RequiredScope {
		if f != "case_id" && f != "tenant_id" {
			fields[f] = f + "-1"
		}
	}
	return Resource{Scope: scope, Fields: fields}
}

// laneScope returns the resource scope a lane's work targets: the case for
// case lanes, the tenant for a lane that needs no case (promotion).
func laneScope(l Lane) sanad.Scope {
	for _, f := range l.RequiredScope {
		if f == "case_id" {
			return caseA
		}
	}
	return tenantWide
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
