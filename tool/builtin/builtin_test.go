package builtin_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/tool/builtin"
)

func tools(t *testing.T) (map[string]tool.Spec, *home.Home) {
	t.Helper()
	h, err := home.Open(context.Background(), home.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	specs := builtin.Tools(h.Artifacts)
	if _, err := tool.NewRegistry(specs...); err != nil {
		t.Fatal(err)
	}
	m := map[string]tool.Spec{}
	for _, s := range specs {
		m[s.Name] = s
	}
	return m, h
}

func TestArtifactPutStoresInTheCallsCase(t *testing.T) {
	m, h := tools(t)
	scope := sanad.Scope{Tenant: "t", Case: "c"}
	out, err := m[builtin.ArtifactPut].Func(context.Background(), tool.Call{Input: json.RawMessage(`{"content":"memo"}`), Run: "r1",
		Principal: policy.Principal{Agent: "a", Role: "r", Scope: scope}})
	if err != nil {
		t.Fatal(err)
	}
	var ref builtin.PutOutput
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatal(err)
	}
	data, got, err := h.Artifacts.Get(context.Background(), ref.ID, scope)
	if err != nil || string(data) != "memo" || got.MediaType != builtin.DefaultMediaType || ref.SizeBytes != 4 {
		t.Fatalf("stored %q as %+v (%v)", data, got, err)
	}
	if _, _, err := h.Artifacts.Get(context.Background(), ref.ID, sanad.Scope{Tenant: "t", Case: "other"}); sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Fatalf("another case reads it: %v", err)
	}
}

func TestHashAndWait(t *testing.T) {
	m, _ := tools(t)
	out, err := m[builtin.HashSHA256].Func(context.Background(), tool.Call{Input: json.RawMessage(`{"text":"abc"}`)})
	if err != nil || string(out) != `{"sha256":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}` {
		t.Fatalf("hash: %s, %v", out, err)
	}
	out, err = m[builtin.TimeWait].Func(context.Background(), tool.Call{Input: json.RawMessage(`{"ms":1}`)})
	if err != nil || string(out) != `{"waited_ms":1}` {
		t.Fatalf("wait: %s, %v", out, err)
	}
	if _, err := m[builtin.TimeWait].Func(context.Background(), tool.Call{Input: json.RawMessage(`{"ms":10001}`)}); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Fatalf("too long a wait: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := m[builtin.TimeWait].Func(ctx, tool.Call{Input: json.RawMessage(`{"ms":10000}`)}); sanad.ErrorCode(err) != sanad.CodeTimeout {
		t.Fatalf("a wait past its deadline: %v, want ERR_TIMEOUT", err)
	}
}
