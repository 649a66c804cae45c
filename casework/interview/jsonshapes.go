package interview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// jsonTurn is one turn of the three JSON shapes: ours (speaker, text,
// start, end), QMSum's (speaker, content) and a Whisper segment (start,
// end, text, speaker when diarized).
type jsonTurn struct {
	Speaker string          `json:"speaker"`
	Text    string          `json:"text"`
	Content string          `json:"content"`
	Start   json.RawMessage `json:"start"`
	End     json.RawMessage `json:"end"`
}

type jsonDoc struct {
	Language string     `json:"language"`
	Text     *string    `json:"text"`
	Turns    []jsonTurn `json:"turns"`
	Meeting  []jsonTurn `json:"meeting_transcripts"`
	Segments []jsonTurn `json:"segments"`
}

// parseJSON reads one of the JSON shapes, told apart by their keys.
func parseJSON(data []byte) (*builder, error) {
	var doc jsonDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, jsonError(data, err)
	}
	b := &builder{}
	switch {
	case doc.Meeting != nil:
		b.format = FormatQMSum
		for _, t := range doc.Meeting {
			b.add(t.Speaker, t.Content, 0, 0, true)
		}
	case doc.Segments != nil || (doc.Turns == nil && doc.Text != nil):
		b.format = FormatWhisper
		b.language = doc.Language
		for i, s := range doc.Segments {
			start, err := jsonSeconds(s.Start)
			if err != nil {
				return nil, fmt.Errorf("segments[%d].start: %v", i, err)
			}
			end, err := jsonSeconds(s.End)
			if err != nil {
				return nil, fmt.Errorf("segments[%d].end: %v", i, err)
			}
			b.add(s.Speaker, s.Text, seconds(start), seconds(end), false)
		}
		if len(doc.Segments) == 0 && doc.Text != nil {
			b.add("", *doc.Text, 0, 0, false)
		}
	case doc.Turns != nil:
		b.format = FormatJSON
		b.language = doc.Language
		for i, t := range doc.Turns {
			start, err := jsonSeconds(t.Start)
			if err != nil {
				return nil, fmt.Errorf("turns[%d].start: %v", i, err)
			}
			end, err := jsonSeconds(t.End)
			if err != nil {
				return nil, fmt.Errorf("turns[%d].end: %v", i, err)
			}
			text := t.Text
			if text == "" {
				text = t.Content
			}
			b.add(t.Speaker, text, seconds(start), seconds(end), true)
		}
	default:
		return nil, fmt.Errorf(`JSON transcript has none of "turns", "meeting_transcripts", "segments" or "text"`)
	}
	b.language = strings.TrimSpace(clip(b.language, 32))
	return b, nil
}

// jsonSeconds reads a time in seconds: a number, a numeric string, or absent.
func jsonSeconds(raw json.RawMessage) (float64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var f float64
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		if s == "" {
			return 0, nil
		}
		if _, err := fmt.Sscanf(s, "%g", &f); err != nil {
			return 0, fmt.Errorf("%q is not a number of seconds", clip(s, 20))
		}
		return f, nil
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, fmt.Errorf("%s is not a number of seconds", clip(string(raw), 20))
	}
	return f, nil
}

// jsonError says where JSON went wrong, as a line and column.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
		return fmt.Errorf("line %d: %s holds a JSON %s where the transcript needs a %s", lineOf(data, off), fieldName(e.Field), e.Value, e.Type)
	}
	if off < 0 {
		return fmt.Errorf("not a JSON transcript: %v", err)
	}
	return fmt.Errorf("line %d: not valid JSON: %v", lineOf(data, off), err)
}

func fieldName(f string) string {
	if f == "" {
		return "the document"
	}
	return f
}

func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}
