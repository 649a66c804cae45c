// Package eval measures the injection detector on the labelled data sets
// it is trained from (on the held-out fifth it never sees in training) and
// on benign documents, which a detector that screens retrieved chunks must
// almost never flag.
package eval

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/guard/injection"
)

// Paths of the data under the shared test data folder.
var (
	DeepsetPath   = filepath.Join("prompt_injection", "deepset", "train.jsonl")
	JackhhaoPath  = filepath.Join("prompt_injection", "jackhhao", "jailbreak_dataset_train_balanced.csv")
	TATQAPath     = filepath.Join("finance", "tatqa", "tatqa_dataset_dev.json")
	CUADPath      = filepath.Join("legal", "cuad", "master_clauses.csv")
	CranfieldPath = filepath.Join("retrieval", "cranfield", "corpus.jsonl")
	DoclingPath   = filepath.Join("docparse", "docling", "tests", "data")
)

// Document is a benign text.
type Document struct {
	Name string // the file, and the record id within it
	Set  string // "cranfield" or "docling"
	Text string
}

// Data is what [Evaluate] runs over.
type Data struct {
	Examples  []injection.Example // every example of LoadTraining, held out or not
	Documents []Document          // Cranfield abstracts and docling's Markdown ground truth
}

// LoadExamples reads the two labelled data sets under dir, the shared test
// data folder.
func LoadExamples(dir string) ([]injection.Example, error) {
	const op = "eval.LoadExamples"
	f, err := os.Open(filepath.Join(dir, DeepsetPath))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeNotFound, op, "the deepset data set is missing: "+err.Error())
	}
	defer f.Close()
	ex, err := injection.ReadDeepset(f)
	if err != nil {
		return nil, err
	}
	g, err := os.Open(filepath.Join(dir, JackhhaoPath))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeNotFound, op, "the jackhhao data set is missing: "+err.Error())
	}
	defer g.Close()
	jb, err := injection.ReadJackhhao(g)
	if err != nil {
		return nil, err
	}
	return append(ex, jb...), nil
}

// Sets of benign documents that the classifier also learns from, cut into
// chunks of [ChunkBytes], so that ordinary documents (financial reports
// with tables, contracts) are not mistaken for prompts: without them the
// only benign texts it sees are short questions and role-play prompts.
const (
	SetTATQA = "tatqa"
	SetCUAD  = "cuad"
)

// LoadTraining reads every example the classifier is trained from (the
// ones not held out, see [injection.Split]): the two labelled data sets,
// and as benign examples the chunks of TAT-QA's dev reports (each table
// as Markdown, then its paragraphs) and of CUAD's contracts (each
// contract's clauses, first chunk only).
func LoadTraining(dir string) ([]injection.Example, error) {
	const op = "eval.LoadTraining"
	ex, err := LoadExamples(dir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, TATQAPath))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeNotFound, op, "TAT-QA is missing: "+err.Error())
	}
	var reports []struct {
		Table struct {
			Table [][]string `json:"table"`
		} `json:"table"`
		Paragraphs []struct {
			Text string `json:"text"`
		} `json:"paragraphs"`
	}
	if err := json.Unmarshal(b, &reports); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "TAT-QA: "+err.Error())
	}
	for _, r := range reports {
		var sb strings.Builder
		for i, row := range r.Table.Table {
			sb.WriteString("| " + strings.Join(row, " | ") + " |\n")
			if i == 0 {
				sb.WriteString(strings.Repeat("| - ", len(row)) + "|\n")
			}
		}
		for _, p := range r.Paragraphs {
			sb.WriteString("\n" + p.Text + "\n")
		}
		for _, c := range Chunks(sb.String(), ChunkBytes) {
			ex = append(ex, injection.Example{Text: c, Set: SetTATQA})
		}
	}
	f, err := os.Open(filepath.Join(dir, CUADPath))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeNotFound, op, "CUAD is missing: "+err.Error())
	}
	defer f.Close()
	cr := csv.NewReader(f)
	head, err := cr.Read()
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "CUAD: "+err.Error())
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "CUAD: "+err.Error())
		}
		var sb strings.Builder
		for i, cell := range rec {
			// Clause columns hold a Python list of the clause texts; the
			// -Answer columns and the file name are not contract text.
			if i == 0 || i >= len(head) || strings.HasSuffix(head[i], "-Answer") || !strings.HasPrefix(cell, "[") || cell == "[]" {
				continue
			}
			sb.WriteString(strings.Trim(cell, "[]'\"") + "\n\n")
		}
		if cs := Chunks(sb.String(), ChunkBytes); len(cs) > 0 {
			ex = append(ex, injection.Example{Text: cs[0], Set: SetCUAD})
		}
	}
	return ex, nil
}

// Load reads the labelled data sets and the benign documents under dir.
func Load(dir string) (*Data, error) {
	const op = "eval.Load"
	ex, err := LoadTraining(dir)
	if err != nil {
		return nil, err
	}
	d := &Data{Examples: ex}
	f, err := os.Open(filepath.Join(dir, CranfieldPath))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeNotFound, op, "the Cranfield corpus is missing: "+err.Error())
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var doc struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "Cranfield corpus: "+err.Error())
		}
		d.Documents = append(d.Documents, Document{Name: "cranfield/" + doc.ID, Set: "cranfield", Text: doc.Title + "\n\n" + doc.Text})
	}
	if err := sc.Err(); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "Cranfield corpus: "+err.Error())
	}
	root := filepath.Join(dir, DoclingPath)
	var files []string
	err = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(p, ".md") && filepath.Base(filepath.Dir(p)) == "groundtruth" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeNotFound, op, "docling ground truth: "+err.Error())
	}
	sort.Strings(files)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeNotFound, op, err.Error())
		}
		rel, _ := filepath.Rel(root, p)
		d.Documents = append(d.Documents, Document{Name: "docling/" + filepath.ToSlash(rel), Set: "docling", Text: string(b)})
	}
	return d, nil
}

