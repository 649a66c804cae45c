package canon

import "unicode/utf8"

// AppendString appends the canonical JSON string literal of s to dst: the
// form RFC 8785 §3.2.2.2 prescribes (ECMAScript JSON.stringify). Invalid UTF-8
// bytes become U+FFFD, as encoding/json does, so that AppendString(nil, s)
// equals Marshal(s) for every s.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	// Most strings (ids, names, hashes) are printable ASCII with nothing to
	// escape: find the first byte that needs a look, eight at a time.
	i := plainPrefix(s)
	if i == len(s) {
		dst = append(dst, s...)
		return append(dst, '"')
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				const hexDigits = "0123456789abcdef"
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Word-at-a-time byte tests (see "Bit Twiddling Hacks", "Determine if a
// word has a byte less than n"): lo has 0x01 in every byte, hi 0x80.
const (
	lo = 0x0101010101010101
	hi = 0x8080808080808080
)

// plainPrefix returns the length of the longest prefix of s made of bytes
// AppendString copies as they are: printable ASCII other than '"' and '\\'.
func plainPrefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// A byte is flagged if it is below 0x20, equals '"' or '\\', or has
		// its high bit set (non-ASCII, validated rune by rune).
		quote, backslash := w^(lo*'"'), w^(lo*'\\')
		if ((w-lo*0x20)|(quote-lo)|(backslash-lo)|w)&hi != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			break
		}
	}
	return i
}
