package interview

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sanadhq/sanad"
)

// Bounds of [ParseTranscript].
const (
	// MaxTranscriptBytes bounds the input: about forty hours of speech.
	MaxTranscriptBytes = 32 << 20
	// MaxTurns bounds the turns of one transcript.
	MaxTurns = 200_000
	// MaxSpeakerBytes bounds a speaker's name; longer names are cut.
	MaxSpeakerBytes = 128
)

// UnknownSpeaker names the speaker of text that says nobody.
const UnknownSpeaker = "unknown"

// Formats of a [Transcript].
const (
	FormatVTT     = "vtt"
	FormatSRT     = "srt"
	FormatTXT     = "txt"
	FormatJSON    = "json"
	FormatQMSum   = "qmsum"
	FormatWhisper = "whisper"
)

// Transcript is a client interview as speaker turns.
type Transcript struct {
	Source   string `json:"source"` // file name or "audio:<name>"
	Format   string `json:"format"` // vtt, srt, txt, json, qmsum, whisper
	Language string `json:"language,omitempty"`
	Turns    []Turn `json:"turns"`
	// Text is the canonical text: every turn rendered "Speaker: text\n".
	// Spans index into it.
	Text string `json:"text"`
}

// Turn is one speaker's uninterrupted speech. Start and End are offsets in
// the recording, zero when the format has none.
type Turn struct {
	Index   int
	Speaker string
	Start   time.Duration
	End     time.Duration
	Text    string
	// Span is where Text lies in [Transcript.Text].
	Span Span
}

// Span is the byte range [Start, End) of [Transcript.Text].
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Slice returns the text of s in text, or "" when s does not lie in it.
func (s Span) Slice(text string) string {
	if s.Start < 0 || s.End < s.Start || s.End > len(text) {
		return ""
	}
	return text[s.Start:s.End]
}

// turnJSON is the wire form of [Turn]: times in seconds.
type turnJSON struct {
	Index   int     `json:"index"`
	Speaker string  `json:"speaker"`
	Start   float64 `json:"start,omitempty"`
	End     float64 `json:"end,omitempty"`
	Text    string  `json:"text"`
	Span    Span    `json:"span"`
}

// MarshalJSON writes Start and End as seconds.
func (t Turn) MarshalJSON() ([]byte, error) {
	return json.Marshal(turnJSON{t.Index, t.Speaker, t.Start.Seconds(), t.End.Seconds(), t.Text, t.Span})
}

// UnmarshalJSON reads Start and End as seconds.
func (t *Turn) UnmarshalJSON(b []byte) error {
	var w turnJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = Turn{Index: w.Index, Speaker: w.Speaker, Start: seconds(w.Start), End: seconds(w.End), Text: w.Text, Span: w.Span}
	return nil
}

// seconds converts a count of seconds to a Duration, clamping values out of
// range (negative, NaN, beyond a year) to zero.
func seconds(s float64) time.Duration {
	if !(s > 0) || s > 365*24*3600 {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}

// ParseTranscript reads a transcript file. The format is chosen by the
// extension of name (.vtt, .srt, .txt, .json), else by the content; JSON is
// one of three shapes: {"turns":[{"speaker","text","start","end"}]},
// QMSum's {"meeting_transcripts":[{"speaker","content"}]} and Whisper's
// verbose_json {"text","segments":[{"start","end","text","speaker"?}]}.
//
// Turn text has its whitespace collapsed to single spaces. Plain text merges
// consecutive lines of one speaker into one turn, having no timestamps or
// turn structure to keep; the other formats keep their cues and turns as
// given (QMSum's query spans index its turns, so even its empty turns stay).
//
// ParseTranscript fails with CodeInvalidInput, saying where, when data is
// larger than [MaxTranscriptBytes], holds more than [MaxTurns] turns, is not
// UTF-8, or is malformed. It never panics.
func ParseTranscript(name string, data []byte) (Transcript, error) {
	const op = "interview.ParseTranscript"
	if len(data) > MaxTranscriptBytes {
		return Transcript{}, sanad.Errorf(sanad.CodeInvalidInput, op, "%s is %d bytes, more than the %d a transcript may have", name, len(data), MaxTranscriptBytes)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	format := detect(name, data)
	if format != FormatJSON && !utf8.Valid(data) {
		return Transcript{}, sanad.Errorf(sanad.CodeInvalidInput, op, "%s: byte %d is not UTF-8; save the transcript as UTF-8", name, invalidUTF8At(data))
	}
	var (
		b   *builder
		err error
	)
	switch format {
	case FormatVTT:
		b, err = parseVTT(data)
	case FormatSRT:
		b, err = parseSRT(data)
	case FormatJSON:
		b, err = parseJSON(data)
	default:
		b, err = parseTXT(data)
	}
	if err != nil {
		return Transcript{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, name+": "+err.Error())
	}
	if len(b.turns) > MaxTurns {
		return Transcript{}, sanad.Errorf(sanad.CodeInvalidInput, op, "%s holds more than %d turns", name, MaxTurns)
	}
	t := b.transcript()
	t.Source = name
	return t, nil
}

// detect names the format of a file: by extension, then by content.
func detect(name string, data []byte) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".vtt", ".webvtt":
		return FormatVTT
	case ".srt":
		return FormatSRT
	case ".json":
		return FormatJSON
	case ".txt", ".text":
		return FormatTXT
	}
	head := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case bytes.HasPrefix(head, []byte("WEBVTT")):
		return FormatVTT
	case len(head) > 0 && head[0] == '{':
		return FormatJSON
	case looksLikeSRT(head):
		return FormatSRT
	}
	return FormatTXT
}

