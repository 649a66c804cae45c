package interview_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/interview"
)

// whisper.cpp's server answers verbose_json like this (examples/server,
// with --inference-path /v1/audio/transcriptions).
const whisperCppAnswer = `{"task":"transcribe","language":"english","duration":9.5,"text":" My landlord kept my deposit of $1,800.",
"segments":[{"id":0,"text":" My landlord kept my deposit","start":0.0,"end":4.2,"tokens":[50364,1222],"words":[],"temperature":0.0,"avg_logprob":-0.3,"no_speech_prob":0.02},
{"id":1,"text":" of $1,800.","start":4.2,"end":9.5,"tokens":[295],"words":[],"temperature":0.0,"avg_logprob":-0.2,"no_speech_prob":0.01}],
"detected_language":"english","detected_language_probability":0.97,"language_probabilities":{"en":0.97}}`

// OpenAI's API answers response_format=json with the text alone.
const openAIJSONAnswer = `{"text":"I was fired on October 12, 2023.","usage":{"type":"duration","seconds":4}}`

type fake struct {
	status int
	body   string
	delay  time.Duration
	got    map[string]string // the form fields received
	auth   string
}

func (f *fake) server(tb testing.TB) *httptest.Server {
	tb.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		f.auth = r.Header.Get("Authorization")
		if err := r.ParseMultipartForm(1 << 20); err == nil {
			f.got = map[string]string{}
			for k, v := range r.MultipartForm.Value {
				f.got[k] = v[0]
			}
			if fh := r.MultipartForm.File["file"]; len(fh) == 1 {
				file, _ := fh[0].Open()
				b, _ := io.ReadAll(file)
				f.got["file"] = fh[0].Filename + ":" + string(b)
			}
		}
		if f.delay > 0 {
			select {
			case <-time.After(f.delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.status)
		io.WriteString(w, f.body)
	}))
	tb.Cleanup(s.Close)
	return s
}

func TestC09_TranscribeWhisperCpp(t *testing.T) {
	f := &fake{status: 200, body: whisperCppAnswer}
	s := f.server(t)
	tr, err := (&interview.Transcriber{BaseURL: s.URL, APIKey: "k", Model: "ggml-base.en", Language: "en"}).
		Transcribe(context.Background(), "intake.wav", strings.NewReader("RIFF....WAVE"))
	if err != nil {
		t.Fatal(err)
	}
	checkSpans(t, tr)
	for k, want := range map[string]string{"model": "ggml-base.en", "response_format": "verbose_json", "language": "en", "file": "intake.wav:RIFF....WAVE"} {
		if f.got[k] != want {
			t.Errorf("form field %s: got %q, want %q", k, f.got[k], want)
		}
	}
	if f.auth != "Bearer k" {
		t.Errorf("got Authorization %q, want Bearer k", f.auth)
	}
	if tr.Source != "audio:intake.wav" || tr.Format != "whisper" || tr.Language != "english" || len(tr.Turns) != 2 {
		t.Fatalf("got %s %s %s with %d turns, want audio:intake.wav whisper english with 2", tr.Source, tr.Format, tr.Language, len(tr.Turns))
	}
	if tr.Turns[1].Start != 4200*time.Millisecond || tr.Turns[1].Text != "of $1,800." {
		t.Errorf("turn 1: got %+v", tr.Turns[1])
	}
}

