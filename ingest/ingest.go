// Package ingest brings documents into a case's memory as governed, recorded
// work (seed 004: the Connector, Parser and Memory agents in one pipeline).
// An ingestion is a run of the librarian agent: every source is fetched by
// the connector.fetch tool and every file parsed by document.parse, both
// through the tool gateway (validated, authorized, recorded as child runs,
// their outputs stored as artifacts); every new document version is written
// to the documents table as a db_write run before it is indexed. So an
// ingestion leaves the same signed record as any other work, and
// `sanad ledger verify` covers it.
package ingest

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/chunk"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/parse"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// The identity and role of the ingestion agent, and its lane.
const (
	Agent = "librarian"
	Role  = "LIBRARIAN"
	Lane  = "WRITE_CASE_MEMORY"
	// Table is the domain table of document versions.
	Table = "documents"
	// ParsedMediaType is the media type of a stored parse.
	ParsedMediaType = "application/vnd.sanad.parsed+json"
)

//go:embed policy/*.yaml
var policyFiles embed.FS

// Policy returns the ingestion policy: the librarian may call
// connector.fetch and document.parse and write the documents table of its
// case.
func Policy() (*policy.Set, error) {
	sub, err := fs.Sub(policyFiles, "policy")
	if err != nil {
		return nil, err
	}
	return policy.LoadFS(sub)
}

// Config is what a Pipeline works with.
type Config struct {
	Home  *home.Home
	Index *memory.Index
	// Connectors fetch sources by type; Workspace is where they download.
	Connectors connector.Mux
	// Chunking sizes chunks.
	Chunking chunk.Options
}

// Pipeline ingests sources. It is safe for concurrent use by ingestions of
// different cases.
type Pipeline struct {
	cfg     Config
	policy  *policy.Set
	gateway *tool.Gateway
	writer  *dbwrite.Writer
}

// New returns a pipeline over cfg.
func New(cfg Config) (*Pipeline, error) {
	const op = "ingest.new"
	if cfg.Home == nil || cfg.Index == nil || cfg.Home.Runs == nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "ingestion needs a home opened for writing and a memory index")
	}
	pol, err := Policy()
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "the ingestion policy")
	}
	p := &Pipeline{cfg: cfg, policy: pol}
	reg, err := tool.NewRegistry(p.tools()...)
	if err != nil {
		return nil, err
	}
	if p.gateway, err = tool.New(tool.Config{Registry: reg, Policy: pol, Runs: cfg.Home.Runs, Artifacts: cfg.Home.Artifacts}); err != nil {
		return nil, err
	}
	p.writer = &dbwrite.Writer{Policy: pol, Runs: cfg.Home.Runs, Artifacts: cfg.Home.Artifacts}
	return p, nil
}

// Options are how one ingestion runs.
type Options struct {
	Scope    sanad.Scope
	ForceOCR bool
	// Metadata is added to the metadata of every document this ingestion
	// indexes (tags such as "privileged", a matter's labels); a document
	// whose version is already indexed keeps what it has.
	Metadata map[string]any
	// Progress, when set, is told of each item as it is done.
	Progress func(Item)
}

// Item is one fetched file's outcome.
type Item struct {
	Source string `json:"source"`
	// Status is "indexed", "unchanged" or "failed".
	Status     string `json:"status"`
	DocumentID string `json:"document_id,omitempty"`
	Chunks     int    `json:"chunks,omitempty"`
	Code       string `json:"code,omitempty"`
	Message    string `json:"message,omitempty"`
}

// Report sums up an ingestion.
type Report struct {
	Run              string `json:"run"`
	Trace            string `json:"trace"`
	Documents        int    `json:"documents"`
	Chunks           int    `json:"chunks"`
	SkippedUnchanged int    `json:"skipped_unchanged"`
	// Removed counts documents gone from a source since it was last
	// ingested (deleted from a folder, trashed in Drive, no longer linked),
	// now marked removed in the index.
	Removed int         `json:"removed"`
	Errors  []ItemError `json:"errors"`
	Items   []Item      `json:"items"`
}

// ItemError is a source or file that could not be ingested.
type ItemError struct {
	Source  string     `json:"source"`
	Code    sanad.Code `json:"code"`
	Message string     `json:"message"`
}

// Source turns a command-line argument into a connector input: an http(s)
// URL is a web source, gdrive://ID a Google Drive file or folder, anything
// else a local path or glob.
func Source(arg string, recursive bool) connector.Input {
	switch {
	case strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://"):
		return connector.Input{SourceType: connector.SourceWeb, SourceIdentifier: arg, Recursive: recursive}
	case strings.HasPrefix(arg, "gdrive://"):
		id, creds, _ := strings.Cut(strings.TrimPrefix(arg, "gdrive://"), "?credentials=")
		return connector.Input{SourceType: connector.SourceGDrive, SourceIdentifier: id, CredentialsID: creds, Recursive: recursive}
	}
	if abs, err := filepath.Abs(arg); err == nil {
		arg = abs
	}
	return connector.Input{SourceType: connector.SourceLocal, SourceIdentifier: arg, Recursive: recursive}
}

