package interview_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/interview"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

func parseFile(tb testing.TB, name string) interview.Transcript {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	tr, err := interview.ParseTranscript(name, data)
	if err != nil {
		tb.Fatalf("ParseTranscript(%s): %v", name, err)
	}
	checkSpans(tb, tr)
	return tr
}

// checkSpans asserts that every turn's span slices the text to its text,
// and that the text is the turns rendered "Speaker: text\n".
func checkSpans(tb testing.TB, tr interview.Transcript) {
	tb.Helper()
	var want strings.Builder
	for i, turn := range tr.Turns {
		if turn.Index != i {
			tb.Fatalf("%s: turn %d has index %d", tr.Source, i, turn.Index)
		}
		if got := turn.Span.Slice(tr.Text); got != turn.Text {
			tb.Fatalf("%s: turn %d span %v slices %q, want %q", tr.Source, i, turn.Span, got, turn.Text)
		}
		want.WriteString(turn.Speaker + ": " + turn.Text + "\n")
	}
	if tr.Text != want.String() {
		tb.Fatalf("%s: text is not the rendered turns", tr.Source)
	}
}

type wantTurn struct {
	speaker, text string
	start, end    time.Duration
}

func TestC09_ParseTranscriptFormats(t *testing.T) {
	tests := []struct {
		file, format string
		turns        int
		want         map[int]wantTurn // some turns, by index
	}{
		{"tenant_interview.vtt", "vtt", 8, map[int]wantTurn{
			0: {"Attorney", "Thanks for coming in. Can you tell me who your landlord is?", 0, 4500 * time.Millisecond},
			4: {"Maria Rivera", "I paid a $1,800 deposit to Hillcrest Property Management on June 1, 2023.", 31800 * time.Millisecond, 42100 * time.Millisecond},
			5: {"Maria Rivera", "I moved out on 2024-02-29 and they refused to return the deposit. They kept it all & said the carpet was damaged.", 42100 * time.Millisecond, 55 * time.Second},
			7: {"Maria Rivera", "A letter dated 3/8/2024. You can reach me at maria.rivera@example.com or (217) 555-0143.", 55 * time.Second, 63 * time.Second},
		}},
		{"employment_call.srt", "srt", 6, map[int]wantTurn{
			2: {"Client", "My supervisor, Karen Lowe, fired me on October 12, 2023 after I reported a safety problem.", 9900 * time.Millisecond, 16 * time.Second},
			3: {"Client", "They withheld my last paycheck of $2,340.50 and I was never paid overtime.", 16 * time.Second, 22500 * time.Millisecond},
		}},
		{"consumer_notes.txt", "txt", 4, map[int]wantTurn{
			1: {"Client", "I bought a used car from Valley Auto Sales Inc. in Riverside on 04/02/2024. I paid 9,500 dollars and signed a contract with Coastal Credit Union for the rest. The engine failed two weeks later. The dealer refused to fix it.", 0, 0},
		}},
		{"whisper_verbose.json", "whisper", 3, map[int]wantTurn{
			1: {"unknown", "I broke my wrist and the hospital bill was $4,200.", 7200 * time.Millisecond, 13 * time.Second},
		}},
		{"turns.json", "json", 3, map[int]wantTurn{
			2: {"Client", "He stopped paying child support in January and owes me $3,600.", 11 * time.Second, 17250 * time.Millisecond},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tr := parseFile(t, tt.file)
			if tr.Format != tt.format || len(tr.Turns) != tt.turns {
				t.Fatalf("got format %s with %d turns, want %s with %d", tr.Format, len(tr.Turns), tt.format, tt.turns)
			}
			for i, w := range tt.want {
				got := tr.Turns[i]
				if got.Speaker != w.speaker || got.Text != w.text || got.Start != w.start || got.End != w.end {
					t.Errorf("turn %d: got %q %q [%v, %v], want %q %q [%v, %v]", i, got.Speaker, got.Text, got.Start, got.End, w.speaker, w.text, w.start, w.end)
				}
			}
		})
	}
}

