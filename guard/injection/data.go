package injection

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/sanadhq/sanad"
)

// Example is one labelled text of a data set.
type Example struct {
	Text      string
	Injection bool
	// Set names the data set the example came from.
	Set string
}

// Names of the data sets the classifier is trained on.
const (
	SetDeepset  = "deepset"
	SetJackhhao = "jackhhao"
)

// HeldOut reports whether text belongs to the held-out fifth of its data
// set: the first 8 bytes of SHA-256 of the text, as a number, are 0 modulo
// 5. The split depends on the text alone, so it is the same on every
// machine and every run, and two copies of one text fall on the same side.
// The classifier is never trained on held-out examples.
func HeldOut(text string) bool {
	sum := sha256.Sum256([]byte(text))
	return binary.BigEndian.Uint64(sum[:8])%5 == 0
}

// Split returns the examples that are not held out and those that are.
func Split(examples []Example) (train, test []Example) {
	for _, e := range examples {
		if HeldOut(e.Text) {
			test = append(test, e)
		} else {
			train = append(train, e)
		}
	}
	return train, test
}

// ReadDeepset reads the deepset/prompt-injections layout: JSON lines of
// {"text": ..., "label": 0 or 1}, 1 for an injection.
func ReadDeepset(r io.Reader) ([]Example, error) {
	const op = "injection.ReadDeepset"
	var out []Example
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var row struct {
			Text  *string `json:"text"`
			Label *int    `json:"label"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "line %d: %s", line, err.Error())
		}
		if row.Text == nil || row.Label == nil || *row.Label != 0 && *row.Label != 1 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "line %d: want {\"text\": string, \"label\": 0 or 1}", line)
		}
		out = append(out, Example{Text: *row.Text, Injection: *row.Label == 1, Set: SetDeepset})
	}
	if err := sc.Err(); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "reading the data set failed")
	}
	return out, nil
}

// ReadJackhhao reads the jackhhao/jailbreak-classification layout: CSV with
// a header "prompt,type", type jailbreak or benign.
func ReadJackhhao(r io.Reader) ([]Example, error) {
	const op = "injection.ReadJackhhao"
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	head, err := cr.Read()
	if err != nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "no header: %s", err.Error())
	}
	if head[0] != "prompt" || head[1] != "type" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "header %q, want prompt,type", strings.Join(head, ","))
	}
	var out []Example
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s", err.Error())
		}
		switch rec[1] {
		case "jailbreak", "benign":
		default:
			line, _ := cr.FieldPos(1)
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "line %d: type %q, want jailbreak or benign", line, rec[1])
		}
		out = append(out, Example{Text: rec[0], Injection: rec[1] == "jailbreak", Set: SetJackhhao})
	}
}