// Ingest fetches, parses and indexes sources into opt.Scope's memory, as one
// run of the librarian. Every source and file is tried; the failures are in
// the report. The error is for what stopped the whole ingestion.
func (p *Pipeline) Ingest(ctx context.Context, sources []connector.Input, opt Options) (Report, error) {
	const op = "ingest"
	if err := opt.Scope.Validate(); err != nil {
		return Report{}, err
	}
	run, err := p.cfg.Home.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindAgent, Scope: opt.Scope, Agent: Agent, Role: Role,
		Request:  map[string]any{"sources": sources, "force_ocr": opt.ForceOCR, "metadata": opt.Metadata},
		Decision: runs.Decision{Allow: true, Reason: "ingestion started by its caller"},
	})
	if err != nil {
		return Report{}, err
	}
	rep := Report{Run: run.Record.ID, Trace: run.Record.Trace, Errors: []ItemError{}, Items: []Item{}}
	pr := policy.Principal{Agent: Agent, Role: Role, Scope: opt.Scope}
	calls := 0
	call := func(name string, in any) (json.RawMessage, error) {
		calls++
		raw, err := json.Marshal(in)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInternal, op, "tool input")
		}
		res := p.gateway.Call(ctx, run, pr, tool.Request{Tool: name, CallID: fmt.Sprintf("%s-%d", strings.ReplaceAll(name, ".", "-"), calls), Input: raw})
		if !res.Success {
			return nil, sanad.Errorf(res.Code, op, "%s", res.Message)
		}
		return res.Output(), nil
	}
	fail := func(source string, err error) {
		rep.Errors = append(rep.Errors, ItemError{Source: source, Code: sanad.ErrorCode(err), Message: sanad.ErrorMessage(err)})
		it := Item{Source: source, Status: "failed", Code: string(sanad.ErrorCode(err)), Message: sanad.ErrorMessage(err)}
		rep.Items = append(rep.Items, it)
		if opt.Progress != nil {
			opt.Progress(it)
		}
	}
	for _, src := range sources {
		if ctx.Err() != nil {
			fail(src.SourceIdentifier, sanad.Wrap(ctx.Err(), sanad.CodeCancelled, op, "ingestion cancelled"))
			continue
		}
		in := FetchInput{Input: src}
		if _, ok := p.cfg.Connectors[src.SourceType].(syncer); ok {
			if in.Known, err = p.known(ctx, src, opt.Scope); err != nil {
				fail(src.SourceIdentifier, err)
				continue
			}
		}
		raw, err := call(ToolFetch, in)
		if err != nil {
			fail(src.SourceIdentifier, err)
			continue
		}
		var fetched FetchOutput
		if err := json.Unmarshal(raw, &fetched); err != nil {
			fail(src.SourceIdentifier, sanad.Wrap(err, sanad.CodeInternal, op, "connector.fetch output"))
			continue
		}
		for _, e := range fetched.Errors {
			fail(e.Source, sanad.Errorf(e.Code, op, "%s", e.Message))
		}
		for _, f := range fetched.Files {
			it, err := p.file(ctx, run, pr, call, src, f, opt)
			if err != nil {
				fail(f.SourceID, err)
				continue
			}
			switch it.Status {
			case "unchanged":
				rep.SkippedUnchanged++
			case "indexed":
				rep.Documents++
				rep.Chunks += it.Chunks
			}
			rep.Items = append(rep.Items, it)
			if opt.Progress != nil {
				opt.Progress(it)
			}
		}
		for _, id := range fetched.Unchanged {
			docID := memory.DocumentID(src.SourceType, id)
			it := Item{Source: id, Status: "unchanged", DocumentID: docID}
			if cur, err := p.cfg.Index.Document(ctx, opt.Scope, docID); err == nil {
				it.Chunks = cur.Chunks
			}
			rep.SkippedUnchanged++
			rep.Items = append(rep.Items, it)
			if opt.Progress != nil {
				opt.Progress(it)
			}
		}
		if len(fetched.Errors) == 0 {
			// Only a complete listing says what is gone.
			n, err := p.removeGone(ctx, run, pr, src, fetched, opt.Scope)
			rep.Removed += n
			if err != nil {
				fail(src.SourceIdentifier, err)
			}
		}
	}
	summary := map[string]any{"documents": rep.Documents, "chunks": rep.Chunks, "skipped_unchanged": rep.SkippedUnchanged, "removed": rep.Removed, "errors": len(rep.Errors)}
	if err := run.Complete(context.WithoutCancel(ctx), nil, summary); err != nil {
		return rep, err
	}
	return rep, nil
}

