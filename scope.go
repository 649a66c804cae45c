package sanad

import "fmt"

// Scope is the isolation boundary of data and work: a tenant and one case
// within it. A case is a legal case, a deal, a conversation or a protocol
// session. Access across cases is denied unless a lane allows it.
type Scope struct {
	Tenant string `json:"tenant"`
	Case   string `json:"case,omitempty"`
}

// String returns "tenant/case", or "tenant" for a tenant-wide scope.
func (s Scope) String() string {
	if s.Case == "" {
		return s.Tenant
	}
	return s.Tenant + "/" + s.Case
}

// Validate reports whether the scope names a tenant; the case may be empty for
// tenant-wide work (shared knowledge, for example).
func (s Scope) Validate() error {
	if s.Tenant == "" {
		return Errorf(CodeInvalidInput, "scope.validate", "scope has no tenant")
	}
	if len(s.Tenant) > 128 || len(s.Case) > 128 {
		return Errorf(CodeInvalidInput, "scope.validate", "scope ids are limited to 128 bytes")
	}
	return nil
}

// Contains reports whether work in s may touch data in other without a lane
// that explicitly allows cross-case access: same tenant, and either the same
// case or other is tenant-wide.
func (s Scope) Contains(other Scope) bool {
	if s.Tenant != other.Tenant {
		return false
	}
	return other.Case == "" || s.Case == other.Case
}

// GoString makes scopes readable in test failures.
func (s Scope) GoString() string { return fmt.Sprintf("sanad.Scope{%q, %q}", s.Tenant, s.Case) }
