package text

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

type turn struct {
	Speaker string `json:"speaker"`
	Content string `json:"content"`
}

// meeting returns the first n speaker turns of a QMSum transcript.
func meeting(t *testing.T, name string, n int) []turn {
	t.Helper()
	dir := sharedtest.Dir(t, "transcripts", "qmsum", "test")
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return turnsOf(t, data, n)
}

// turnsOf reads the speaker turns of a QMSum meeting (its
// meeting_transcripts list), the first n of them.
func turnsOf(tb testing.TB, data []byte, n int) []turn {
	tb.Helper()
	var m struct {
		Turns []turn `json:"meeting_transcripts"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		tb.Fatal(err)
	}
	if len(m.Turns) < n {
		tb.Fatalf("the meeting has %d turns, want %d", len(m.Turns), n)
	}
	return m.Turns[:n]
}

// chunks splits a turn into cue-sized pieces of about ten words, the way
// captions cut speech.
func chunks(s string) []string {
	words := strings.Fields(s)
	var out []string
	for len(words) > 0 {
		k := min(10, len(words))
		out = append(out, strings.Join(words[:k], " "))
		words = words[k:]
	}
	return out
}

func stamp(d time.Duration, sep string) string {
	s := int(d / time.Second)
	return fmt.Sprintf("%02d:%02d:%02d%s%03d", s/3600, s/60%60, s%60, sep, int(d/time.Millisecond)%1000)
}

// want is what the turns read as: consecutive turns of one speaker merged,
// each "[hh:mm:ss] Speaker: text", with the start of its first cue.
func want(turns []turn) []string {
	var out []string
	prev := ""
	cue := 0
	for _, tr := range turns {
		cs := chunks(tr.Content)
		if len(cs) == 0 {
			continue
		}
		if tr.Speaker == prev && len(out) > 0 {
			out[len(out)-1] += " " + strings.Join(cs, " ")
		} else {
			out = append(out, "["+clock(time.Duration(cue)*2*time.Second)+"] "+tr.Speaker+": "+strings.Join(cs, " "))
		}
		prev = tr.Speaker
		cue += len(cs)
	}
	return out
}

func toVTT(turns []turn) string {
	var b strings.Builder
	b.WriteString("WEBVTT - meeting\n\nNOTE generated from a QMSum transcript\n\n")
	cue := 0
	for _, tr := range turns {
		for _, c := range chunks(tr.Content) {
			start := time.Duration(cue) * 2 * time.Second
			fmt.Fprintf(&b, "cue-%d\n%s --> %s align:start\n<v %s>%s</v>\n\n", cue, stamp(start, "."), stamp(start+1900*time.Millisecond, "."),
				strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(tr.Speaker),
				strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(c))
			cue++
		}
	}
	return b.String()
}

// toSRT names the speaker on the first cue of each turn only ("Name:
// text"); the following cues continue the turn.
func toSRT(turns []turn) string {
	var b strings.Builder
	cue := 0
	for _, tr := range turns {
		for i, c := range chunks(tr.Content) {
			start := time.Duration(cue) * 2 * time.Second
			if i == 0 {
				c = tr.Speaker + ": " + c
			}
			fmt.Fprintf(&b, "%d\r\n%s --> %s\r\n%s\r\n\r\n", cue+1, stamp(start, ","), stamp(start+1900*time.Millisecond, ","), c)
			cue++
		}
	}
	return b.String()
}

func blockTexts(doc *document.Document) []string {
	var out []string
	for _, b := range doc.Blocks {
		out = append(out, b.Text)
	}
	return out
}

func compareTurns(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d turns, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("turn %d:\n got %q\nwant %q", i, got[i], want[i])
			return
		}
	}
}

func TestTranscriptsFromMeetings(t *testing.T) {
	for _, m := range []struct {
		file   string
		turns  int
		format Format
	}{
		{"Bed003.json", 60, VTT},        // academic meeting: "Grad C", disfluency markers
		{"covid_4.json", 25, VTT},       // committee: long names with parentheses
		{"ES2004a.json", 60, SRT},       // product team: roles as speakers
		{"education_13.json", 25, SRT},  // committee: "Lynne Neagle AM"
		{"education_13.json", 25, Auto}, // the format told from the content
		{"TS3004a.json", 40, Auto},      // product team, sniffed
	} {
		turns := meeting(t, m.file, m.turns)
		name := m.file + "/" + cmp.Or(string(m.format), "auto")
		t.Run(name, func(t *testing.T) {
			src := toSRT(turns)
			if m.format == VTT || (m.format == Auto && m.file == "TS3004a.json") {
				src = toVTT(turns)
			}
			doc, err := Config{Format: m.format}.Parse(context.Background(), []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			compareTurns(t, blockTexts(doc), want(turns))
			speakers, _ := doc.Metadata["speakers"].([]string)
			seen := map[string]bool{}
			for _, tr := range turns {
				seen[tr.Speaker] = true
			}
			if len(speakers) != len(seen) {
				t.Errorf("speakers: got %q, want the %d of the meeting", speakers, len(seen))
			}
		})
	}
}

func TestTranscriptCues(t *testing.T) {
	vtt := "\uFEFFWEBVTT\n\nSTYLE\n::cue { color: red }\n\n00:01.000 --> 00:04.000\n<v.loud Alice>Hello <i>there</i>, Bob.</v>\n\n" +
		"2\n00:00:05.000 --> 00:00:07.000 line:0\n<v Alice>Still me &amp; my notes.\n\n" +
		"00:00:08.000 --> 00:00:09.000\n<v Bob>Hi.</v> <v Alice>Bye.</v>\n\n" +
		"00:00:10.000 --> 00:00:11.000\nNo speaker here.\n\nbad block without timing\n"
	doc, err := Config{Format: VTT}.Parse(context.Background(), []byte(vtt))
	if err != nil {
		t.Fatal(err)
	}
	compareTurns(t, blockTexts(doc), []string{
		"[00:00:01] Alice: Hello there, Bob. Still me & my notes.",
		"[00:00:08] Bob: Hi.",
		"[00:00:08] Alice: Bye. No speaker here.",
	})
	if len(doc.Notes) != 1 || doc.Notes[0].Code != "skipped" {
		t.Errorf("notes: got %+v, want one skipped block", doc.Notes)
	}
	srt := "1\n00:00:01,000 --> 00:00:02,000\n[JUDGE] Please be seated.\n\n2\n00:00:02,500 --> 00:00:04,000\n<i>COUNSEL: Thank you,\nYour Honour.</i>\n\n" +
		"3\n00:00:04,000 --> 00:00:05,000\nNote: this is not a speaker.\n"
	doc, err = Config{Format: SRT}.Parse(context.Background(), []byte(srt))
	if err != nil {
		t.Fatal(err)
	}
	compareTurns(t, blockTexts(doc), []string{
		"[00:00:01] JUDGE: Please be seated.",
		"[00:00:02] COUNSEL: Thank you, Your Honour. Note: this is not a speaker.",
	})
}
