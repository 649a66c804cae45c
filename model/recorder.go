package model

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/runs"
)

// MediaType is the media type of the prompt and response artifacts of a
// recorded call.
const MediaType = "application/json"

// Recorder makes audited model calls: each is a model_call child run of
// the run it is made for, whose prompt and reply are stored as artifacts
// (the canonical JSON of [RequestJSON] and [ResponseJSON]) and whose
// model.call event records the model, the hashes, the usage, the latency and
// the cost. It is safe for concurrent use.
//
// Nothing it records holds an API key: keys stay inside the provider
// adapters, which also remove them from every reply and error.
type Recorder struct {
	Runs      *runs.Recorder
	Artifacts *artifact.Store
	Registry  *Registry
	// Now returns the time, for the latency of a call the provider did not
	// time (time.Now when nil).
	Now func() time.Time
}

// callRequest is what a model_call run's request hash covers.
type callRequest struct {
	Class      string `json:"class"`
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	PromptHash string `json:"prompt_hash"`
}

// Generate sends req to the model of class as agent, recorded as a
// model_call child run of parent (its scope is parent's), and returns the
// reply.
//
// A class with no configured model fails with NOT_FOUND before anything is
// recorded. Once the run has started, the call's outcome is recorded whatever
// it is: a reply completes the run, an error of the model fails it with the
// error's code, which Generate returns. The recording is done even when ctx
// is cancelled during the call; an error in recording is returned as it is.
func (r *Recorder) Generate(ctx context.Context, parent *runs.Run, agent, class string, req Request) (Response, error) {
	const op = "model.generate"
	if parent == nil {
		return Response{}, sanad.Errorf(sanad.CodeInvalidInput, op, "a model call needs the run it is made for")
	}
	m, ok := r.Registry.Model(class)
	if !ok {
		return Response{}, sanad.Errorf(sanad.CodeNotFound, op, "no model is configured for class %q (configured: %v)", class, r.Registry.Classes())
	}
	cc, _ := r.Registry.Class(class)
	prompt, err := RequestJSON(req)
	if err != nil {
		return Response{}, err
	}
	// What is recorded is recorded even if the caller gives up meanwhile:
	// a call that was made must not be lost from the trace.
	rctx := context.WithoutCancel(ctx)
	scope := parent.Record.Scope
	promptRef, err := r.Artifacts.Put(rctx, scope, parent.Record.ID, MediaType, prompt)
	if err != nil {
		return Response{}, err
	}
	run, err := r.Runs.Start(rctx, runs.Spec{
		Kind: sanad.KindModelCall, Parent: parent, Scope: scope, Agent: agent,
		Inputs:  []sanad.ArtifactRef{promptRef},
		Request: callRequest{Class: class, Provider: cc.Provider, Model: cc.Model, PromptHash: sanad.ArtifactID(promptRef.SHA256)},
		Decision: runs.Decision{Allow: true, Action: "model:" + class,
			Reason: "agent " + agent + " calls the " + class + " model (" + cc.Provider + " " + cc.Model + ")"},
	})
	if err != nil {
		return Response{}, err
	}
	now := r.Now
	if now == nil {
		now = time.Now
	}
	t0 := now()
	resp, callErr := m.Generate(ctx, req)
	latency := resp.Latency
	if latency <= 0 {
		latency = max(now().Sub(t0), 0)
	}
	body := CallBody{
		Agent: agent, Class: class, Provider: cc.Provider, Model: cc.Model, Status: CallOK,
		PromptHash: sanad.ArtifactID(promptRef.SHA256), Prompt: promptRef,
		ResponseID: clip(resp.ID, maxID), RequestID: clip(resp.RequestID, maxID), FinishReason: FinishReason(clip(string(resp.FinishReason), maxReason)),
		Usage: resp.Usage.JSON(), LatencyMS: latency.Milliseconds(), Cost: Cost(resp.Usage, cc.Prices),
	}
	if resp.Model != "" {
		body.Model = clip(resp.Model, maxID)
	}
	refs := []sanad.ArtifactRef{promptRef}
	var data []byte
	if callErr == nil {
		data, callErr = ResponseJSON(resp)
	}
	var respRef sanad.ArtifactRef
	if callErr == nil {
		if respRef, err = r.Artifacts.Put(rctx, scope, run.Record.ID, MediaType, data); err != nil {
			return Response{}, r.fail(rctx, run, sanad.Wrap(err, sanad.ErrorCode(err), op, "the model answered but its reply could not be stored: "+sanad.ErrorMessage(err)))
		}
		body.ResponseHash, body.Response = sanad.ArtifactID(respRef.SHA256), &respRef
		refs = append(refs, respRef)
	} else {
		body.Status, body.Error = CallFailed, sanad.NewRunError(callErr)
	}
	if _, err := run.Append(rctx, TypeCall, "", body, refs); err != nil {
		return Response{}, r.fail(rctx, run, err)
	}
	if callErr != nil {
		if err := run.Fail(rctx, callErr); err != nil {
			return Response{}, err
		}
		return Response{}, callErr
	}
	if err := run.Complete(rctx, []sanad.ArtifactRef{respRef}, json.RawMessage(data)); err != nil {
		return Response{}, err
	}
	return resp, nil
}

// fail ends run as failed with cause and returns cause, or the error of
// recording the failure.
func (r *Recorder) fail(ctx context.Context, run *runs.Run, cause error) error {
	if err := run.Fail(ctx, cause); err != nil {
		return err
	}
	return cause
}

// The bounds of what a model.call event keeps of the provider's ids, model
// name and finish reason.
const (
	maxID     = 256
	maxReason = 64
)

// clip returns s cut to n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut]
}
