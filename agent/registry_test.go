package agent

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
)

func TestINV_AGT_002_DuplicateIDRejected(t *testing.T) {
	r := registry(t, profile("analyst", []string{"analyse revenue"}, nil))
	dup := profile("analyst", []string{"something else"}, nil)
	wantCode(t, r.Create(dup), sanad.CodeConflict, "agent analyst already exists", "use Update")
	got, err := r.Get("analyst")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"analyse revenue"}; !reflect.DeepEqual(got.ExampleTasks, want) {
		t.Errorf("got example tasks %q after a refused Create, want %q", got.ExampleTasks, want)
	}
	// The standard agent's id is taken from the start.
	wantCode(t, r.Create(profile(StandardID, nil, nil)), sanad.CodeConflict, "agent standard already exists")
}

func TestINV_AGT_002_UpdateVersusCreate(t *testing.T) {
	r := NewRegistry()
	p := profile("critic", []string{"challenge the finding"}, nil)
	wantCode(t, r.Update(p), sanad.CodeNotFound, "agent critic does not exist", "use Create")
	if err := r.Create(p); err != nil {
		t.Fatalf("Create: %v", err)
	}
	p.Version = "2"
	if err := r.Update(p); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got, _ := r.Get("critic"); got.Version != "2" {
		t.Errorf("got version %q after Update, want 2", got.Version)
	}
}

func TestStandardAgentProtected(t *testing.T) {
	r := NewRegistry()
	std, err := r.Get(StandardID)
	if err != nil {
		t.Fatalf("Get(standard): %v", err)
	}
	if !std.Enabled || std.Validate() != nil {
		t.Fatalf("got standard %+v (valid: %v), want an enabled valid profile", std, std.Validate())
	}
	wantCode(t, r.Remove(StandardID), sanad.CodeInvalidInput, "cannot be removed")
	off := Standard()
	off.Enabled = false
	wantCode(t, r.Update(off), sanad.CodeInvalidInput, "cannot be disabled")
	changed := Standard()
	changed.ExampleTasks = []string{"answer a general question"}
	if err := r.Update(changed); err != nil {
		t.Fatalf("Update(standard): %v", err)
	}
	if got := r.Select("answer a general question")[0]; got.Agent != StandardID || got.Confidence != 0.6 {
		t.Errorf("got %s at %v, want standard at 0.6", got.Agent, got.Confidence)
	}
}

func TestRegistryGetListRemove(t *testing.T) {
	r := registry(t, profile("b", nil, nil), profile("a", nil, nil))
	var ids []string
	for _, p := range r.List() {
		ids = append(ids, p.ID)
	}
	if want := []string{"a", "b", "standard"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("got List ids %q, want %q", ids, want)
	}
	if err := r.Remove("a"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	wantCode(t, r.Remove("a"), sanad.CodeNotFound)
	if _, err := r.Get("a"); sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Errorf("got %v after Remove, want NOT_FOUND", err)
	}
}

func TestRegistryCopies(t *testing.T) {
	p := profile("a", []string{"one"}, nil)
	r := registry(t, p)
	p.ExampleTasks[0] = "changed by the caller"
	got, _ := r.Get("a")
	got.ExampleTasks[0] = "changed again"
	if again, _ := r.Get("a"); again.ExampleTasks[0] != "one" {
		t.Errorf("got %q, want one: the registry must not share slices with callers", again.ExampleTasks[0])
	}
}

func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Go(func() {
			id := fmt.Sprintf("agent-%d", i%8) // each id is created by two goroutines
			err := r.Create(profile(id, []string{"task " + id}, nil))
			if err != nil && sanad.ErrorCode(err) != sanad.CodeConflict {
				errs <- err
			}
			r.Select("task " + id)
			r.List()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("got %v, want nil or CONFLICT", err)
	}
	if got := len(r.List()); got != 9 {
		t.Errorf("got %d agents, want 9", got)
	}
}
