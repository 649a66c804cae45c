package bench

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/guard"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/playbook/rag"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/tailor"
)

// AskConfig configures Ask.
type AskConfig struct {
	// Dir is a temporary folder for the home; Corpus the documents asked.
	Dir    string
	Corpus string
	// Questions are asked in turn, Rounds times (default 3).
	Questions []string
	Rounds    int
}

// AskResult is what `sanad bench ask` reports: the time of an offline
// question end to end (sanad ask's work: the rag playbook run, every step
// and tool call recorded), the time of the same work done without
// recording it (guard checks, plan, searches, composition), and the share
// of the first that recording takes: the ledger, the gateway's runs and
// the artifacts.
type AskResult struct {
	Questions    int     `json:"questions"`
	P50MS        float64 `json:"p50_ms"`
	P90MS        float64 `json:"p90_ms"`
	WorkP50MS    float64 `json:"work_p50_ms"`
	RecordShare  float64 `json:"record_share"`
	EventsPerAsk float64 `json:"events_per_ask"`
	LimitMS      float64 `json:"limit_ms"`
	Ratio        float64 `json:"ratio_to_limit"`
}

// AskLimitMS is the target p50 of an offline question.
const AskLimitMS = 200

// Ask ingests cfg.Corpus into a new home in cfg.Dir and times cfg.Questions,
// asked through the rag playbook and done directly, alternating rounds.
func Ask(ctx context.Context, cfg AskConfig) (AskResult, error) {
	const op = "bench.ask"
	if len(cfg.Questions) == 0 {
		return AskResult{}, sanad.Errorf(sanad.CodeInvalidInput, op, "no questions")
	}
	rounds := cfg.Rounds
	if rounds <= 0 {
		rounds = 3
	}
	h, err := home.Open(ctx, home.Config{Dir: filepath.Join(cfg.Dir, "home")})
	if err != nil {
		return AskResult{}, err
	}
	defer h.Close()
	scope := sanad.Scope{Tenant: "bench", Case: "ask"}
	p, err := ingest.ForHome(h, ingest.HomeOptions{})
	if err != nil {
		return AskResult{}, err
	}
	if _, err := os.Stat(cfg.Corpus); err != nil {
		return AskResult{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, "the corpus")
	}
	if _, err := p.Ingest(ctx, []connector.Input{ingest.Source(cfg.Corpus, true)}, ingest.Options{Scope: scope}); err != nil {
		return AskResult{}, err
	}
	r, err := runner.Open(ctx, runner.Config{Home: h})
	if err != nil {
		return AskResult{}, err
	}
	defer r.Close()
	g, err := rag.DefaultGuard()
	if err != nil {
		return AskResult{}, err
	}
	svc, err := rag.Register(r, rag.Config{Guard: g})
	if err != nil {
		return AskResult{}, err
	}
	index := &memory.Index{Store: h.DB}
	var asked, worked []time.Duration
	events := 0
	for round := 0; round < rounds; round++ {
		for _, q := range cfg.Questions {
			start := time.Now()
			rep, err := svc.Ask(ctx, rag.Question{Text: q, Scope: scope})
			if err != nil {
				return AskResult{}, err
			}
			asked = append(asked, time.Since(start))
			if round == 0 {
				evs, err := h.Ledger.Events(ctx, rep.Trace)
				if err != nil {
					return AskResult{}, err
				}
				events += len(evs)
			}
			start = time.Now()
			if err := work(ctx, g, index, scope, q); err != nil {
				return AskResult{}, err
			}
			worked = append(worked, time.Since(start))
		}
	}
	res := AskResult{Questions: len(cfg.Questions), P50MS: percentile(asked, 50) / 1000, P90MS: percentile(asked, 90) / 1000,
		WorkP50MS: percentile(worked, 50) / 1000, EventsPerAsk: float64(events) / float64(len(cfg.Questions)), LimitMS: AskLimitMS}
	res.RecordShare = 1 - res.WorkP50MS/res.P50MS
	res.Ratio = res.P50MS / AskLimitMS
	return res, nil
}

// work does what the rag playbook does for question q, unrecorded: screen
// it, plan it, search each part, screen the passages, compose the answer
// and check it.
func work(ctx context.Context, g *guard.Guard, index *memory.Index, scope sanad.Scope, q string) error {
	in, err := g.Check(guard.Input{Content: q, CheckType: guard.InputValidation})
	if err != nil {
		return err
	}
	plan := rag.Analyze(in.SanitizedContent, nil)
	var passages []memory.Result
	for _, sub := range plan.SubQueries {
		out, err := index.Search(ctx, scope, memory.Query{QueryText: sub, TopK: rag.DefaultTopK})
		if err != nil && sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
			return err
		}
		passages = append(passages, out.Results...)
	}
	for _, p := range passages {
		if _, err := g.Check(guard.Input{Content: p.Content, CheckType: guard.InputValidation}); err != nil {
			return err
		}
	}
	ti := tailor.Input{UserQuery: plan.Question, ContextChunks: passages}
	if len(plan.SubQueries) > 1 {
		ti.SubQueries = plan.SubQueries
	}
	out, err := tailor.Compose(ti)
	if err != nil {
		return err
	}
	_, err = g.Check(guard.Input{Content: out.Content, CheckType: guard.OutputSafety})
	return err
}
