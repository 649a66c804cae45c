package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"testing"

	"github.com/sanadhq/sanad"
)

func artifactRef(content, mediaType string, scope sanad.Scope, run string) sanad.ArtifactRef {
	sum := sha256.Sum256([]byte(content))
	h := hex.EncodeToString(sum[:])
	return sanad.ArtifactRef{
		ID: sanad.ArtifactID(h), SHA256: h, MediaType: mediaType, SizeBytes: int64(len(content)),
		URI: sanad.ArtifactURI(h), Scope: scope, CreatedByRun: run,
	}
}

// testArtifacts: the artifact index returns what was put, within its scope
// only; putting a ref again is not an error and does not change it; the same
// content may be indexed in several cases, each with its own ref.
func testArtifacts(t *testing.T, open Open) {
	ctx := t.Context()
	s := open(t)
	case1 := sanad.Scope{Tenant: "acme", Case: "case-1"}
	case2 := sanad.Scope{Tenant: "acme", Case: "case-2"}
	tenantWide := sanad.Scope{Tenant: "acme"}
	otherTenant := sanad.Scope{Tenant: "globex", Case: "case-1"}

	memo := artifactRef("the memo", "text/plain", case1, "run-1")
	if err := s.PutArtifact(ctx, memo); err != nil {
		t.Fatalf("PutArtifact: %v", err)
	}
	get := func(id string, scope sanad.Scope, want sanad.ArtifactRef) {
		t.Helper()
		got, err := s.Artifact(ctx, id, scope)
		if err != nil {
			t.Fatalf("Artifact(%s, %s): %v", id, scope, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Artifact(%s, %s): got %+v, want %+v", id, scope, got, want)
		}
	}
	get(memo.ID, case1, memo)

	// Idempotent: the same ref again, and again with another creating run,
	// keep the first record.
	if err := s.PutArtifact(ctx, memo); err != nil {
		t.Fatalf("PutArtifact again: %v", err)
	}
	later := memo
	later.CreatedByRun = "run-2"
	if err := s.PutArtifact(ctx, later); err != nil {
		t.Fatalf("PutArtifact of an indexed artifact by another run: %v", err)
	}
	get(memo.ID, case1, memo)

	// Isolation: another case, the tenant-wide scope and another tenant do
	// not see it.
	for _, scope := range []sanad.Scope{case2, tenantWide, otherTenant} {
		_, err := s.Artifact(ctx, memo.ID, scope)
		wantCode(t, "Artifact("+memo.ID+", "+scope.String()+")", err, sanad.CodeNotFound)
	}
	_, err := s.Artifact(ctx, artifactRef("never put", "text/plain", case1, "").ID, case1)
	wantCode(t, "Artifact(never put)", err, sanad.CodeNotFound)

	// The same content in another case is that case's own artifact.
	memo2 := artifactRef("the memo", "text/plain", case2, "run-9")
	if err := s.PutArtifact(ctx, memo2); err != nil {
		t.Fatalf("PutArtifact in case-2: %v", err)
	}
	get(memo.ID, case1, memo)
	get(memo2.ID, case2, memo2)

	shared := artifactRef("tenant-wide policy", "application/yaml", tenantWide, "")
	if err := s.PutArtifact(ctx, shared); err != nil {
		t.Fatalf("PutArtifact tenant-wide: %v", err)
	}
	get(shared.ID, tenantWide, shared)
	_, err = s.Artifact(ctx, shared.ID, otherTenant)
	wantCode(t, "Artifact(tenant-wide, another tenant)", err, sanad.CodeNotFound)

	empty := artifactRef("", "application/octet-stream", case1, "run-3")
	if err := s.PutArtifact(ctx, empty); err != nil {
		t.Fatalf("PutArtifact of empty content: %v", err)
	}
	get(empty.ID, case1, empty)
}
