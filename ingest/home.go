package ingest

import (
	"path/filepath"

	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/connector/gdrive"
	"github.com/sanadhq/sanad/connector/local"
	"github.com/sanadhq/sanad/connector/web"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/memory"
)

// HomeOptions are the settings of a home's pipeline.
type HomeOptions struct {
	// Embedder, when set, gives chunks vectors and searches by them too.
	Embedder memory.Embedder
	// AllowPrivateNetworks lets the web connector reach loopback and
	// private addresses (an intranet); it is refused by default, since the
	// URLs may come from a model.
	AllowPrivateNetworks bool
	// Connector holds any other connector settings (limits, user agent).
	Connector connector.Options
}

// HomeIndex returns the memory index of home h.
func HomeIndex(h *home.Home, embedder memory.Embedder) *memory.Index {
	return &memory.Index{Store: h.DB, Embedder: embedder}
}

// ForHome returns the pipeline of home h with every connector: local files,
// the web and Google Drive. Downloads go to <home>/workspace; a source's
// credentials_id names a file in <home>/credentials (a service-account key,
// an authorized-user file or a token).
func ForHome(h *home.Home, opt HomeOptions) (*Pipeline, error) {
	dir, err := filepath.Abs(h.Dir)
	if err != nil {
		return nil, err
	}
	co := opt.Connector
	co.Workspace = filepath.Join(dir, "workspace")
	co.CredentialsDir = filepath.Join(dir, "credentials")
	co.AllowPrivateNetworks = opt.AllowPrivateNetworks
	lc, err := local.New(co)
	if err != nil {
		return nil, err
	}
	wc, err := web.New(co)
	if err != nil {
		return nil, err
	}
	gc, err := gdrive.New(co, gdrive.Config{})
	if err != nil {
		return nil, err
	}
	return New(Config{Home: h, Index: HomeIndex(h, opt.Embedder), Connectors: connector.Mux{
		connector.SourceLocal: lc, connector.SourceWeb: wc, connector.SourceGDrive: gc,
	}})
}

// Index returns the pipeline's memory index.
func (p *Pipeline) Index() *memory.Index { return p.cfg.Index }
