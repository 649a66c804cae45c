package interview

import (
	"embed"
	"fmt"
	"maps"
	"path"
	"slices"

	"github.com/goccy/go-yaml"

	"github.com/sanadhq/sanad"
)

//go:embed prompts/*.yaml
var promptFiles embed.FS

// GeneralPack is the ID of the pack asked when no area's pack fits.
const GeneralPack = "general"

// Pack is a versioned list of interview questions for one area of law.
// Area is an area id of casework/issues' taxonomy, or "housing", which the
// taxonomy does not have yet, or "general".
type Pack struct {
	ID        string     `yaml:"id" json:"id"`
	Version   string     `yaml:"version" json:"version"`
	Area      string     `yaml:"area" json:"area"`
	Questions []Question `yaml:"questions" json:"questions"`
}

// Question is one interview question and the items ([Items]) its answer
// fills.
type Question struct {
	ID       string   `yaml:"id" json:"id"`
	Text     string   `yaml:"text" json:"text"`
	Covers   []string `yaml:"covers" json:"covers"`
	FollowUp string   `yaml:"follow_up" json:"follow_up,omitempty"`
}

// LoadPacks returns the embedded packs by ID. Each is validated: an ID,
// version and area; questions with unique IDs and text; every item a
// question covers is one [Covered] can report, so that [Next] moves on once
// it is answered.
func LoadPacks() (map[string]Pack, error) {
	const op = "interview.LoadPacks"
	names, err := promptFiles.ReadDir("prompts")
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "the prompt packs are not embedded")
	}
	packs := map[string]Pack{}
	for _, e := range names {
		raw, err := promptFiles.ReadFile(path.Join("prompts", e.Name()))
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInternal, op, "reading prompt pack "+e.Name())
		}
		p, err := ParsePack(raw)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInternal, op, e.Name()+": "+sanad.ErrorMessage(err))
		}
		if _, dup := packs[p.ID]; dup {
			return nil, sanad.Errorf(sanad.CodeInternal, op, "%s: pack id %q is taken", e.Name(), p.ID)
		}
		packs[p.ID] = p
	}
	if _, ok := packs[GeneralPack]; !ok {
		return nil, sanad.Errorf(sanad.CodeInternal, op, "no %q pack", GeneralPack)
	}
	return packs, nil
}

// ParsePack reads and validates one pack in YAML, as [LoadPacks] does. It
// fails with CodeInvalidInput.
func ParsePack(raw []byte) (Pack, error) {
	const op = "interview.ParsePack"
	var p Pack
	if err := yaml.UnmarshalWithOptions(raw, &p, yaml.Strict()); err != nil {
		return Pack{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, "not a prompt pack: "+err.Error())
	}
	if err := p.validate(); err != nil {
		return Pack{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	return p, nil
}

func (p Pack) validate() error {
	if p.ID == "" || p.Version == "" || p.Area == "" {
		return fmt.Errorf("pack %q needs an id, a version and an area", p.ID)
	}
	if len(p.Questions) == 0 {
		return fmt.Errorf("pack %q has no questions", p.ID)
	}
	known := Items()
	seen := map[string]bool{}
	for i, q := range p.Questions {
		switch {
		case q.ID == "" || q.Text == "":
			return fmt.Errorf("pack %q question %d needs an id and a text", p.ID, i+1)
		case seen[q.ID]:
			return fmt.Errorf("pack %q: question id %q is used twice", p.ID, q.ID)
		case len(q.Covers) == 0:
			return fmt.Errorf("pack %q question %q covers no item", p.ID, q.ID)
		}
		seen[q.ID] = true
		for _, item := range q.Covers {
			if _, ok := slices.BinarySearch(known, item); !ok {
				return fmt.Errorf("pack %q question %q covers %q, which no note can answer (see interview.Items)", p.ID, q.ID, item)
			}
		}
	}
	return nil
}

// PackFor returns the pack for an area of law, the general pack when there
// is none.
func PackFor(packs map[string]Pack, area string) Pack {
	for _, id := range slices.Sorted(maps.Keys(packs)) {
		if packs[id].Area == area && area != "" {
			return packs[id]
		}
	}
	return packs[GeneralPack]
}

// Next returns the first question of p that covers an item not yet
// covered, and false when every item is.
func Next(p Pack, covered map[string]bool) (Question, bool) {
	for _, q := range p.Questions {
		for _, item := range q.Covers {
			if !covered[item] {
				return q, true
			}
		}
	}
	return Question{}, false
}
