package tailor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/tailor"
)

// scripted is a model that replies with texts in turn and keeps the
// requests it was sent.
type scripted struct {
	replies []string
	err     error
	reqs    []model.Request
}

func (m *scripted) Generate(_ context.Context, req model.Request) (model.Response, error) {
	m.reqs = append(m.reqs, req)
	if m.err != nil {
		return model.Response{}, m.err
	}
	if len(m.reqs) > len(m.replies) {
		return model.Response{Text: tailor.NoAnswer}, nil
	}
	return model.Response{Text: m.replies[len(m.reqs)-1]}, nil
}
func (m *scripted) Class() string    { return "reasoning" }
func (m *scripted) Provider() string { return "scripted" }

func leaseInput() tailor.Input {
	return tailor.Input{UserQuery: "What are the rent and the deposit?", ContextChunks: testSet[2].chunks, Searched: []string{"lease documents"}}
}

// TestR05_WriteKeepsASupportedReply: a reply whose every sentence cites the
// passage that states it is the answer, its citations renumbered in the
// order it cites them.
func TestR05_WriteKeepsASupportedReply(t *testing.T) {
	m := &scripted{replies: []string{"The tenant pays a security deposit of $3,700 before moving in. [2] The monthly rent is $1,850 [1]."}}
	out, err := tailor.Write(t.Context(), m, leaseInput())
	if err != nil {
		t.Fatal(err)
	}
	if out.Refused || len(out.Sentences) != 2 || len(m.reqs) != 1 {
		t.Fatalf("got %+v after %d requests, want a two-sentence answer at once", out, len(m.reqs))
	}
	if want := "The tenant pays a security deposit of $3,700 before moving in. [1] The monthly rent is $1,850 [2]."; out.Content != want {
		t.Errorf("content %q, want %q", out.Content, want)
	}
	if out.Citations[0].ChunkID != "lease-2" || out.Citations[1].ChunkID != "lease-1" || out.Citations[0].TextSnippet == "" {
		t.Errorf("citations %+v, want lease-2 then lease-1, with snippets", out.Citations)
	}
	checkAnswer(t, out, testSet[2].chunks)
	if out.ConfidenceScore <= 0.2 {
		t.Errorf("confidence %v, want more than a refusal's", out.ConfidenceScore)
	}
	req := m.reqs[0]
	for _, want := range []string{"[1]", "The monthly rent is $1,850", "Question: What are the rent and the deposit?"} {
		if !strings.Contains(req.Messages[0].Content, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if !strings.Contains(req.System, "[1]") || strings.Contains(req.System, "Be strict") {
		t.Errorf("system prompt %q: want the marker rule and no strict instruction", req.System)
	}
}

// TestR05_WriteRetriesStrictlyThenRefuses: an unsupported reply is retried
// once under the strict instruction; a second unsupported reply becomes a
// refusal that names the failure, never the unsupported text.
func TestR05_WriteRetriesStrictlyThenRefuses(t *testing.T) {
	m := &scripted{replies: []string{
		"The monthly rent is $1,950 [1].",
		"The rent includes heating, water and a parking space [1].",
	}}
	out, err := tailor.Write(t.Context(), m, leaseInput())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.reqs) != 2 || !strings.Contains(m.reqs[1].System, "Be strict") {
		t.Fatalf("%d requests, want a strict retry", len(m.reqs))
	}
	if !out.Refused || len(out.Citations) != 0 || strings.Contains(out.Content, "heating") || !strings.Contains(out.Content, "lease documents") {
		t.Fatalf("got %+v, want a refusal naming what was searched", out)
	}
	if !strings.Contains(out.Reason, string(sanad.CodeTailorHallucination)) {
		t.Errorf("reason %q, want the hallucination code", out.Reason)
	}
}

// TestR05_WriteRetryCanSucceed: a strict retry that is supported is the
// answer.
func TestR05_WriteRetryCanSucceed(t *testing.T) {
	m := &scripted{replies: []string{"Rent is probably about $2,000 [1].", "The monthly rent is $1,850, due on the first day of each month [1]."}}
	out, err := tailor.Write(t.Context(), m, leaseInput())
	if err != nil || out.Refused || len(m.reqs) != 2 {
		t.Fatalf("got %+v, %v after %d requests, want the second reply", out, err, len(m.reqs))
	}
}

// TestR05_ReplyWithoutMarkersIsAHallucination: a sentence without a
// citation marker, or with one naming no passage, fails the check.
func TestR05_ReplyWithoutMarkersIsAHallucination(t *testing.T) {
	in := leaseInput()
	for _, reply := range []string{
		"The monthly rent is $1,850, due on the first day of each month.",
		"The monthly rent is $1,850 [1]. The deposit is $3,700.",
		"The monthly rent is $1,850 [7].",
	} {
		if _, err := tailor.Parse(reply, in); sanad.ErrorCode(err) != sanad.CodeTailorHallucination {
			t.Errorf("%q: got %v, want ERR_TAILOR_HALLUCINATION", reply, err)
		}
	}
	m := &scripted{replies: []string{"The monthly rent is $1,850.", "The monthly rent is $1,850."}}
	out, err := tailor.Write(t.Context(), m, in)
	if err != nil || !out.Refused || len(m.reqs) != 2 {
		t.Fatalf("got %+v, %v after %d requests, want a refusal after a retry", out, err, len(m.reqs))
	}
}

// TestR05_WriteRefusesWhenTheModelFindsNothing: the model's no-answer reply
// and an empty context are refusals; a model failure is returned as it is.
func TestR05_WriteRefusesWhenTheModelFindsNothing(t *testing.T) {
	m := &scripted{replies: []string{tailor.NoAnswer}}
	out, err := tailor.Write(t.Context(), m, leaseInput())
	if err != nil || !out.Refused || len(m.reqs) != 1 {
		t.Fatalf("got %+v, %v, want a refusal", out, err)
	}
	m = &scripted{}
	out, err = tailor.Write(t.Context(), m, tailor.Input{UserQuery: "What is the rent?"})
	if err != nil || !out.Refused || len(m.reqs) != 0 {
		t.Fatalf("no passages: got %+v, %v after %d requests, want a refusal without a call", out, err, len(m.reqs))
	}
	m = &scripted{err: sanad.Errorf(sanad.CodeModelRateLimit, "model.request", "slow down")}
	if _, err := tailor.Write(t.Context(), m, leaseInput()); sanad.ErrorCode(err) != sanad.CodeModelRateLimit {
		t.Fatalf("got %v, want the model's error", err)
	}
}

// TestR05_ComposedAnswerParsesAsAReply: an offline answer read back as a
// model's reply passes the same check.
func TestR05_ComposedAnswerParsesAsAReply(t *testing.T) {
	for _, tp := range testSet {
		for _, q := range tp.questions {
			in := tailor.Input{UserQuery: q.q, ContextChunks: tp.chunks}
			out, err := tailor.Compose(in)
			if err != nil || out.Refused {
				continue
			}
			// Markers of the answer name its citations; the reply's name
			// the passages.
			reply := out.Content
			for i, c := range out.Citations {
				for j, r := range tp.chunks {
					if r.ChunkID == c.ChunkID {
						reply = strings.ReplaceAll(reply, "["+itoa(i+1)+"]", "{"+itoa(j+1)+"}")
					}
				}
			}
			reply = strings.NewReplacer("{", "[", "}", "]").Replace(reply)
			if _, err := tailor.Parse(reply, in); err != nil {
				t.Errorf("%s: %v\n%s", q.q, err, reply)
			}
		}
	}
}

func itoa(n int) string { return string(rune('0' + n)) }
