package sqlite

import (
	"context"
	"database/sql"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/ledger"
)

var _ artifact.Index = (*DB)(nil)

// PutArtifact implements [artifact.Index].
func (db *DB) PutArtifact(ctx context.Context, ref sanad.ArtifactRef) error {
	if db.write == nil {
		return sanad.Errorf(sanad.CodeInvalidInput, "sqlite.put_artifact", "the store is open read-only")
	}
	_, err := db.st.insArtifact.ExecContext(ctx, ref.ID, ref.Scope.Tenant, ref.Scope.Case, ref.SHA256, ref.MediaType, ref.SizeBytes, ref.CreatedByRun)
	return classify(err, "sqlite.put_artifact", "insert")
}

const insertArtifactSQL = `INSERT INTO artifacts (artifact_id, tenant, case_id, sha256, media_type, size_bytes, created_by_run)
	VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`

// projectRefs indexes the artifacts ev cites in its own scope, in the
// transaction that commits ev: an artifact staged without an index entry
// (artifact.Store.Stage) is found from the moment an event citing it is
// durable. Refs to other scopes are citations, not claims, and index nothing.
func projectRefs(ctx context.Context, tx *sql.Tx, st *stmts, ev *ledger.Event) error {
	var ins *sql.Stmt
	for i := range ev.Refs {
		ref := &ev.Refs[i]
		if ref.Scope != ev.Scope {
			continue
		}
		if ins == nil {
			ins = tx.StmtContext(ctx, st.insArtifact)
		}
		if _, err := ins.ExecContext(ctx, ref.ID, ref.Scope.Tenant, ref.Scope.Case, ref.SHA256, ref.MediaType, ref.SizeBytes, ref.CreatedByRun); err != nil {
			return classify(err, "sqlite.append", "index artifact "+ref.ID)
		}
	}
	return nil
}

// Artifact implements [artifact.Index].
func (db *DB) Artifact(ctx context.Context, id string, scope sanad.Scope) (sanad.ArtifactRef, error) {
	ref := sanad.ArtifactRef{ID: id, Scope: scope}
	err := db.read.QueryRowContext(ctx, `SELECT sha256, media_type, size_bytes, created_by_run FROM artifacts
		WHERE artifact_id = ? AND tenant = ? AND case_id = ? LIMIT 1`, id, scope.Tenant, scope.Case).
		Scan(&ref.SHA256, &ref.MediaType, &ref.SizeBytes, &ref.CreatedByRun)
	if err == sql.ErrNoRows {
		return ref, sanad.Errorf(sanad.CodeNotFound, "sqlite.artifact", "artifact %s is not in scope %s", id, scope)
	}
	if err != nil {
		return ref, classify(err, "sqlite.artifact", "query")
	}
	ref.URI = sanad.ArtifactURI(ref.SHA256)
	return ref, nil
}
