package gdrive_test

import (
	"context"
	"maps"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/connector/gdrive"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/memory"
)

// TestIngestDriveFolderIncrementally: a second ingestion of a Drive folder
// downloads nothing; after an edit it downloads and re-chunks that file
// alone; a trashed file is marked removed. What is known of each file comes
// from the case's records, which the ledger vouches for.
func TestIngestDriveFolderIncrementally(t *testing.T) {
	ctx := context.Background()
	drive := gdrive.NewTestDrive(t)
	drive.Add("f-nda", "nda.txt", "Mutual non-disclosure agreement between Acme and Beta.")
	drive.Add("f-memo", "memo.txt", "Memo: the board approved the acquisition of Beta.")
	drive.Add("f-notes", "notes.txt", "Notes from the diligence call about Beta's revenue.")
	h := ledgertest.Open(t, t.TempDir())
	idx := &memory.Index{Store: h.DB}
	p, err := ingest.New(ingest.Config{Home: h, Index: idx, Connectors: connector.Mux{
		connector.SourceGDrive: drive.Connector(t, t.TempDir()),
	}})
	if err != nil {
		t.Fatal(err)
	}
	scope := sanad.Scope{Tenant: "acme", Case: "deal-1"}
	src := connector.Input{SourceType: connector.SourceGDrive, SourceIdentifier: "root", CredentialsID: "sa"}
	downloads := map[string]int{}
	ingestOnce := func() (ingest.Report, map[string]int) {
		t.Helper()
		rep, err := p.Ingest(ctx, []connector.Input{src}, ingest.Options{Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Errors) != 0 {
			t.Fatalf("got errors %+v", rep.Errors)
		}
		now := drive.Downloads()
		got := map[string]int{}
		for id, n := range now {
			if d := n - downloads[id]; d > 0 {
				got[id] = d
			}
		}
		downloads = now
		return rep, got
	}

	rep, got := ingestOnce()
	if len(got) != 3 || rep.Documents != 3 || rep.SkippedUnchanged != 0 {
		t.Fatalf("first ingestion: got downloads %v, %d documents; want all 3", got, rep.Documents)
	}
	rep, got = ingestOnce()
	if len(got) != 0 || rep.Documents != 0 || rep.SkippedUnchanged != 3 || rep.Removed != 0 {
		t.Fatalf("second ingestion: got downloads %v, report %+v; want nothing downloaded, 3 unchanged", got, rep)
	}
	before := versions(t, idx, scope)

	drive.Edit("f-memo", "Memo: the board approved the acquisition of Beta, subject to the audit.")
	rep, got = ingestOnce()
	if !maps.Equal(got, map[string]int{"f-memo": 1}) || rep.Documents != 1 || rep.SkippedUnchanged != 2 {
		t.Fatalf("after an edit: got downloads %v, report %+v; want f-memo alone", got, rep)
	}
	after := versions(t, idx, scope)
	for src, v := range after {
		if changed := v != before[src]; changed != (src == "f-memo") {
			t.Errorf("%s: version %s before, %s after; want only f-memo re-chunked", src, before[src], v)
		}
	}
	out, err := idx.Search(ctx, scope, memory.Query{QueryText: "subject to the audit", TopK: 1})
	if err != nil || out.Results[0].Metadata["source"] != "f-memo" {
		t.Fatalf("got %+v, %v; want the edited memo found", out, err)
	}

	drive.Trash("f-notes")
	rep, got = ingestOnce()
	if len(got) != 0 || rep.Removed != 1 || rep.SkippedUnchanged != 2 {
		t.Fatalf("after trashing: got downloads %v, report %+v; want f-notes removed, nothing downloaded", got, rep)
	}
	d, err := idx.Document(ctx, scope, memory.DocumentID(connector.SourceGDrive, "f-notes"))
	if err != nil || d.Status != memory.StatusRemoved {
		t.Fatalf("got %+v, %v; want f-notes removed", d, err)
	}

	// The index is a cache: a document taken out of it behind the records'
	// back is fetched again, not skipped on the strength of its record.
	if err := idx.Remove(ctx, scope, memory.DocumentID(connector.SourceGDrive, "f-nda")); err != nil {
		t.Fatal(err)
	}
	rep, got = ingestOnce()
	if !maps.Equal(got, map[string]int{"f-nda": 1}) || rep.SkippedUnchanged != 1 {
		t.Fatalf("after the index lost f-nda: got downloads %v, report %+v; want f-nda downloaded again", got, rep)
	}
	if d, err := idx.Document(ctx, scope, memory.DocumentID(connector.SourceGDrive, "f-nda")); err != nil || d.Status != memory.StatusCurrent {
		t.Fatalf("got %+v, %v; want f-nda current again", d, err)
	}
	if n, err := ingest.CheckIndex(ctx, h); err != nil || n == 0 {
		t.Fatalf("index check: %d chunks, %v", n, err)
	}
}

// versions returns the current version of each document of scope, by
// source.
func versions(t *testing.T, idx *memory.Index, scope sanad.Scope) map[string]string {
	t.Helper()
	docs, err := idx.Documents(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range docs {
		if d.Status == memory.StatusCurrent {
			out[d.Source] = d.Version
		}
	}
	return out
}
