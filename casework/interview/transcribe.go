package interview

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/sanadhq/sanad"
)

// Defaults of [Transcriber].
const (
	DefaultTranscriptionModel = "whisper-1"
	// DefaultMaxAudioBytes is OpenAI's upload limit.
	DefaultMaxAudioBytes = 25 << 20
	// DefaultMaxResponseBytes bounds a server's answer as [ParseTranscript]
	// bounds a file.
	DefaultMaxResponseBytes = MaxTranscriptBytes
	// maxServerMessage bounds the server's words quoted in an error.
	maxServerMessage = 200
)

// Transcriber turns audio into a [Transcript] through an OpenAI-compatible
// /v1/audio/transcriptions server: whisper.cpp's server (started with
// --inference-path /v1/audio/transcriptions), a faster-whisper server, or
// OpenAI. It is safe for concurrent use once its fields are set.
type Transcriber struct {
	BaseURL string // such as http://127.0.0.1:8080 or https://api.openai.com; a trailing /v1 is accepted
	APIKey  string // sent as a bearer token when set
	Model   string // DefaultTranscriptionModel when empty
	// Language is an ISO 639-1 code sent as a hint; empty lets the server
	// detect it.
	Language string
	HTTP     *http.Client // http.DefaultClient when nil
	// MaxBytes bounds the server's response (DefaultMaxResponseBytes when 0).
	MaxBytes int64
	// MaxAudioBytes bounds the audio uploaded (DefaultMaxAudioBytes when 0).
	MaxAudioBytes int64
}

// Transcribe uploads audio as multipart form fields file, model,
// response_format=verbose_json and language, and reads the segments of the
// answer, or its text alone when the server sends plain {"text"} JSON. The
// transcript's Source is "audio:<name>"; speakers are "unknown" unless the
// server diarizes.
//
// Errors, as *sanad.Error codes:
//   - INVALID_INPUT: the audio is larger than MaxAudioBytes, or the server
//     refused the request (4xx); the message quotes the server, bounded.
//   - MODEL_AUTH: the server refused the key (401, 403). The server is a
//     model provider refusing credentials, which is what MODEL_AUTH means;
//     POLICY_DENIED is kept for sanad's own policy.
//   - MODEL_RATE_LIMIT: 429; retryable.
//   - DEPENDENCY_DOWN: the server could not be reached or failed (5xx,
//     408); retryable: try again later.
//   - ERR_TIMEOUT or CANCELLED: ctx ended first.
//   - MODEL_OUTPUT_INVALID: the answer is larger than MaxBytes or not a
//     transcription in JSON (often a BaseURL that points at something
//     else).
func (t *Transcriber) Transcribe(ctx context.Context, name string, audio io.Reader) (Transcript, error) {
	const op = "interview.Transcribe"
	maxAudio := t.MaxAudioBytes
	if maxAudio <= 0 {
		maxAudio = DefaultMaxAudioBytes
	}
	data, err := io.ReadAll(io.LimitReader(audio, maxAudio+1))
	if err != nil {
		return Transcript{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, "reading the audio of "+name+" failed")
	}
	if int64(len(data)) > maxAudio {
		return Transcript{}, sanad.Errorf(sanad.CodeInvalidInput, op, "%s is larger than the %d bytes a transcription may upload; split the recording", name, maxAudio)
	}
	if len(data) == 0 {
		return Transcript{}, sanad.Errorf(sanad.CodeInvalidInput, op, "%s holds no audio", name)
	}
	return t.transcribe(ctx, name, data)
}

