package artifact

import (
	"context"
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
)

// Check reads every artifact the events of r refer to and checks its content
// against its hash. It returns how many distinct blobs it checked; a blob
// missing or damaged is INTEGRITY, naming the event that refers to it.
func (s *Store) Check(ctx context.Context, r ledger.Reader) (int, error) {
	const op = "artifact.check"
	seen := map[string]bool{}
	err := r.ReadLog(ctx, 0, func(st ledger.Stored) error {
		ev, err := ledger.Decode(st.Raw)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("leaf %d: %v", st.Index, err))
		}
		for _, ref := range ev.Refs {
			if seen[ref.SHA256] {
				continue
			}
			seen[ref.SHA256] = true
			if _, err := s.Read(ref.SHA256); err != nil {
				return sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("artifact %s, which trace %s seq %d refers to: %s", ref.ID, ev.Trace, ev.Seq, sanad.ErrorMessage(err)))
			}
		}
		return ctx.Err()
	})
	return len(seen), err
}