// file parses and indexes one fetched file, unless its document's current
// version in the index is this content.
func (p *Pipeline) file(ctx context.Context, run *runs.Run, pr policy.Principal, call func(string, any) (json.RawMessage, error), src connector.Input, f FetchedFile, opt Options) (Item, error) {
	const op = "ingest.file"
	docID := memory.DocumentID(src.SourceType, f.SourceID)
	it := Item{Source: f.SourceID, DocumentID: docID}
	if cur, err := p.cfg.Index.Document(ctx, opt.Scope, docID); err == nil && cur.Status == memory.StatusCurrent && cur.Version == f.Checksum {
		it.Status, it.Chunks = "unchanged", cur.Chunks
		return it, nil
	} else if err != nil && sanad.ErrorCode(err) != sanad.CodeNotFound {
		return it, err
	}
	raw, err := call(ToolParse, ParseInput{Artifact: f.Artifact, FileName: f.Name, DocumentID: docID, IngestionSource: ingestionSource(src.SourceType), ForceOCR: opt.ForceOCR})
	if err != nil {
		return it, err
	}
	var parsed ParseOutput
	if err := json.Unmarshal(raw, &parsed); err != nil {
		return it, sanad.Wrap(err, sanad.CodeInternal, op, "document.parse output")
	}
	data, err := p.cfg.Home.Artifacts.Read(strings.TrimPrefix(parsed.Parsed, "sha256:"))
	if err != nil {
		return it, err
	}
	var out parse.Output
	if err := json.Unmarshal(data, &out); err != nil {
		return it, sanad.Wrap(err, sanad.CodeIntegrity, op, "the stored parse does not decode")
	}
	doc := memory.Document{
		ID: docID, Version: f.Checksum, Source: f.SourceID, SourceType: src.SourceType, SourceURL: f.URL,
		Title: parsed.Title, Format: parsed.Format, Pages: parsed.Pages, Metadata: withOrigin(f.Metadata, src),
	}
	for k, v := range opt.Metadata {
		if k != originKey {
			doc.Metadata[k] = v
		}
	}
	if doc.Title == "" {
		doc.Title = f.Name
	}
	record := Record{Document: doc, SourceArtifact: f.Artifact, ParsedArtifact: parsed.Parsed, Chunks: make([]ChunkRecord, len(out.Chunks))}
	for i, c := range out.Chunks {
		record.Chunks[i] = ChunkRecord{ID: c.ID, SHA256: sha256Hex(c.Content), Start: c.Start, End: c.End, Page: c.Page}
	}
	body, err := json.Marshal(record)
	if err != nil {
		return it, sanad.Wrap(err, sanad.CodeInternal, op, "document record")
	}
	if _, err := p.writer.Write(ctx, run, pr, dbwrite.Request{Lane: Lane, Table: Table, Op: dbwrite.Upsert, Key: docID, Record: body}); err != nil {
		return it, err
	}
	added, err := p.cfg.Index.Add(ctx, opt.Scope, doc, out.Chunks)
	if err != nil {
		return it, err
	}
	it.Status, it.Chunks = "indexed", added.Chunks
	return it, nil
}

// originKey is the metadata key naming the input a document was ingested
// from, so that a later ingestion of the same input knows what it held.
const originKey = "ingested_from"

func origin(src connector.Input) string { return src.SourceType + ":" + src.SourceIdentifier }

func withOrigin(meta map[string]any, src connector.Input) map[string]any {
	out := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		out[k] = v
	}
	out[originKey] = origin(src)
	return out
}