// looksLikeSRT reports whether text opens with a cue number and a timing line.
func looksLikeSRT(text []byte) bool {
	lines := strings.SplitN(string(text[:min(len(text), 512)]), "\n", 3)
	if len(lines) < 2 {
		return false
	}
	first := strings.TrimSpace(lines[0])
	return first != "" && strings.Trim(first, "0123456789") == "" && strings.Contains(lines[1], "-->")
}

func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// builder collects turns and renders the canonical text.
type builder struct {
	format    string
	language  string
	turns     []Turn
	merge     bool // merge consecutive turns of one speaker
	tooMany   bool
	stampless bool // no turn has a time
}

// add appends a turn, cleaning its speaker and text. Empty text is dropped
// unless keepEmpty.
func (b *builder) add(speaker, text string, start, end time.Duration, keepEmpty bool) {
	text = collapse(text)
	if text == "" && !keepEmpty {
		return
	}
	speaker = cleanSpeaker(speaker)
	if b.merge && len(b.turns) > 0 {
		last := &b.turns[len(b.turns)-1]
		if last.Speaker == speaker && start == 0 && last.Start == 0 {
			if last.Text == "" {
				last.Text = text
			} else if text != "" {
				last.Text += " " + text
			}
			return
		}
	}
	if len(b.turns) > MaxTurns {
		b.tooMany = true
		return
	}
	if end < start {
		end = start
	}
	b.turns = append(b.turns, Turn{Speaker: speaker, Start: start, End: end, Text: text})
}

// transcript renders the turns and sets their indexes and spans.
func (b *builder) transcript() Transcript {
	var sb strings.Builder
	n := 0
	for _, t := range b.turns {
		n += len(t.Speaker) + len(t.Text) + 3
	}
	sb.Grow(n)
	for i := range b.turns {
		t := &b.turns[i]
		t.Index = i
		sb.WriteString(t.Speaker)
		sb.WriteString(": ")
		t.Span.Start = sb.Len()
		sb.WriteString(t.Text)
		t.Span.End = sb.Len()
		sb.WriteByte('\n')
	}
	turns := b.turns
	if turns == nil {
		turns = []Turn{}
	}
	return Transcript{Format: b.format, Language: b.language, Turns: turns, Text: sb.String()}
}

// collapse trims s and replaces every run of white space, including line
// breaks, with one space, so that a turn renders on one line.
func collapse(s string) string {
	var sb strings.Builder
	space := false
	for _, r := range s {
		switch r {
		case ' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2028', '\u2029', '\u0085':
			space = sb.Len() > 0
			continue
		case utf8.RuneError, 0:
			r = '\ufffd'
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// cleanSpeaker makes a speaker's name fit on one line before ": ".
func cleanSpeaker(s string) string {
	s = collapse(s)
	s = strings.TrimRight(s, ":")
	if len(s) > MaxSpeakerBytes {
		cut := MaxSpeakerBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return UnknownSpeaker
	}
	return s
}