func (t *Transcriber) transcribe(ctx context.Context, name string, audio []byte) (Transcript, error) {
	const op = "interview.Transcribe"
	if t.BaseURL == "" {
		return Transcript{}, sanad.Errorf(sanad.CodeInvalidInput, op, "no transcription server is configured (BaseURL is empty)")
	}
	var body bytes.Buffer
	form := multipart.NewWriter(&body)
	file, _ := form.CreateFormFile("file", path.Base(strings.ReplaceAll(name, `\`, "/")))
	file.Write(audio)
	model := t.Model
	if model == "" {
		model = DefaultTranscriptionModel
	}
	form.WriteField("model", model)
	form.WriteField("response_format", "verbose_json")
	if t.Language != "" {
		form.WriteField("language", t.Language)
	}
	form.Close()

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint(), &body)
	if err != nil {
		return Transcript{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, "the transcription server address is not a URL: "+clip(t.BaseURL, 100))
	}
	req.Header.Set("Content-Type", form.FormDataContentType())
	req.Header.Set("Accept", "application/json")
	if t.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+t.APIKey)
	}
	client := t.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return Transcript{}, contextError(ctx, err, op)
	}
	defer resp.Body.Close()
	limit := t.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return Transcript{}, contextError(ctx, err, op)
	}
	if resp.StatusCode != http.StatusOK {
		return Transcript{}, statusError(resp.StatusCode, raw, op)
	}
	if int64(len(raw)) > limit {
		return Transcript{}, sanad.Errorf(sanad.CodeModelOutput, op, "the transcription server answered more than %d bytes; raise MaxBytes if the recording is that long", limit)
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) != nil || (probe["segments"] == nil && probe["text"] == nil) {
		return Transcript{}, sanad.Errorf(sanad.CodeModelOutput, op, "the transcription server's answer is not a JSON transcription (%q); check that BaseURL points at an OpenAI-compatible server", clip(strings.TrimSpace(string(raw)), 80))
	}
	b, err := parseJSON(raw)
	if err != nil {
		return Transcript{}, sanad.Wrap(err, sanad.CodeModelOutput, op, "the transcription server's answer is malformed: "+err.Error())
	}
	b.format = FormatWhisper
	tr := b.transcript()
	tr.Source = "audio:" + name
	if tr.Language == "" {
		tr.Language = t.Language
	}
	return tr, nil
}

// endpoint is BaseURL's /v1/audio/transcriptions.
func (t *Transcriber) endpoint() string {
	base := strings.TrimRight(t.BaseURL, "/")
	if strings.HasSuffix(base, "/audio/transcriptions") {
		return base
	}
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	return base + "/audio/transcriptions"
}

func contextError(ctx context.Context, err error, op string) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return sanad.Wrap(err, sanad.CodeTimeout, op, "the transcription did not finish before its deadline; retry with more time or a shorter recording")
	case ctx.Err() != nil:
		return sanad.Wrap(err, sanad.CodeCancelled, op, "the transcription was cancelled")
	}
	return sanad.Wrap(err, sanad.CodeDependencyDown, op, "the transcription server could not be reached; check that it is running and retry")
}

// statusError classifies a refusal by its HTTP status.
func statusError(status int, body []byte, op string) error {
	said := serverMessage(body)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return sanad.Errorf(sanad.CodeModelAuth, op, "the transcription server refused the API key (%d)%s; check APIKey", status, said)
	case status == http.StatusTooManyRequests:
		return sanad.Errorf(sanad.CodeModelRateLimit, op, "the transcription server is rate limiting (429)%s; retry later", said)
	case status == http.StatusRequestTimeout || status >= 500:
		return sanad.Errorf(sanad.CodeDependencyDown, op, "the transcription server failed (%d)%s; retry later", status, said)
	case status >= 400:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "the transcription server refused the request (%d)%s", status, said)
	}
	return sanad.Errorf(sanad.CodeModelOutput, op, "the transcription server answered %d, not 200", status)
}

// serverMessage quotes the error a server sent: OpenAI's
// {"error":{"message"}}, whisper.cpp's {"error":"..."}, or its text.
func serverMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var s string
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &s) == nil {
			msg = s
		} else if json.Unmarshal(e.Error, &o) == nil && o.Message != "" {
			msg = o.Message
		}
	}
	msg = collapse(msg)
	if msg == "" {
		return ""
	}
	return fmt.Sprintf(": %q", clip(msg, maxServerMessage))
}

// Job states.
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// Job is a transcription's state, as transcription.status reports it.
type Job struct {
	ID    string `json:"id"`
	State string `json:"state"` // queued|running|done|failed
	Error string `json:"error,omitempty"`
}

// DefaultMaxJobs bounds the jobs a [Jobs] remembers.
const DefaultMaxJobs = 256

// Jobs runs transcriptions and remembers their outcome for
// transcription.status. Transcription is synchronous: [Jobs.Run] returns
// when the server has answered, so a job is only ever seen done or
// failed. This keeps every call inside the governed tool call that made
// it, with no goroutine outliving it; the states queued and running are
// kept for a registry that runs jobs in the background. A job's ID is the
// SHA-256 of its audio, so the same recording is the same job. Jobs is
// safe for concurrent use.
type Jobs struct {
	Transcriber *Transcriber
	Max         int // DefaultMaxJobs when 0; the oldest job is forgotten first

	// mu guards jobs and order.
	mu    sync.Mutex
	jobs  map[string]jobEntry
	order []string
}

type jobEntry struct {
	job        Job
	transcript Transcript
}

// Run transcribes audio and records the job. It returns the job with the
// transcript, or the job and the error of [Transcriber.Transcribe].
func (j *Jobs) Run(ctx context.Context, name string, audio io.Reader) (Job, Transcript, error) {
	data, err := io.ReadAll(io.LimitReader(audio, j.maxAudio()+1))
	if err != nil {
		return Job{}, Transcript{}, sanad.Wrap(err, sanad.CodeInvalidInput, "interview.Jobs.Run", "reading the audio of "+name+" failed")
	}
	sum := sha256.Sum256(data)
	job := Job{ID: "tr-" + hex.EncodeToString(sum[:8]), State: JobDone}
	tr, err := j.Transcriber.Transcribe(ctx, name, bytes.NewReader(data))
	if err != nil {
		job.State, job.Error = JobFailed, sanad.ErrorMessage(err)
	}
	j.remember(jobEntry{job, tr})
	return job, tr, err
}

func (j *Jobs) maxAudio() int64 {
	if j.Transcriber != nil && j.Transcriber.MaxAudioBytes > 0 {
		return j.Transcriber.MaxAudioBytes
	}
	return DefaultMaxAudioBytes
}

func (j *Jobs) remember(e jobEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.jobs == nil {
		j.jobs = map[string]jobEntry{}
	}
	if _, ok := j.jobs[e.job.ID]; !ok {
		j.order = append(j.order, e.job.ID)
	}
	j.jobs[e.job.ID] = e
	max := j.Max
	if max <= 0 {
		max = DefaultMaxJobs
	}
	for len(j.order) > max {
		delete(j.jobs, j.order[0])
		j.order = j.order[1:]
	}
}

// Status returns a job and, when it is done, its transcript. It fails with
// CodeNotFound for an ID it does not remember.
func (j *Jobs) Status(id string) (Job, Transcript, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.jobs[id]
	if !ok {
		return Job{}, Transcript{}, sanad.Errorf(sanad.CodeNotFound, "interview.Jobs.Status", "no transcription job %q; only the most recent jobs are remembered", clip(id, 80))
	}
	return e.job, e.transcript, nil
}
