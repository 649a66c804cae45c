package connector

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sanadhq/sanad"
)

// StateVersion is the version of the State format.
const StateVersion = 1

// State is the cursor of an incremental sync: what the last sync saw of
// each item of one source. The caller persists it (as JSON, with
// [State.WriteFile] or its own store) and passes it to the next sync, which
// fetches only the items whose ItemState changed and reports the items gone
// since.
type State struct {
	Version int `json:"version"`
	// Source names the input the state belongs to ("gdrive:<folder id>");
	// a sync refuses a state of another source.
	Source string `json:"source"`
	// Items maps a SourceID to what was seen of it.
	Items map[string]ItemState `json:"items"`
}

// ItemState is what a sync saw of one item.
type ItemState struct {
	// ModifiedTime is the source's modification time.
	ModifiedTime time.Time `json:"modified_time,omitzero"`
	// SourceChecksum is the checksum the source publishes, prefixed by its
	// algorithm ("md5:<hex>"); empty when it publishes none.
	SourceChecksum string `json:"source_checksum,omitempty"`
	// Size is the size the source reports (0 when it reports none).
	Size int64 `json:"size,omitempty"`
	// Checksum is the Output.Checksum of the content last fetched.
	Checksum string `json:"checksum,omitempty"`
}

// Unchanged reports whether the source reports the same version of an item
// in s and t: the same modification time, source checksum and size.
func (s ItemState) Unchanged(t ItemState) bool {
	return s.ModifiedTime.Equal(t.ModifiedTime) && s.SourceChecksum == t.SourceChecksum && s.Size == t.Size
}

// NewState returns an empty state for source.
func NewState(source string) *State {
	return &State{Version: StateVersion, Source: source, Items: map[string]ItemState{}}
}

// SyncResult is what an incremental sync found.
type SyncResult struct {
	// Outputs are the items new or changed since the previous state,
	// fetched.
	Outputs []Output
	// Unchanged are the SourceIDs of the items seen unchanged, not fetched.
	Unchanged []string
	// Removed are the SourceIDs of items in the previous state that are
	// gone from the source, trashed, or moved out of it. A sync that could
	// not list all of the source reports none removed.
	Removed []string
	// Errors are the failures, one per item (*ItemError).
	Errors []error
	// State is the state to persist for the next sync. An item that failed
	// keeps its previous entry, so the next sync tries it again.
	State *State
}

// ReadStateFile reads a state written by WriteFile. A missing file is an
// empty state for source; a state of another source is CodeInvalidInput.
func ReadStateFile(path, source string) (*State, error) {
	const op = "connector.state"
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewState(source), nil
	}
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "cannot read the sync state "+path)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "the sync state "+path+" is not valid JSON")
	}
	if err := s.Check(source); err != nil {
		return nil, err
	}
	return &s, nil
}

// Check reports whether s is a state of this version for source.
func (s *State) Check(source string) error {
	if s.Version != StateVersion {
		return sanad.Errorf(sanad.CodeInvalidInput, "connector.state", "the sync state has version %d, want %d", s.Version, StateVersion)
	}
	if s.Source != source {
		return sanad.Errorf(sanad.CodeInvalidInput, "connector.state", "the sync state is for %q, not %q", s.Source, source)
	}
	if s.Items == nil {
		s.Items = map[string]ItemState{}
	}
	return nil
}

// WriteFile writes s to path atomically: a temporary file beside it, synced,
// then renamed over it.
func (s *State) WriteFile(path string) error {
	const op = "connector.state"
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInternal, op, "cannot encode the sync state")
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".state-*")
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInternal, op, "cannot write the sync state "+path)
	}
	tmp := f.Name()
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return sanad.Wrap(err, sanad.CodeInternal, op, "cannot write the sync state "+path)
	}
	return nil
}
