package text

import (
	"context"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/sanadhq/sanad/document"
)

var (
	timingRe  = regexp.MustCompile(`^\s*((?:\d{1,6}:)?\d{1,2}:\d{1,2}(?:[.,]\d{1,3})?)\s*-->\s*((?:\d{1,6}:)?\d{1,2}:\d{1,2}(?:[.,]\d{1,3})?)`)
	voiceRe   = regexp.MustCompile(`<v(?:\.[^\s>]*)?(?:\s+([^>]*))?>`)
	tagRe     = regexp.MustCompile(`<[^>]*>|\{\\[^}]*\}`)
	speakerRe = regexp.MustCompile(`^(?:-\s*|>>\s*)?([\p{L}][\p{L}\p{N}.'’ _-]{0,38}?)\s*:\s+(\S.*)$`)
	bracketRe = regexp.MustCompile(`^\[([^\]]{1,40})\]\s*:?\s*(\S.*)$`)
)

// Bounds of a merged turn: a speaker's consecutive cues are joined up to
// maxTurnChars; cues without a speaker up to maxAnonChars.
const (
	maxTurnChars = 8000
	maxAnonChars = 2000
)

// cue is one timed caption, split by speaker.
type cue struct {
	start   time.Duration
	speaker string
	text    string
}

// parseVTT reads a WebVTT file: cues with their voice spans (<v Name>)
// or "Name: text" lines as speakers.
func parseVTT(ctx context.Context, s string) (*document.Document, error) {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	if !strings.HasPrefix(t, "WEBVTT") {
		return nil, unsupported("not WebVTT: the file does not start with WEBVTT")
	}
	blocks := strings.Split(t, "\n\n")
	var cues []cue
	skipped := 0
	for i, b := range blocks {
		if i == 0 {
			continue // the header block
		}
		if i&0xff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ls := nonEmpty(lines(strings.Trim(b, "\n")))
		if len(ls) == 0 {
			continue
		}
		head := strings.TrimSpace(ls[0])
		if head == "NOTE" || strings.HasPrefix(head, "NOTE ") || head == "STYLE" || head == "REGION" {
			continue
		}
		c, ok := timedCue(ls)
		if !ok {
			skipped++
			continue
		}
		cues = append(cues, c...)
	}
	return transcript(cues, skipped)
}

// parseSRT reads a SubRip file: numbered cues, "Name: text" or "[Name]"
// lines as speakers.
func parseSRT(ctx context.Context, s string) (*document.Document, error) {
	var cues []cue
	skipped := 0
	for i, b := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if i&0xff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ls := nonEmpty(lines(strings.Trim(b, "\n")))
		if len(ls) == 0 {
			continue
		}
		c, ok := timedCue(ls)
		if !ok {
			skipped++
			continue
		}
		cues = append(cues, c...)
	}
	if len(cues) == 0 {
		return nil, unsupported("not SubRip: no timed cues (index, \"00:00:01,000 --> 00:00:02,000\", text)")
	}
	return transcript(cues, skipped)
}

func nonEmpty(ls []string) []string {
	out := ls[:0]
	for _, l := range ls {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// timedCue reads a cue block: an optional identifier line, the timing
// line, the payload.
func timedCue(ls []string) ([]cue, bool) {
	at := -1
	for i := 0; i < len(ls) && i < 2; i++ {
		if timingRe.MatchString(ls[i]) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, false
	}
	m := timingRe.FindStringSubmatch(ls[at])
	start, ok := timestamp(m[1])
	if !ok {
		return nil, false
	}
	return payload(start, strings.Join(ls[at+1:], "\n")), true
}

// timestamp reads hh:mm:ss.mmm (or mm:ss.mmm, or with a comma).
func timestamp(s string) (time.Duration, bool) {
	s = strings.Replace(s, ",", ".", 1)
	main, frac, _ := strings.Cut(s, ".")
	parts := strings.Split(main, ":")
	var total time.Duration
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, false
		}
		total = total*60 + time.Duration(n)*time.Second
	}
	if frac != "" {
		ms, err := strconv.Atoi((frac + "00")[:3])
		if err != nil {
			return 0, false
		}
		total += time.Duration(ms) * time.Millisecond
	}
	return total, true
}

