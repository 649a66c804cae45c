package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/sqlite"
)

// CheckIndex checks every current chunk of h's memory index against the
// record of its document: the documents table's current record of the
// document (a db.write the ledger signed) must be this version, not a
// removal, and must list the chunk's id with the SHA-256 of its content. The
// index is a cache that anyone with the database can edit; what a search
// returns is only trusted once it agrees with what was recorded. The records
// table it reads the documents' records through is checked against the
// log's db.write events first. It returns the number of chunks checked; the
// first disagreement is INTEGRITY.
func CheckIndex(ctx context.Context, h *home.Home) (int, error) {
	const op = "ingest.check_index"
	if err := h.DB.CheckRecords(ctx); err != nil {
		return 0, err
	}
	type docKey struct {
		scope sanad.Scope
		id    string
	}
	records := map[sanad.Scope]map[string]string{} // scope → document id → record sha256
	loaded := map[docKey]*Record{}
	n := 0
	err := h.DB.EachIndexedChunk(ctx, func(c sqlite.IndexedChunk) error {
		byKey, ok := records[c.Scope]
		if !ok {
			rows, err := h.DB.Records(ctx, c.Scope, Table)
			if err != nil {
				return err
			}
			byKey = map[string]string{}
			for _, r := range rows {
				byKey[r.Key] = r.SHA256
			}
			records[c.Scope] = byKey
		}
		k := docKey{c.Scope, c.DocID}
		rec, ok := loaded[k]
		if !ok {
			sum, found := byKey[c.DocID]
			if !found {
				return sanad.Errorf(sanad.CodeIntegrity, op, "document %s of %s/%s is indexed but no write of it was recorded", c.DocID, c.Scope.Tenant, c.Scope.Case)
			}
			data, err := h.Artifacts.Read(sum)
			if err != nil {
				return sanad.Wrap(err, sanad.CodeIntegrity, op, "the record of document "+c.DocID+" cannot be read")
			}
			if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
				return sanad.Errorf(sanad.CodeIntegrity, op, "the record of document %s does not match its recorded hash", c.DocID)
			}
			rec = &Record{}
			if err := json.Unmarshal(data, rec); err != nil {
				return sanad.Wrap(err, sanad.CodeIntegrity, op, "the record of document "+c.DocID+" does not decode")
			}
			loaded[k] = rec
		}
		if rec.Removed || rec.Document.Version != c.Version {
			return sanad.Errorf(sanad.CodeIntegrity, op, "document %s of %s/%s: the index serves version %s, the record says %s", c.DocID, c.Scope.Tenant, c.Scope.Case, c.Version, recordedVersion(rec))
		}
		sum := sha256.Sum256([]byte(c.Content))
		for _, rc := range rec.Chunks {
			if rc.ID == c.ChunkID {
				if rc.SHA256 != hex.EncodeToString(sum[:]) {
					return sanad.Errorf(sanad.CodeIntegrity, op, "chunk %s of document %s: its indexed content is not the recorded content", c.ChunkID, c.DocID)
				}
				n++
				return nil
			}
		}
		return sanad.Errorf(sanad.CodeIntegrity, op, "chunk %s is indexed for document %s, whose record does not list it", c.ChunkID, c.DocID)
	})
	return n, err
}

func recordedVersion(r *Record) string {
	if r.Removed {
		return "it was removed"
	}
	return r.Document.Version
}