// Counts is a confusion matrix with the figures drawn from it.
type Counts struct {
	N         int     `json:"n"`
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	TN        int     `json:"tn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	FPR       float64 `json:"fpr"`
	F1        float64 `json:"f1"`
}

func (c *Counts) add(truth, said bool) {
	c.N++
	switch {
	case truth && said:
		c.TP++
	case truth:
		c.FN++
	case said:
		c.FP++
	default:
		c.TN++
	}
}

func (c *Counts) finish() {
	c.Precision = ratio(c.TP, c.TP+c.FP)
	c.Recall = ratio(c.TP, c.TP+c.FN)
	c.FPR = ratio(c.FP, c.FP+c.TN)
	if c.Precision+c.Recall > 0 {
		c.F1 = 2 * c.Precision * c.Recall / (c.Precision + c.Recall)
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Detectors: rules alone, classifier alone, and the two combined.
const (
	Rules      = "rules"
	Classifier = "classifier"
	Combined   = "combined"
)

// Benign is how often benign text is flagged.
type Benign struct {
	Docs    int      `json:"docs"`
	Flagged int      `json:"flagged"`
	Rate    float64  `json:"rate"`
	Names   []string `json:"flagged_names,omitempty"`
}

// Report holds the figures. Held maps a data set ("deepset", "jackhhao",
// and "all" for the two; "tatqa", "cuad", and "documents" for the two) to a
// detector (Rules, Classifier, Combined) to its counts on the held-out
// examples.
type Report struct {
	Threshold float64                      `json:"threshold"`
	Held      map[string]map[string]Counts `json:"held_out"`
	// Benign maps "cranfield", "docling" and "all" to how many documents
	// the combined detector flags, whole and in chunks of ChunkBytes.
	Benign       map[string]Benign `json:"benign_documents"`
	BenignChunks map[string]Benign `json:"benign_chunks"`
	ChunkBytes   int               `json:"chunk_bytes"`
}

// ChunkBytes is the size of the chunks benign documents are cut into,
// between lines, as a retriever would return them.
const ChunkBytes = 1024

// Evaluate runs det over the held-out examples and the benign documents.
func Evaluate(det *injection.Detector, d *Data) Report {
	th := det.Threshold
	if th == 0 {
		th = injection.DefaultThreshold
	}
	r := Report{Threshold: th, Held: map[string]map[string]Counts{}, Benign: map[string]Benign{}, BenignChunks: map[string]Benign{}, ChunkBytes: ChunkBytes}
	held := map[string]map[string]*Counts{}
	for _, e := range d.Examples {
		if !injection.HeldOut(e.Text) {
			continue
		}
		res := det.Detect(e.Text)
		sets := []string{e.Set, "all"}
		if e.Set != injection.SetDeepset && e.Set != injection.SetJackhhao {
			sets = []string{e.Set, "documents"}
		}
		for _, set := range sets {
			if held[set] == nil {
				held[set] = map[string]*Counts{Rules: {}, Classifier: {}, Combined: {}}
			}
			held[set][Rules].add(e.Injection, res.RuleHit)
			held[set][Classifier].add(e.Injection, res.ModelHit)
			held[set][Combined].add(e.Injection, res.Injection())
		}
	}
	for set, m := range held {
		r.Held[set] = map[string]Counts{}
		for k, c := range m {
			c.finish()
			r.Held[set][k] = *c
		}
	}
	docs := map[string]*Benign{"all": {}}
	chunks := map[string]*Benign{"all": {}}
	for _, doc := range d.Documents {
		if docs[doc.Set] == nil {
			docs[doc.Set], chunks[doc.Set] = &Benign{}, &Benign{}
		}
		flagged := det.Detect(doc.Text).Injection()
		for _, b := range []*Benign{docs[doc.Set], docs["all"]} {
			b.Docs++
			if flagged {
				b.Flagged++
				b.Names = append(b.Names, doc.Name)
			}
		}
		for k, c := range Chunks(doc.Text, ChunkBytes) {
			flagged := det.Detect(c).Injection()
			for _, b := range []*Benign{chunks[doc.Set], chunks["all"]} {
				b.Docs++
				if flagged {
					b.Flagged++
					b.Names = append(b.Names, doc.Name+"#"+itoa(k))
				}
			}
		}
	}
	for set, b := range docs {
		b.Rate = ratio(b.Flagged, b.Docs)
		r.Benign[set] = *b
	}
	for set, b := range chunks {
		b.Rate = ratio(b.Flagged, b.Docs)
		r.BenignChunks[set] = *b
	}
	return r
}

// Chunks cuts text into pieces of at most size bytes, between lines where
// it can, else between words, else anywhere on a rune boundary.
func Chunks(text string, size int) []string {
	var out []string
	for len(text) > size {
		cut := strings.LastIndexByte(text[:size], '\n')
		if cut < size/2 {
			cut = strings.LastIndexByte(text[:size], ' ')
		}
		if cut < size/2 {
			cut = size
			for cut > 0 && text[cut]&0xC0 == 0x80 {
				cut--
			}
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	if strings.TrimSpace(text) != "" {
		out = append(out, text)
	}
	return out
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
