package ingest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/connector/gdrive"
	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse"
	"github.com/sanadhq/sanad/tool"
)

// The tools of ingestion.
const (
	ToolFetch = "connector.fetch"
	ToolParse = "document.parse"
)

// FetchInput is the input of connector.fetch: a source and, for a source
// that can be synced incrementally (Google Drive), what the case's records
// say was last fetched of each of its items, by SourceID. An item whose
// state the source still reports is not downloaded again.
type FetchInput struct {
	connector.Input
	Known map[string]connector.ItemState `json:"known,omitempty" jsonschema:"the modified time, source checksum, size and content checksum last recorded of each item, by source id"`
}

// FetchOutput is the output of connector.fetch: the files fetched, each
// stored as an artifact of the case, the items the source reported
// unchanged since Known (not downloaded), and the items that failed.
type FetchOutput struct {
	Files     []FetchedFile `json:"files"`
	Unchanged []string      `json:"unchanged,omitempty"`
	Errors    []FetchError  `json:"errors"`
}

// syncer is a connector that fetches only what changed since a State
// (connector/gdrive).
type syncer interface {
	Sync(ctx context.Context, in connector.Input, prev *connector.State) (*connector.SyncResult, error)
}

// FetchedFile is one fetched file (seed 004 ConnectorOutput, with the
// artifact that holds its bytes instead of a local path).
type FetchedFile struct {
	SourceID string `json:"source_id"`
	Name     string `json:"name"`
	URL      string `json:"url,omitempty"`
	// Artifact is the "sha256:<hex>" of the stored bytes; Checksum the
	// connector's checksum of them (the same).
	Artifact      string         `json:"artifact"`
	Checksum      string         `json:"checksum"`
	FileSizeBytes int64          `json:"file_size_bytes"`
	MimeType      string         `json:"mime_type,omitempty"`
	ModifiedTime  time.Time      `json:"modified_time,omitzero"`
	Metadata      map[string]any `json:"source_metadata,omitempty"`
}

// FetchError is an item that could not be fetched.
type FetchError struct {
	Source  string     `json:"source"`
	Code    sanad.Code `json:"code"`
	Message string     `json:"message"`
}

// ParseInput is the input of document.parse.
type ParseInput struct {
	Artifact        string `json:"artifact" jsonschema:"the sha256:<hex> of the stored file"`
	FileName        string `json:"file_name" jsonschema:"the file's name, whose extension helps tell text formats apart"`
	DocumentID      string `json:"document_id" jsonschema:"the document the file is a version of"`
	IngestionSource string `json:"ingestion_source,omitempty" jsonschema:"local, gdrive or web_scrape"`
	ForceOCR        bool   `json:"force_ocr,omitempty" jsonschema:"read every PDF page by OCR"`
}

// ParseOutput is the output of document.parse: a summary, and the artifact
// holding the whole ParserOutput.
type ParseOutput struct {
	DocumentID       string          `json:"document_id"`
	Format           string          `json:"format"`
	Title            string          `json:"title,omitempty"`
	Pages            int             `json:"total_pages"`
	Chunks           int             `json:"chunks"`
	ProcessingTimeMS float64         `json:"processing_time_ms"`
	Parsed           string          `json:"parsed" jsonschema:"sha256:<hex> of the stored ParserOutput"`
	Notes            []document.Note `json:"notes,omitempty"`
	Metadata         map[string]any  `json:"metadata,omitempty"`
}