// removeGone marks removed the current documents last ingested from src that
// its complete fetch no longer returned (fetched or reported unchanged), each a db_write of its removal by
// the librarian within run.
func (p *Pipeline) removeGone(ctx context.Context, run *runs.Run, pr policy.Principal, src connector.Input, fetched FetchOutput, scope sanad.Scope) (int, error) {
	seen := make(map[string]bool, len(fetched.Files)+len(fetched.Unchanged))
	for _, f := range fetched.Files {
		seen[f.SourceID] = true
	}
	for _, id := range fetched.Unchanged {
		seen[id] = true
	}
	docs, err := p.cfg.Index.Documents(ctx, scope)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range docs {
		if d.Status != memory.StatusCurrent || d.SourceType != src.SourceType || d.Metadata[originKey] != origin(src) || seen[d.Source] {
			continue
		}
		if err := p.withdraw(ctx, run, pr, d); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// known returns what the case's records say was last fetched of each item
// of src, by SourceID, for a fetch that downloads only what changed. It is
// read from the documents table, whose records the ledger's db.write events
// vouch for (`sanad ledger verify`), not from a file beside them; an item
// counts only when its record is the current version the index serves and
// holds the source's modification time. Anything else, a record that was
// not kept or an index that was edited, makes the item downloaded again:
// a wrong state can cost a download, never hide a change.
func (p *Pipeline) known(ctx context.Context, src connector.Input, scope sanad.Scope) (map[string]connector.ItemState, error) {
	const op = "ingest.known"
	docs, err := p.cfg.Index.Documents(ctx, scope)
	if err != nil {
		return nil, err
	}
	current := map[string]string{} // document id → version the index serves
	for _, d := range docs {
		if d.Status == memory.StatusCurrent && d.SourceType == src.SourceType && d.Metadata[originKey] == origin(src) {
			current[d.ID] = d.Version
		}
	}
	out := map[string]connector.ItemState{}
	if len(current) == 0 {
		return out, nil
	}
	rows, err := p.cfg.Home.DB.Records(ctx, scope, Table)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if _, ok := current[r.Key]; !ok {
			continue
		}
		data, err := p.cfg.Home.Artifacts.Read(r.SHA256)
		if err != nil {
			return nil, err
		}
		if sha256Hex(string(data)) != r.SHA256 {
			return nil, sanad.Errorf(sanad.CodeIntegrity, op, "the record of document %s does not match its recorded hash", r.Key)
		}
		var rec Record
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "the record of document "+r.Key+" does not decode")
		}
		d := rec.Document
		if rec.Removed || d.ID != r.Key || d.Version != current[r.Key] {
			continue
		}
		if st, ok := itemState(d); ok {
			out[d.Source] = st
		}
	}
	return out, nil
}

// itemState is what a connector reported of the item a document version
// was fetched from: the Drive metadata the connector puts in SourceMetadata.
func itemState(d memory.Document) (connector.ItemState, bool) {
	mt, _ := d.Metadata["modified_time"].(string)
	t, err := time.Parse(time.RFC3339Nano, mt)
	if err != nil {
		return connector.ItemState{}, false
	}
	st := connector.ItemState{ModifiedTime: t.UTC(), Checksum: d.Version}
	if md5, ok := d.Metadata["md5_checksum"].(string); ok && md5 != "" {
		st.SourceChecksum = "md5:" + strings.ToLower(md5)
	}
	if size, ok := d.Metadata["size"].(float64); ok {
		st.Size = int64(size)
	}
	return st, true
}

// withdraw records the removal of document d (a db_write) and takes it out
// of the index.
func (p *Pipeline) withdraw(ctx context.Context, run *runs.Run, pr policy.Principal, d memory.DocumentInfo) error {
	body, err := json.Marshal(Record{Document: d.Document, Removed: true, Chunks: []ChunkRecord{}})
	if err != nil {
		return err
	}
	if _, err := p.writer.Write(ctx, run, pr, dbwrite.Request{Lane: Lane, Table: Table, Op: dbwrite.Upsert, Key: d.ID, Record: body}); err != nil {
		return err
	}
	return p.cfg.Index.Remove(ctx, pr.Scope, d.ID)
}

func ingestionSource(sourceType string) string {
	if sourceType == connector.SourceWeb {
		return "web_scrape"
	}
	return sourceType
}

// Record is what the documents table holds of a document version: enough to
// check every indexed chunk against the bytes it came from.
type Record struct {
	Document       memory.Document `json:"document"`
	SourceArtifact string          `json:"source_artifact"`
	ParsedArtifact string          `json:"parsed_artifact"`
	Chunks         []ChunkRecord   `json:"chunks"`
	Removed        bool            `json:"removed,omitempty"`
}

// ChunkRecord is a chunk as recorded: its id, the hash of its content and
// the bytes of the parse's Markdown it came from.
type ChunkRecord struct {
	ID     string `json:"chunk_id"`
	SHA256 string `json:"sha256"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Page   int    `json:"page,omitempty"`
}

// Remove withdraws a document from scope's memory, as a recorded run of the
// operator: a db_write of its removal, then the index.
func (p *Pipeline) Remove(ctx context.Context, scope sanad.Scope, docID, by string) (string, error) {
	const op = "ingest.remove"
	info, err := p.cfg.Index.Document(ctx, scope, docID)
	if err != nil {
		return "", err
	}
	pr := policy.Principal{Agent: by, Role: "operator", Scope: scope}
	run, err := p.cfg.Home.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindAgent, Scope: scope, Agent: by, Role: "operator",
		Request:  map[string]any{"remove": docID},
		Decision: runs.Decision{Allow: true, Reason: "removal of a document by an operator"},
	})
	if err != nil {
		return "", err
	}
	if err := p.withdraw(ctx, run, pr, info); err != nil {
		_ = run.Fail(context.WithoutCancel(ctx), err)
		return run.Record.ID, err
	}
	return run.Record.ID, run.Complete(context.WithoutCancel(ctx), nil, map[string]any{"removed": docID})
}
