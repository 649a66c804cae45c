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

const (
	artifactsInsert   = "INSERT INTO artifacts (artifact_id, tenant, case_id, sha256, media_type, size_bytes, created_by_run) VALUES "
	artifactCols      = 7
	onConflictNothing = " ON CONFLICT DO NOTHING"
)

// projectRefs indexes the artifacts each event cites in its own scope, in
// the transaction that commits the events, with multi-row INSERTs: an
// artifact staged without an index entry (artifact.Store.Stage) is found
// from the moment an event citing it is durable. Refs to other scopes are
// citations, not claims, and index nothing. args is scratch space.
func projectRefs(ctx context.Context, tx *sql.Tx, st *stmts, events []*ledger.Event, args []any) error {
	for _, ev := range events {
		for i := range ev.Refs {
			if ref := &ev.Refs[i]; ref.Scope == ev.Scope {
				args = append(args, ref.ID, ref.Scope.Tenant, ref.Scope.Case, ref.SHA256, ref.MediaType, ref.SizeBytes, ref.CreatedByRun)
			}
		}
	}
	return classify(insertRows(ctx, tx, &st.insArtifacts, artifactCols, args), "sqlite.append", "index the artifacts cited")
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

// Artifacts lists the artifacts of scope by id, at most limit (all
// when limit is 0 or less).
func (db *DB) Artifacts(ctx context.Context, scope sanad.Scope, limit int) ([]sanad.ArtifactRef, error) {
	const op = "sqlite.artifacts"
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := db.read.QueryContext(ctx, `SELECT artifact_id, sha256, media_type, size_bytes, created_by_run FROM artifacts
		WHERE tenant = ? AND case_id = ? ORDER BY artifact_id LIMIT ?`, scope.Tenant, scope.Case, limit)
	if err != nil {
		return nil, classify(err, op, "query")
	}
	defer rows.Close()
	var out []sanad.ArtifactRef
	for rows.Next() {
		ref := sanad.ArtifactRef{Scope: scope}
		if err := rows.Scan(&ref.ID, &ref.SHA256, &ref.MediaType, &ref.SizeBytes, &ref.CreatedByRun); err != nil {
			return nil, classify(err, op, "scan")
		}
		ref.URI = sanad.ArtifactURI(ref.SHA256)
		out = append(out, ref)
	}
	return out, classify(rows.Err(), op, "scan")
}