// tools are the ingestion tools over the pipeline's connectors and store.
func (p *Pipeline) tools() []tool.Spec {
	store := p.cfg.Home.Artifacts
	fetch := tool.MustDefine(tool.Spec{
		Name:        ToolFetch,
		Description: "Fetch the documents a source names (a local path or glob, a URL, a Google Drive file or folder) and store each as an artifact of the case. With what was last fetched of a Drive source's items (known), download only the items that changed and list the others as unchanged.",
		Risk:        "external_read",
		SideEffect:  tool.SideEffectInternal,
		Idempotent:  true,
		Timeout:     30 * time.Minute,
	}, func(ctx context.Context, call tool.Call, in FetchInput) (FetchOutput, error) {
		out := FetchOutput{Files: []FetchedFile{}, Errors: []FetchError{}}
		fail := func(src string, err error) {
			if ie, ok := err.(*connector.ItemError); ok && ie.Source != "" {
				src = ie.Source
			}
			out.Errors = append(out.Errors, FetchError{Source: src, Code: sanad.ErrorCode(err), Message: sanad.ErrorMessage(err)})
		}
		keep := func(item connector.Output) error {
			data, err := os.ReadFile(item.FilePath)
			if err != nil {
				fail(item.SourceID, sanad.Wrap(err, sanad.CodeDependencyDown, "tool."+ToolFetch, err.Error()))
				return nil
			}
			if got := "sha256:" + sha256Hex(string(data)); got != item.Checksum {
				fail(item.SourceID, sanad.Errorf(sanad.CodeIntegrity, "tool."+ToolFetch, "the file changed while it was fetched: checksum %s, connector said %s", got, item.Checksum))
				return nil
			}
			ref, err := store.Put(ctx, call.Principal.Scope, call.Run, cmp.Or(item.MimeType, "application/octet-stream"), data)
			if err != nil {
				return err
			}
			f := FetchedFile{
				SourceID: item.SourceID, Name: fileName(item), Artifact: "sha256:" + ref.SHA256, Checksum: item.Checksum,
				FileSizeBytes: item.FileSizeBytes, MimeType: item.MimeType, ModifiedTime: item.ModifiedTime, Metadata: item.SourceMetadata,
			}
			if in.SourceType == connector.SourceWeb {
				f.URL = item.SourceID
			}
			out.Files = append(out.Files, f)
			return nil
		}
		if s, ok := p.cfg.Connectors[in.SourceType].(syncer); ok && in.Validate() == nil {
			prev := connector.NewState(gdrive.StateSource(in.Input))
			maps.Copy(prev.Items, in.Known)
			res, err := s.Sync(ctx, in.Input, prev)
			if err != nil {
				fail(in.SourceIdentifier, err)
				return out, nil
			}
			for _, item := range res.Outputs {
				if err := keep(item); err != nil {
					return FetchOutput{}, err
				}
			}
			for _, err := range res.Errors {
				fail(in.SourceIdentifier, err)
			}
			out.Unchanged = res.Unchanged
			return out, nil
		}
		for item, err := range p.cfg.Connectors.Fetch(ctx, in.Input) {
			if err != nil {
				fail(in.SourceIdentifier, err)
				continue
			}
			if err := keep(item); err != nil {
				return FetchOutput{}, err
			}
		}
		return out, nil
	})
	parseTool := tool.MustDefine(tool.Spec{
		Name:        ToolParse,
		Description: "Parse a stored document into Markdown and chunks (headings, lists, tables, pages; OCR where a page has no usable text), stored as an artifact of the case.",
		Risk:        "read",
		SideEffect:  tool.SideEffectInternal,
		Idempotent:  true,
		Timeout:     parse.DefaultTimeout + time.Minute,
	}, func(ctx context.Context, call tool.Call, in ParseInput) (ParseOutput, error) {
		const op = "tool." + ToolParse
		sum, ok := strings.CutPrefix(in.Artifact, "sha256:")
		if !ok || len(sum) != 64 {
			return ParseOutput{}, sanad.Errorf(sanad.CodeInvalidInput, op, "artifact must be sha256:<64 hex digits>")
		}
		data, err := store.Read(sum)
		if err != nil {
			return ParseOutput{}, err
		}
		out, err := parse.Bytes(ctx, in.FileName, data, parse.Options{DocumentID: in.DocumentID, IngestionSource: in.IngestionSource, ForceOCR: in.ForceOCR, Chunking: p.cfg.Chunking})
		if err != nil {
			return ParseOutput{}, err
		}
		blob, err := json.Marshal(out)
		if err != nil {
			return ParseOutput{}, sanad.Wrap(err, sanad.CodeInternal, op, "encoding the parse")
		}
		ref, err := store.Put(ctx, call.Principal.Scope, call.Run, ParsedMediaType, blob)
		if err != nil {
			return ParseOutput{}, err
		}
		res := ParseOutput{
			DocumentID: out.DocumentID, Format: out.Document.Format, Title: out.Document.Title, Pages: out.TotalPages,
			Chunks: len(out.Chunks), ProcessingTimeMS: out.ProcessingTimeMS, Parsed: "sha256:" + ref.SHA256,
		}
		for _, n := range out.Document.Notes {
			res.Notes = append(res.Notes, n)
		}
		return res, nil
	})
	return []tool.Spec{fetch, parseTool}
}

func fileName(o connector.Output) string {
	if name, ok := o.SourceMetadata["name"].(string); ok && name != "" {
		return name
	}
	base := filepath.Base(o.SourceID)
	if i := strings.IndexAny(base, "?#"); i >= 0 {
		base = base[:i]
	}
	return base
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
