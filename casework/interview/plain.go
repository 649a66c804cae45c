package interview

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// parseTXT reads "Name: text" lines. A line without a speaker continues the
// previous turn; text before the first speaker is the unknown speaker's. A
// line may open with a time, "[00:01:02]", "(01:02)" or "00:01:02", which
// becomes the turn's start. Consecutive lines of one speaker merge into one
// turn unless they carry times.
func parseTXT(data []byte) (*builder, error) {
	b := &builder{format: FormatTXT, merge: true}
	speaker, text := UnknownSpeaker, ""
	var start time.Duration
	flush := func() {
		if strings.TrimSpace(text) != "" {
			b.add(speaker, text, start, 0, false)
		}
		text = ""
	}
	for _, line := range splitLines(string(data)) {
		if len(b.turns) > MaxTurns {
			break
		}
		at, rest := leadingTime(strings.TrimSpace(line))
		if name, said, ok := speakerPrefix(rest); ok {
			flush()
			speaker, text, start = name, said, at
			continue
		}
		if at > 0 && start == 0 {
			start = at
		}
		text += " " + rest
	}
	flush()
	return b, nil
}

// leadingTime takes a time written before a line's speaker.
func leadingTime(line string) (time.Duration, string) {
	s := line
	closer := ""
	switch {
	case strings.HasPrefix(s, "["):
		closer, s = "]", s[1:]
	case strings.HasPrefix(s, "("):
		closer, s = ")", s[1:]
	}
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == ':' || s[end] == '.' || s[end] == ',') {
		end++
	}
	if end == 0 || !strings.Contains(s[:end], ":") {
		return 0, line
	}
	d, err := parseTimestamp(strings.TrimRight(s[:end], ".,"))
	if err != nil {
		return 0, line
	}
	rest := s[end:]
	if closer != "" {
		if !strings.HasPrefix(rest, closer) {
			return 0, line
		}
		rest = rest[1:]
	} else if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, line
	}
	if d == 0 {
		d = 1 // a time was given: 00:00:00 still marks a timestamped line
	}
	return d, strings.TrimSpace(rest)
}

// roles are lower-case words accepted as a speaker's name.
var roles = map[string]bool{
	"client": true, "attorney": true, "lawyer": true, "interviewer": true, "interviewee": true,
	"paralegal": true, "speaker": true, "q": true, "a": true, "caller": true, "advocate": true,
}

// speakerPrefix splits "Name: text". A name is one to five words, each
// opening with a capital or a digit (the first with a capital), or a role
// such as "client"; at most 48 bytes.
func speakerPrefix(line string) (name, text string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 0 || i > 48 || (i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t') {
		return "", "", false
	}
	name = strings.TrimSpace(line[:i])
	words := strings.Fields(name)
	if len(words) == 0 || len(words) > 5 {
		return "", "", false
	}
	if len(words) == 1 && roles[strings.ToLower(name)] {
		return name, strings.TrimSpace(line[i+1:]), true
	}
	for k, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) && (k == 0 || !unicode.IsDigit(r)) {
			return "", "", false
		}
		for _, c := range w {
			if !unicode.IsLetter(c) && !unicode.IsDigit(c) && !strings.ContainsRune(".'’_-()#", c) {
				return "", "", false
			}
		}
	}
	return name, strings.TrimSpace(line[i+1:]), true
}
