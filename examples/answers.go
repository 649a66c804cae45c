package examples

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
)

// InjectedDocument is the document of [Corpus] that carries an indirect
// prompt injection: a supplier's email whose footer tells any AI reading it
// to ignore its instructions and misreport the invoices and the board's
// decision.
const InjectedDocument = "cloudharbor-renewal-email.txt"

// answersJSONL is the question set over [Corpus], one JSON object a line.
//
//go:embed answers.jsonl
var answersJSONL []byte

// Answer is one question of the answer set over [Corpus], with what a
// correct answer rests on.
type Answer struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// Answerable is false when the corpus does not say; the right answer
	// is then a refusal.
	Answerable bool `json:"answerable"`
	// Document is the file of the corpus that answers the question (the
	// first one, when several do).
	Document string `json:"document,omitempty"`
	// Documents lists every file the answer draws on, when there are
	// several (a comparison across documents).
	Documents []string `json:"documents,omitempty"`
	// Support holds quotes of the documents' parsed Markdown (a sentence,
	// a list item or a table row) that together give the answer.
	Support []string `json:"support"`
	// Answer is a short expected answer.
	Answer string `json:"answer"`
	// Kind is fact, number, date, who, comparison, multi or followup.
	Kind string `json:"kind"`
	// Follows is the id of the question a follow-up continues.
	Follows string `json:"follows,omitempty"`
	// Sample marks the questions the quickstart asks; SampleRefusal the
	// unanswerable one it shows refused.
	Sample        bool `json:"sample,omitempty"`
	SampleRefusal bool `json:"sample_refusal,omitempty"`
}

// Sources returns the files the answer draws on: Documents, or Document
// alone.
func (a Answer) Sources() []string {
	if len(a.Documents) > 0 {
		return a.Documents
	}
	if a.Document == "" {
		return nil
	}
	return []string{a.Document}
}

// Answers returns the answer set over [Corpus], in its order.
func Answers() ([]Answer, error) {
	var out []Answer
	s := bufio.NewScanner(bytes.NewReader(answersJSONL))
	s.Buffer(nil, 1<<20)
	for n := 1; s.Scan(); n++ {
		line := bytes.TrimSpace(s.Bytes())
		if len(line) == 0 {
			continue
		}
		var a Answer
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		if err := d.Decode(&a); err != nil {
			return nil, fmt.Errorf("answers.jsonl line %d: %w", n, err)
		}
		out = append(out, a)
	}
	return out, s.Err()
}