// payload splits a cue's text into speaker turns: WebVTT voice spans, or
// lines starting "Name:" or "[Name]". Lines without a speaker continue the
// current one.
func payload(start time.Duration, text string) []cue {
	var out []cue
	addLine := func(speaker, t string) {
		t = clean(t)
		if t == "" {
			return
		}
		if speaker == "" {
			if m := speakerRe.FindStringSubmatch(t); m != nil && plausibleName(m[1]) {
				speaker, t = strings.TrimSpace(m[1]), m[2]
			} else if m := bracketRe.FindStringSubmatch(t); m != nil && plausibleName(m[1]) {
				speaker, t = strings.TrimSpace(m[1]), m[2]
			}
		}
		if n := len(out); n > 0 && (speaker == "" || speaker == out[n-1].speaker) {
			out[n-1].text += " " + t
			return
		}
		out = append(out, cue{start: start, speaker: speaker, text: t})
	}
	if locs := voiceRe.FindAllStringSubmatchIndex(text, -1); len(locs) > 0 {
		if pre := text[:locs[0][0]]; strings.TrimSpace(tagRe.ReplaceAllString(pre, "")) != "" {
			addLine("", pre)
		}
		for i, l := range locs {
			name := ""
			if l[2] >= 0 {
				name = strings.TrimSpace(text[l[2]:l[3]])
			}
			end := len(text)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			body := text[l[1]:end]
			if k := strings.Index(body, "</v>"); k >= 0 {
				rest := body[k+4:]
				body = body[:k]
				addLine(html.UnescapeString(name), body)
				if strings.TrimSpace(tagRe.ReplaceAllString(rest, "")) != "" {
					addLine("", rest)
				}
				continue
			}
			if name == "" {
				name = "Unknown"
			}
			addLine(html.UnescapeString(name), body)
		}
		return out
	}
	for _, l := range strings.Split(text, "\n") {
		addLine("", l)
	}
	return out
}

// plausibleName accepts up to four words that read as a name or a role
// ("Alice", "Grad C", "PROSECUTOR"), not a sentence or a time.
func plausibleName(s string) bool {
	s = strings.TrimSpace(s)
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > 4 || len(s) > 40 {
		return false
	}
	for _, w := range words {
		r := []rune(w)
		if !unicode.IsUpper(r[0]) && !unicode.IsDigit(r[0]) {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "note", "warning", "example", "http", "https", "q", "a":
		return false
	}
	return !unicode.IsDigit([]rune(s)[0])
}

// clean strips cue markup (<i>, <c.x>, timestamps, {\an8}) and entities.
func clean(s string) string {
	s = tagRe.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	s = strings.NewReplacer("\u200e", "", "\u200f", "", "\u00a0", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// transcript merges consecutive cues of one speaker into turns, each a
// block "[hh:mm:ss] Speaker: text"; a cue that names no speaker continues
// the turn before it.
func transcript(cues []cue, skipped int) (*document.Document, error) {
	if len(cues) == 0 {
		return nil, unsupported("no cues with text in the transcript")
	}
	var turns []cue
	for _, c := range cues {
		// Captions name a speaker when the speaker changes: a cue without
		// one continues the current turn.
		if n := len(turns); n > 0 && c.speaker == "" {
			c.speaker = turns[n-1].speaker
		}
		if n := len(turns); n > 0 && turns[n-1].speaker == c.speaker {
			limit := maxTurnChars
			if c.speaker == "" {
				limit = maxAnonChars
			}
			if len(turns[n-1].text)+len(c.text) < limit {
				turns[n-1].text += " " + c.text
				continue
			}
		}
		turns = append(turns, c)
	}
	doc := &document.Document{Pages: 1}
	var speakers []string
	seen := map[string]bool{}
	for _, t := range turns {
		text := "[" + clock(t.start) + "] "
		if t.speaker != "" {
			text += t.speaker + ": "
			if !seen[t.speaker] {
				seen[t.speaker] = true
				speakers = append(speakers, t.speaker)
			}
		}
		doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Text, Text: text + t.text})
	}
	doc.Metadata = map[string]any{"cues": len(cues), "turns": len(turns)}
	if len(speakers) > 0 {
		doc.Metadata["speakers"] = speakers
	}
	if skipped > 0 {
		doc.Notes = append(doc.Notes, document.Note{Code: "skipped", Text: fmt.Sprintf("%d blocks without a valid timing line were left out", skipped)})
	}
	return doc, nil
}

// clock writes a time as hh:mm:ss.
func clock(d time.Duration) string {
	s := int64(d / time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

// looksSRT reports whether text starts like a SubRip file: an index line
// then a timing line.
func looksSRT(s string) bool {
	ls := nonEmpty(lines(s))
	if len(ls) < 2 {
		return false
	}
	if _, err := strconv.Atoi(strings.TrimSpace(ls[0])); err == nil && timingRe.MatchString(ls[1]) {
		return true
	}
	return timingRe.MatchString(ls[0])
}
