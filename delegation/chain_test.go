package delegation

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
)

// chainOf delegates from root through each of ids, failing on a refusal.
func chainOf(tb testing.TB, maxDepth int, root string, ids ...string) Chain {
	tb.Helper()
	c := NewChain(root)
	c.MaxDepth = maxDepth
	for _, id := range ids {
		var err error
		if c, err = c.Delegate(id); err != nil {
			tb.Fatalf("Delegate(%s): %v", id, err)
		}
	}
	return c
}

func TestINV_DT_001_MaxDepth(t *testing.T) {
	tests := []struct {
		name     string
		maxDepth int
		path     []string // delegations made before the one tried
		wantErr  string   // "" when the next delegation is allowed
	}{
		{"root", 0, nil, ""},
		{"below default", 0, []string{"b", "c", "d", "e"}, ""},
		{"at default", 0, []string{"b", "c", "d", "e", "f"}, "delegation from f to next would exceed max depth 5: a → b → c → d → e → f → next"},
		{"at custom", 2, []string{"b", "c"}, "delegation from c to next would exceed max depth 2: a → b → c → next"},
		{"zero depth allowed", 1, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := chainOf(t, tt.maxDepth, "a", tt.path...)
			if got := c.Depth(); got != len(tt.path) {
				t.Errorf("got depth %d, want %d", got, len(tt.path))
			}
			err := c.CanDelegate("next")
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				next, err := c.Delegate("next")
				if err != nil || next.Depth() != c.Depth()+1 || next.Current() != "next" {
					t.Fatalf("got %v at depth %d, %v; want next at depth %d", next, next.Depth(), err, c.Depth()+1)
				}
				return
			}
			wantCode(t, err, sanad.CodeDelegation, tt.wantErr)
			if !errors.Is(err, ErrMaxDepth) {
				t.Errorf("got %v, want it to wrap ErrMaxDepth", err)
			}
			if _, derr := c.Delegate("next"); derr == nil || derr.Error() != err.Error() {
				t.Errorf("got Delegate error %v, want %v", derr, err)
			}
		})
	}
	// The default holds when MaxDepth is left at zero.
	c := Chain{Agents: []string{"a", "b", "c", "d", "e", "f"}}
	wantCode(t, c.CanDelegate("g"), sanad.CodeDelegation, "max depth 5")
}

func TestINV_DT_002_CircularRefused(t *testing.T) {
	c := chainOf(t, 0, "a", "x", "y")
	tests := []struct{ to, want string }{
		{"y", "agent y cannot delegate to itself (chain a → x → y): circular delegation refused"},
		{"x", "agent x is already in the chain a → x → y: circular delegation refused"},
		{"a", "agent a is already in the chain a → x → y: circular delegation refused"},
	}
	for _, tt := range tests {
		t.Run(tt.to, func(t *testing.T) {
			if !c.IsInChain(tt.to) {
				t.Errorf("IsInChain(%s): got false, want true", tt.to)
			}
			err := c.CanDelegate(tt.to)
			wantCode(t, err, sanad.CodeDelegation, tt.want)
			if !errors.Is(err, ErrCircular) {
				t.Errorf("got %v, want it to wrap ErrCircular", err)
			}
			if got, err := c.Delegate(tt.to); err == nil || got.Agents != nil {
				t.Errorf("got %v, %v; want the zero Chain and an error", got, err)
			}
		})
	}
	if c.IsInChain("z") {
		t.Errorf("IsInChain(z): got true, want false")
	}
	// Circular wins over depth: the more specific reason is given.
	full := chainOf(t, 2, "a", "b", "c")
	if err := full.CanDelegate("a"); !errors.Is(err, ErrCircular) {
		t.Errorf("got %v, want ErrCircular", err)
	}
	wantCode(t, c.CanDelegate(""), sanad.CodeInvalidInput, "names no agent")
}

func TestChainIsAValue(t *testing.T) {
	base := chainOf(t, 0, "a", "b")
	// Two branches from the same chain must not share storage.
	left, _ := base.Delegate("c")
	right, _ := base.Delegate("d")
	if want := []string{"a", "b"}; !reflect.DeepEqual(base.Agents, want) {
		t.Errorf("got receiver %q, want %q unchanged", base.Agents, want)
	}
	if got := left.String() + " | " + right.String(); got != "a → b → c | a → b → d" {
		t.Errorf("got %q, want a → b → c | a → b → d", got)
	}
	var empty Chain
	started, err := empty.Delegate("root")
	if err != nil || started.Depth() != 0 || started.Current() != "root" {
		t.Errorf("got %v at depth %d, %v; want root at depth 0", started, started.Depth(), err)
	}
	if empty.Depth() != 0 || empty.Current() != "" || strings.Contains(empty.String(), "→") {
		t.Errorf("got depth %d current %q for the empty chain, want 0 and \"\"", empty.Depth(), empty.Current())
	}
}

// wantCode fails unless err is a *sanad.Error of code want whose message
// contains every one of parts.
func wantCode(tb testing.TB, err error, want sanad.Code, parts ...string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("got no error, want %s", want)
	}
	var se *sanad.Error
	if !errors.As(err, &se) {
		tb.Fatalf("got %T %v, want a *sanad.Error", err, err)
	}
	if se.Code != want {
		tb.Fatalf("got code %s (%v), want %s", se.Code, err, want)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			tb.Errorf("got error %q, want it to contain %q", err, p)
		}
	}
}
