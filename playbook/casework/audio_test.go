package casework_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/interview"
	"github.com/sanadhq/sanad/playbook/casework"
	"github.com/sanadhq/sanad/runner"
)

// TestC09_AudioIsTranscribedThroughTheLane: a recording goes through
// transcription.run to an OpenAI-compatible transcription server (here a
// local one answering as whisper.cpp's does); the transcript and notes are
// written as for a transcript file. With the server down, the interview
// fails with DEPENDENCY_DOWN and writes nothing.
func TestC09_AudioIsTranscribedThroughTheLane(t *testing.T) {
	var requests atomic.Int32
	down := atomic.Bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if down.Load() {
			http.Error(w, "model loading", http.StatusServiceUnavailable)
			return
		}
		if r.URL.Path != "/v1/audio/transcriptions" || r.ParseMultipartForm(1<<20) != nil || r.FormValue("response_format") != "verbose_json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"task":"transcribe","language":"english","duration":9.1,"text":" I paid a $1,800 deposit on June 1, 2023. My landlord kept all of it.",
"segments":[{"id":0,"start":0.0,"end":4.2,"text":" I paid a $1,800 deposit on June 1, 2023."},{"id":1,"start":4.2,"end":9.1,"text":" My landlord kept all of it."}]}`))
	}))
	t.Cleanup(srv.Close)
	r, err := runner.Open(t.Context(), runner.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	pbs, err := casework.Playbooks(casework.Config{Transcriber: &interview.Transcriber{BaseURL: srv.URL, Model: "ggml-base.en"},
		Now: func() time.Time { return time.Date(2025, 11, 10, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, pb := range pbs {
		if err := r.Register(pb); err != nil {
			t.Fatal(err)
		}
	}
	pol, err := casework.Policy()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, r: r, h: r.Home(), pol: pol}
	e.run(casework.Open, "c-1", casework.OpenInput{Form: read(t, "tenant-retaliation", "intake.json"), ClientSessionID: "intake-1"})
	audio := []byte("RIFF....WAVEfmt fake audio")
	ref, err := e.h.Artifacts.Put(t.Context(), scopeOf("c-1"), "", "audio/wav", audio)
	if err != nil {
		t.Fatal(err)
	}
	in := casework.InterviewInput{ClientSessionID: "s-1", Artifact: "sha256:" + ref.SHA256, Name: "call.wav", MediaType: "audio/wav"}
	res := e.run(casework.Interview, "c-1", in)
	var out casework.InterviewOutcome
	if err := json.Unmarshal(res.Outputs["interview"], &out); err != nil {
		t.Fatal(err)
	}
	if out.Turns != 2 || out.Notes == 0 || requests.Load() != 1 {
		t.Fatalf("interview %+v after %d requests, want 2 turns with notes after 1", out, requests.Load())
	}
	audit(t, e, res.Trace)

	down.Store(true)
	before, err := e.h.DB.Records(t.Context(), scopeOf("c-1"), "transcripts")
	if err != nil {
		t.Fatal(err)
	}
	in.ClientSessionID = "s-2"
	failed, err := e.r.Run(t.Context(), casework.Interview, in, runnerOpts("c-1"))
	if err != nil || failed.Status != sanad.StatusFailed || len(failed.Errors) == 0 || failed.Errors[0].Code != sanad.CodeDependencyDown {
		t.Fatalf("with the server down: %s %+v, %v; want failed with DEPENDENCY_DOWN", failed.Status, failed.Errors, err)
	}
	after, err := e.h.DB.Records(t.Context(), scopeOf("c-1"), "transcripts")
	if err != nil || len(after) != len(before) {
		t.Errorf("transcripts after the failure: %d, want %d (nothing written)", len(after), len(before))
	}
}
