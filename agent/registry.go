package agent

import (
	"sort"
	"sync"

	"github.com/sanadhq/sanad"
)

// StandardID is the id of the generalist agent every registry holds.
const StandardID = "standard"

const opRegistry = "agent.registry"

// Standard returns the built-in profile of the standard agent: the
// generalist that takes a task no specialist claims.
func Standard() Profile {
	return Profile{
		ID:          StandardID,
		Name:        "Standard",
		Description: "Generalist agent: takes any task that no specialist agent claims.",
		Role:        "agent",
		ModelClass:  "reasoning",
		Enabled:     true,
		Version:     "1",
	}
}

// Registry holds agent profiles by id. It always holds an enabled
// [StandardID] agent, which may be updated but never removed or disabled.
// Every profile is validated before it enters, so a registry never holds an
// invalid one. A Registry is safe for concurrent use; profiles go in and
// come out as copies.
type Registry struct {
	// mu guards agents.
	mu     sync.RWMutex
	agents map[string]Profile
}

// NewRegistry returns a registry holding only the standard agent.
func NewRegistry() *Registry {
	return &Registry{agents: map[string]Profile{StandardID: Standard()}}
}

// Create adds p. It fails with INVALID_INPUT if p is not valid and with
// CONFLICT if its id is taken; the registry is then unchanged.
func (r *Registry) Create(p Profile) error { return r.CreateAll(p) }

// CreateAll adds every profile of ps, or none of them: it fails as [Create]
// does on the first profile that could not be added.
func (r *Registry) CreateAll(ps ...Profile) error {
	for _, p := range ps {
		if err := p.Validate(); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := make(map[string]bool, len(ps))
	for _, p := range ps {
		if _, taken := r.agents[p.ID]; taken || seen[p.ID] {
			return sanad.Errorf(sanad.CodeConflict, opRegistry, "agent %s already exists: use Update to change it", p.ID)
		}
		seen[p.ID] = true
	}
	for _, p := range ps {
		r.agents[p.ID] = p.clone()
	}
	return nil
}

// Update replaces the profile with p's id. It fails with INVALID_INPUT if p
// is not valid or would disable the standard agent, and with NOT_FOUND if
// no agent has p's id; the registry is then unchanged.
func (r *Registry) Update(p Profile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if p.ID == StandardID && !p.Enabled {
		return sanad.Errorf(sanad.CodeInvalidInput, opRegistry, "the standard agent cannot be disabled: it is the fallback of every selection")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.agents[p.ID]; !ok {
		return sanad.Errorf(sanad.CodeNotFound, opRegistry, "agent %s does not exist: use Create to add it", p.ID)
	}
	r.agents[p.ID] = p.clone()
	return nil
}

// Remove deletes the agent id. It fails with NOT_FOUND if there is none,
// and with INVALID_INPUT for the standard agent.
func (r *Registry) Remove(id string) error {
	if id == StandardID {
		return sanad.Errorf(sanad.CodeInvalidInput, opRegistry, "the standard agent cannot be removed: it is the fallback of every selection")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.agents[id]; !ok {
		return sanad.Errorf(sanad.CodeNotFound, opRegistry, "agent %s does not exist", id)
	}
	delete(r.agents, id)
	return nil
}

// Get returns the profile of id, or NOT_FOUND.
func (r *Registry) Get(id string) (Profile, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.agents[id]
	if !ok {
		return Profile{}, sanad.Errorf(sanad.CodeNotFound, opRegistry, "agent %s does not exist", id)
	}
	return p.clone(), nil
}

// List returns every profile, enabled or not, sorted by id.
func (r *Registry) List() []Profile {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Profile, 0, len(r.agents))
	for _, p := range r.agents {
		out = append(out, p.clone())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
