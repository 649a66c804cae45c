package interview

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A caption cue: a time range and its payload lines.
type cue struct {
	line       int // line number of the timing line, from 1
	start, end time.Duration
	payload    []string
}

// parseVTT reads WebVTT: a "WEBVTT" header, then blocks separated by blank
// lines. NOTE, STYLE and REGION blocks are skipped; a cue is an optional
// identifier line, a timing line and payload lines.
func parseVTT(data []byte) (*builder, error) {
	lines := splitLines(string(data))
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "WEBVTT") {
		return nil, fmt.Errorf("line 1: a WebVTT file starts with WEBVTT")
	}
	cues, err := readCues(lines[1:], 2, true)
	if err != nil {
		return nil, err
	}
	b := &builder{format: FormatVTT}
	for _, c := range cues {
		addCue(b, c)
	}
	return b, nil
}

// parseSRT reads SubRip: blocks of a cue number, a timing line
// "00:00:01,000 --> 00:00:02,500" and text lines.
func parseSRT(data []byte) (*builder, error) {
	cues, err := readCues(splitLines(string(data)), 1, false)
	if err != nil {
		return nil, err
	}
	b := &builder{format: FormatSRT}
	for _, c := range cues {
		addCue(b, c)
	}
	return b, nil
}

func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Split(s, "\n")
}

// readCues splits lines into blocks and reads each block's cue. first is
// the line number of lines[0].
func readCues(lines []string, first int, vtt bool) ([]cue, error) {
	var cues []cue
	for i := 0; i < len(lines); {
		if strings.TrimSpace(lines[i]) == "" {
			i++
			continue
		}
		j := i
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" {
			j++
		}
		block := lines[i:j]
		at := first + i
		i = j
		if vtt {
			word, _, _ := strings.Cut(strings.TrimSpace(block[0]), " ")
			if word == "NOTE" || word == "STYLE" || word == "REGION" {
				continue
			}
		}
		timing := 0
		if !strings.Contains(block[0], "-->") {
			timing = 1 // a cue identifier or number comes first
		}
		if timing >= len(block) || !strings.Contains(block[timing], "-->") {
			return nil, fmt.Errorf("line %d: want a timing line \"start --> end\", got %q", at, clip(block[0], 60))
		}
		start, end, err := parseTiming(block[timing])
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", at+timing, err)
		}
		if len(cues) >= MaxTurns {
			return nil, fmt.Errorf("line %d: more than %d cues", at, MaxTurns)
		}
		cues = append(cues, cue{line: at + timing, start: start, end: end, payload: block[timing+1:]})
	}
	return cues, nil
}

// parseTiming reads "start --> end [settings]".
func parseTiming(line string) (start, end time.Duration, err error) {
	a, b, _ := strings.Cut(line, "-->")
	fields := strings.Fields(b)
	if len(fields) == 0 {
		return 0, 0, fmt.Errorf("timing line %q has no end time", clip(line, 60))
	}
	if start, err = parseTimestamp(strings.TrimSpace(a)); err != nil {
		return 0, 0, err
	}
	if end, err = parseTimestamp(fields[0]); err != nil {
		return 0, 0, err
	}
	return start, end, nil
}

// parseTimestamp reads [hh:]mm:ss[.,]ttt; the fraction is optional.
func parseTimestamp(s string) (time.Duration, error) {
	bad := fmt.Errorf("timestamp %q is not [hh:]mm:ss.ttt", clip(s, 40))
	whole, frac, _ := strings.Cut(strings.Replace(s, ",", ".", 1), ".")
	parts := strings.Split(whole, ":")
	if len(parts) < 2 || len(parts) > 3 || len(frac) > 9 {
		return 0, bad
	}
	var total int64
	for i, p := range parts {
		if p == "" || len(p) > 6 || strings.Trim(p, "0123456789") != "" {
			return 0, bad
		}
		n, _ := strconv.ParseInt(p, 10, 64)
		if i > 0 && n > 59 {
			return 0, bad
		}
		total = total*60 + n
	}
	d := time.Duration(total) * time.Second
	if frac != "" {
		if strings.Trim(frac, "0123456789") != "" {
			return 0, bad
		}
		n, _ := strconv.ParseInt(frac, 10, 64)
		for range 9 - len(frac) {
			n *= 10
		}
		d += time.Duration(n)
	}
	return d, nil
}

// addCue adds a cue's turns: one per voice (<v Name>) or "Name:" prefix.
func addCue(b *builder, c cue) {
	speaker, text := "", ""
	flush := func() {
		if strings.TrimSpace(text) != "" {
			b.add(speaker, text, c.start, c.end, false)
		}
		text = ""
	}
	for _, line := range c.payload {
		for _, part := range voices(line) {
			if part.speaker != "" && part.speaker != speaker {
				flush()
				speaker = part.speaker
			}
			body := plainCaption(part.text)
			if part.speaker == "" {
				if name, rest, ok := speakerPrefix(body); ok {
					if name != speaker {
						flush()
						speaker = name
					}
					body = rest
				}
			}
			text += " " + body
		}
	}
	flush()
}

type voiced struct{ speaker, text string }

// voices splits a payload line at its <v Name> tags.
func voices(line string) []voiced {
	var out []voiced
	cur := voiced{}
	for {
		i := strings.Index(line, "<v")
		if i < 0 || i+2 >= len(line) || (line[i+2] != ' ' && line[i+2] != '.' && line[i+2] != '\t') {
			if i >= 0 && i+2 < len(line) {
				// "<v" that is not a voice tag, such as "<very>"
				cur.text += line[:i+2]
				line = line[i+2:]
				continue
			}
			cur.text += line
			break
		}
		end := strings.IndexByte(line[i:], '>')
		if end < 0 {
			cur.text += line
			break
		}
		cur.text += line[:i]
		if strings.TrimSpace(cur.text) != "" || cur.speaker != "" {
			out = append(out, cur)
		}
		tag := line[i+2 : i+end] // ".class Name" or " Name"
		if tag != "" && tag[0] == '.' {
			_, tag, _ = strings.Cut(tag, " ")
		}
		cur = voiced{speaker: collapse(decodeEntities(tag))}
		line = line[i+end+1:]
	}
	if strings.TrimSpace(cur.text) != "" || cur.speaker != "" {
		out = append(out, cur)
	}
	return out
}

// plainCaption removes markup from caption text: tags such as <i>, <c.x>,
// </v> and <00:00:01.000>, and {\an8}-style override codes, then decodes
// character references.
func plainCaption(s string) string {
	var sb strings.Builder
	for len(s) > 0 {
		i := strings.IndexAny(s, "<{")
		if i < 0 {
			sb.WriteString(s)
			break
		}
		sb.WriteString(s[:i])
		closer := byte('>')
		if s[i] == '{' {
			closer = '}'
		}
		j := strings.IndexByte(s[i:], closer)
		if j < 0 || (closer == '}' && (i+1 >= len(s) || s[i+1] != '\\')) {
			sb.WriteByte(s[i])
			s = s[i+1:]
			continue
		}
		s = s[i+j+1:]
	}
	return decodeEntities(sb.String())
}

var entities = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&nbsp;", " ", "&lrm;", "", "&rlm;", "", "&quot;", `"`, "&#39;", "'", "&apos;", "'")

func decodeEntities(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return entities.Replace(s)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