func TestParseTranscriptDetectsByContent(t *testing.T) {
	tests := []struct{ data, format string }{
		{"WEBVTT\n\n00:01.000 --> 00:02.000\nAlice: hi\n", "vtt"},
		{"1\n00:00:01,000 --> 00:00:02,000\nhi\n", "srt"},
		{`{"segments":[{"start":0,"end":1,"text":"hi"}]}`, "whisper"},
		{`{"text":"hello there"}`, "whisper"},
		{`{"meeting_transcripts":[{"speaker":"A","content":"hi"}]}`, "qmsum"},
		{"Alice: hi\nBob: hello\n", "txt"},
	}
	for _, tt := range tests {
		tr, err := interview.ParseTranscript("upload", []byte(tt.data))
		if err != nil {
			t.Fatalf("%q: %v", tt.data, err)
		}
		if tr.Format != tt.format {
			t.Errorf("%q: got format %s, want %s", tt.data, tr.Format, tt.format)
		}
	}
}

func TestParseTranscriptText(t *testing.T) {
	tests := []struct {
		name, data string
		want       []string // "Speaker: text"
	}{
		{"plain", "I was evicted.\nThe landlord changed the locks.\n", []string{"unknown: I was evicted. The landlord changed the locks."}},
		{"merge", "Q: Where do you live?\nA: On Elm Street.\nA: Since 2019.\nQ: Thanks.", []string{"Q: Where do you live?", "A: On Elm Street. Since 2019.", "Q: Thanks."}},
		{"times", "[00:01] Alice: one\n[00:05] Alice: two\n", []string{"Alice: one", "Alice: two"}},
		{"not a speaker", "Client: The problem is this: he never paid.\nat 10:30 he left", []string{"Client: The problem is this: he never paid. at 10:30 he left"}},
		{"vtt voices", "WEBVTT\n\n00:00.000 --> 00:02.000\n<v Bob>Hi</v><v.soft Ann>Hello &lt;there&gt;</v>\n- <i>still Ann</i>\n", []string{"Bob: Hi", "Ann: Hello <there> - still Ann"}},
		{"vtt prefix", "WEBVTT\n\nNOTE a note\n\n00:00:00.000 --> 00:00:02.000 align:start\nDana Okafor: Good morning.\n", []string{"Dana Okafor: Good morning."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := interview.ParseTranscript(tt.name, []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			checkSpans(t, tr)
			var got []string
			for _, turn := range tr.Turns {
				got = append(got, turn.Speaker+": "+turn.Text)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseTranscriptRejects(t *testing.T) {
	tests := []struct{ name, data, where string }{
		{"a.vtt", "WEBVTT\n\n00:01.000 --> 00:xx.000\nhi\n", "line 3"},
		{"a.vtt", "not vtt", "line 1"},
		{"a.srt", "1\n00:00:01,000 -> 00:00:02,000\nhi\n", "line 1"},
		{"a.json", "{\"turns\": [}", "line 1"},
		{"a.json", "{\n\"turns\": [{\"speaker\": 3}]}", "line 2"},
		{"a.json", `{"turns":[{"text":"x","start":"soon"}]}`, "turns[0].start"},
		{"a.json", `{"other": 1}`, "none of"},
		{"a.txt", "ok\xff", "byte 2"},
		{"big.txt", strings.Repeat("x", interview.MaxTranscriptBytes+1), "more than"},
	}
	for _, tt := range tests {
		_, err := interview.ParseTranscript(tt.name, []byte(tt.data))
		if sanad.ErrorCode(err) != sanad.CodeInvalidInput || !strings.Contains(err.Error(), tt.where) {
			t.Errorf("%s %q: got %v, want INVALID_INPUT saying %q", tt.name, clipped(tt.data), err, tt.where)
		}
	}
}

func clipped(s string) string { return s[:min(len(s), 40)] }

func TestTranscriptJSONRoundTrip(t *testing.T) {
	tr := parseFile(t, "tenant_interview.vtt")
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"start":31.8,"end":42.1`)) {
		t.Errorf("times are not seconds: %s", b[:min(len(b), 300)])
	}
	var back interview.Transcript
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Turns[4].Start != tr.Turns[4].Start || back.Text != tr.Text || back.Turns[4].Span != tr.Turns[4].Span {
		t.Errorf("round trip changed the transcript: got %+v, want %+v", back.Turns[4], tr.Turns[4])
	}
}

// TestC09_QMSum parses the 35 QMSum test meetings: every turn kept (their
// query spans index turns), spans consistent, and every note's span
// slicing the text to its quote.
func TestC09_QMSum(t *testing.T) {
	dir := sharedtest.Dir(t, "transcripts", "qmsum", "test")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) != 35 {
		t.Fatalf("got %d QMSum files (%v), want 35", len(files), err)
	}
	turns, notes, entities := 0, 0, 0
	var parsing time.Duration
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		tr, err := interview.ParseTranscript(filepath.Base(f), data)
		parsing += time.Since(start)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if tr.Format != interview.FormatQMSum {
			t.Fatalf("%s: got format %s, want qmsum", f, tr.Format)
		}
		checkSpans(t, tr)
		turns += len(tr.Turns)
		for _, n := range interview.ExtractNotes(tr).Items {
			checkNote(t, tr, n)
			notes++
		}
		for _, e := range interview.ExtractEntities(tr) {
			for _, m := range e.Mentions {
				if m.Slice(tr.Text) == "" {
					t.Fatalf("%s: entity %s mention %v is outside the text", f, e.ID, m)
				}
			}
			entities++
		}
	}
	if turns != 20718 {
		t.Errorf("got %d turns, want 20718", turns)
	}
	t.Logf("35 meetings, %d turns parsed in %v; %d notes, %d entities", turns, parsing, notes, entities)
}

func checkNote(tb testing.TB, tr interview.Transcript, n interview.Note) {
	tb.Helper()
	if got := n.Span.Slice(tr.Text); got != n.Quote || got == "" {
		tb.Fatalf("%s: note %+v: span slices %q, want its quote", tr.Source, n, got)
	}
	if got := n.Mention.Slice(tr.Text); got != n.Value || n.Mention.Start < n.Span.Start || n.Mention.End > n.Span.End {
		tb.Fatalf("%s: note %+v: mention slices %q, want its value inside its quote", tr.Source, n, got)
	}
	if turn := tr.Turns[n.Turn]; n.Span.Start < turn.Span.Start || n.Span.End > turn.Span.End || n.Speaker != turn.Speaker {
		tb.Fatalf("%s: note %+v lies outside its turn", tr.Source, n)
	}
}

func BenchmarkParseQMSum(b *testing.B) {
	dir := sharedtest.Dir(b, "transcripts", "qmsum", "test")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var all [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, data)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, data := range all {
			if _, err := interview.ParseTranscript("m.json", data); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func FuzzParseTranscript(f *testing.F) {
	for _, name := range []string{"tenant_interview.vtt", "employment_call.srt", "consumer_notes.txt", "whisper_verbose.json", "turns.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(name, data)
	}
	if data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "testdata", "transcripts", "qmsum", "test", "covid_4.json")); err == nil {
		f.Add("covid_4.json", data[:min(len(data), 4096)])
	}
	f.Add("x", []byte("WEBVTT\n\n00:00.000 --> 00:01.000\n<v"))
	f.Add("y.srt", []byte("1\n00:00:00,000 --> 00:00:01,000\n{\\an8}<i>Ann:</i> hi\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		tr, err := interview.ParseTranscript(name, data)
		if err != nil {
			var e *sanad.Error
			if !errors.As(err, &e) || e.Code != sanad.CodeInvalidInput {
				t.Fatalf("got %v, want an INVALID_INPUT *sanad.Error", err)
			}
			return
		}
		checkSpans(t, tr)
		for _, n := range interview.ExtractNotes(tr).Items {
			checkNote(t, tr, n)
		}
		interview.ExtractEntities(tr)
	})
}
