package intake

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/schemafile"
)

// FormSchemaVersion is the version of client_intake_form this package reads.
const FormSchemaVersion = "1.0.0"

// MaxFormBytes bounds the form [ParseForm] reads.
const MaxFormBytes = 1 << 20

// DateLayout is how every date of a form is written.
const DateLayout = time.DateOnly

const formSchemaName = "client_intake_form"

//go:embed schema/client_intake_form.schema.json
var schemaFiles embed.FS

var compiledForm = sync.OnceValues(func() (*jsonschema.Schema, error) {
	s, err := schemafile.Compile(schemaFiles, "https://sanad.dev/schema/casework/", formSchemaName)
	if err != nil {
		return nil, err
	}
	return s[formSchemaName], nil
})

// FormSchema returns the embedded JSON Schema of client_intake_form, whose
// $id ends with [FormSchemaVersion].
func FormSchema() []byte {
	b, _ := schemaFiles.ReadFile("schema/" + formSchemaName + ".schema.json")
	return b
}

// Form is a client_intake_form: what a prospective client tells the firm.
type Form struct {
	SchemaVersion  string        `json:"schema_version"`
	Client         Party         `json:"client"`
	Parties        []Party       `json:"parties"`
	MatterType     string        `json:"matter_type,omitempty"` // as the client describes it: free text or an area id
	Jurisdiction   string        `json:"jurisdiction,omitempty"`
	KeyDates       []KeyDate     `json:"key_dates"`
	Narrative      string        `json:"narrative"`
	Documents      []DocumentRef `json:"documents,omitempty"`
	Amounts        []Amount      `json:"amounts,omitempty"` // what is claimed or at stake
	DesiredOutcome string        `json:"desired_outcome,omitempty"`
	SubmittedAt    string        `json:"submitted_at,omitempty"` // YYYY-MM-DD
}

// Party roles. The client's role is RoleClient; the others are those of
// Form.Parties.
const (
	RoleClient   = "client"
	RoleOpposing = "opposing"
	RoleWitness  = "witness"
	RoleOther    = "other"
)

// Party is a person or organisation in the matter. A party other than the
// client has a name, an organisation or both.
type Party struct {
	Name         string  `json:"name,omitempty"`
	Role         string  `json:"role,omitempty"`
	Organisation string  `json:"organisation,omitempty"`
	Contact      Contact `json:"contact,omitzero"`
}

// Contact is how to reach a party.
type Contact struct {
	Email   string `json:"email,omitempty"`
	Phone   string `json:"phone,omitempty"`
	Address string `json:"address,omitempty"`
}

// KeyDate is a dated event of the matter: Label names it ("eviction notice
// served"), What says what happened.
type KeyDate struct {
	Label string `json:"label"`
	Date  string `json:"date"` // YYYY-MM-DD
	What  string `json:"what,omitempty"`
}

// DocumentRef is a document the client mentions; Held says whether they
// have it.
type DocumentRef struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Held        bool   `json:"held"`
}

// Amount is a sum claimed or at stake. Currency is an ISO 4217 code.
type Amount struct {
	Label    string  `json:"label"`
	Value    float64 `json:"value"`
	Currency string  `json:"currency,omitempty"`
}

// ParseForm reads a client_intake_form in JSON. It fails with
// INVALID_INPUT, naming the field at fault, when data is larger than
// [MaxFormBytes], is not one JSON object, does not match [FormSchema]
// (unknown fields included), or holds a date that is not a calendar date.
// It never panics.
func ParseForm(data []byte) (Form, error) {
	const op = "intake.ParseForm"
	if len(data) > MaxFormBytes {
		return Form{}, sanad.Errorf(sanad.CodeInvalidInput, op, "the form is %d bytes, more than the %d accepted", len(data), MaxFormBytes)
	}
	if !json.Valid(data) {
		return Form{}, sanad.Errorf(sanad.CodeInvalidInput, op, "the form is not valid JSON")
	}
	s, err := compiledForm()
	if err != nil {
		return Form{}, sanad.Wrap(err, sanad.CodeInternal, op, "the client_intake_form schema does not compile")
	}
	// Read as YAML flow style by schemafile, so that errors carry a line
	// and duplicate keys are refused.
	root, err := schemafile.Parse(formSchemaName, data, schemafile.Limits{MaxBytes: MaxFormBytes})
	if err != nil {
		return Form{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	if err := schemafile.Validate(formSchemaName, root, s, formHints); err != nil {
		return Form{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	var f Form
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Form{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, "the form does not fit client_intake_form: "+err.Error())
	}
	if err := checkDates(f); err != nil {
		return Form{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	return f, nil
}

var formHints = map[string]string{
	"^[0-9]{4}-[0-9]{2}-[0-9]{2}$": "write a date as YYYY-MM-DD",
	"^[A-Z]{3}$":                   "use an ISO 4217 currency code such as USD",
}

// checkDates reports the first date of f that is not a calendar date.
func checkDates(f Form) error {
	for i, d := range f.KeyDates {
		if _, err := time.Parse(DateLayout, d.Date); err != nil {
			return fmt.Errorf("key_dates[%d].date: %q is not a calendar date (YYYY-MM-DD)", i, d.Date)
		}
	}
	if f.SubmittedAt != "" {
		if _, err := time.Parse(DateLayout, f.SubmittedAt); err != nil {
			return fmt.Errorf("submitted_at: %q is not a calendar date (YYYY-MM-DD)", f.SubmittedAt)
		}
	}
	return nil
}

// date parses a date ParseForm has checked; the zero time if it is not one.
func date(s string) time.Time {
	t, err := time.Parse(DateLayout, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t
}