func TestTranscribeOpenAIPlainJSON(t *testing.T) {
	s := (&fake{status: 200, body: openAIJSONAnswer}).server(t)
	tr, err := (&interview.Transcriber{BaseURL: s.URL + "/v1/"}).Transcribe(context.Background(), "a.mp3", strings.NewReader("ID3"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Turns) != 1 || tr.Turns[0].Speaker != "unknown" || tr.Turns[0].Text != "I was fired on October 12, 2023." {
		t.Errorf("got %+v", tr.Turns)
	}
}

func TestTranscribeErrors(t *testing.T) {
	tests := []struct {
		name  string
		fake  fake
		t     interview.Transcriber
		audio string
		ctx   time.Duration
		code  sanad.Code
		says  string
	}{
		{"server error", fake{status: 500, body: `{"error":"failed to process audio"}`}, interview.Transcriber{}, "a", 0, sanad.CodeDependencyDown, "failed to process audio"},
		{"unauthorized", fake{status: 401, body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`}, interview.Transcriber{}, "a", 0, sanad.CodeModelAuth, "Incorrect API key"},
		{"forbidden", fake{status: 403, body: "no"}, interview.Transcriber{}, "a", 0, sanad.CodeModelAuth, "403"},
		{"bad request", fake{status: 400, body: `{"error":{"message":"` + strings.Repeat("Invalid file format. ", 40) + `"}}`}, interview.Transcriber{}, "a", 0, sanad.CodeInvalidInput, "Invalid file format"},
		{"rate limit", fake{status: 429, body: "{}"}, interview.Transcriber{}, "a", 0, sanad.CodeModelRateLimit, "429"},
		{"oversize answer", fake{status: 200, body: whisperCppAnswer}, interview.Transcriber{MaxBytes: 100}, "a", 0, sanad.CodeModelOutput, "more than 100 bytes"},
		{"not json", fake{status: 200, body: "<html>hello</html>"}, interview.Transcriber{}, "a", 0, sanad.CodeModelOutput, "BaseURL"},
		{"oversize audio", fake{status: 200, body: openAIJSONAnswer}, interview.Transcriber{MaxAudioBytes: 3}, "abcd", 0, sanad.CodeInvalidInput, "split the recording"},
		{"slow", fake{status: 200, body: openAIJSONAnswer, delay: 5 * time.Second}, interview.Transcriber{}, "a", 50 * time.Millisecond, sanad.CodeTimeout, "deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.fake.server(t)
			tr := tt.t
			tr.BaseURL = s.URL
			ctx := context.Background()
			if tt.ctx > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctx)
				defer cancel()
			}
			_, err := tr.Transcribe(ctx, "a.wav", strings.NewReader(tt.audio))
			if sanad.ErrorCode(err) != tt.code || !strings.Contains(sanad.ErrorMessage(err), tt.says) {
				t.Fatalf("got %v, want %s saying %q", err, tt.code, tt.says)
			}
			if len(sanad.ErrorMessage(err)) > sanad.MaxMessageBytes {
				t.Errorf("message is %d bytes", len(sanad.ErrorMessage(err)))
			}
		})
	}
}

func TestTranscribeUnreachable(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	url := s.URL
	s.Close()
	_, err := (&interview.Transcriber{BaseURL: url}).Transcribe(context.Background(), "a.wav", strings.NewReader("a"))
	if sanad.ErrorCode(err) != sanad.CodeDependencyDown || !sanad.IsRetryable(err) || !strings.Contains(sanad.ErrorMessage(err), "retry") {
		t.Fatalf("got %v, want a retryable DEPENDENCY_DOWN", err)
	}
}

func TestC09_JobsStatus(t *testing.T) {
	s := (&fake{status: 200, body: whisperCppAnswer}).server(t)
	jobs := &interview.Jobs{Transcriber: &interview.Transcriber{BaseURL: s.URL}, Max: 1}
	job, tr, err := jobs.Run(context.Background(), "a.wav", strings.NewReader("audio one"))
	if err != nil || job.State != interview.JobDone || len(tr.Turns) != 2 {
		t.Fatalf("got %+v, %d turns, %v; want a done job", job, len(tr.Turns), err)
	}
	got, stored, err := jobs.Status(job.ID)
	if err != nil || got != job || stored.Text != tr.Text {
		t.Fatalf("Status(%s) = %+v, %v; want %+v with its transcript", job.ID, got, err, job)
	}
	again, _, _ := jobs.Run(context.Background(), "b.wav", strings.NewReader("audio one"))
	if again.ID != job.ID {
		t.Errorf("the same audio got job %s, want %s", again.ID, job.ID)
	}
	other, _, _ := jobs.Run(context.Background(), "c.wav", strings.NewReader("audio two"))
	if _, _, err := jobs.Status(job.ID); sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Errorf("with Max 1, job %s after %s: got %v, want NOT_FOUND", job.ID, other.ID, err)
	}
	failing := &interview.Jobs{Transcriber: &interview.Transcriber{BaseURL: (&fake{status: 503}).server(t).URL}}
	job, _, err = failing.Run(context.Background(), "a.wav", strings.NewReader("x"))
	if err == nil || job.State != interview.JobFailed || job.Error == "" {
		t.Errorf("got %+v, %v; want a failed job", job, err)
	}
}
