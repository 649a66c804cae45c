// Package textcheck holds the test the text readers share: whether decoded
// text is binary data rather than text or markup.
package textcheck

import "unicode"

// Binary reports whether s looks like binary data: a NUL character, or more
// than one control character in ten, in its first 8,192 characters.
func Binary(s string) bool {
	n, ctl := 0, 0
	for _, r := range s {
		if n >= 8192 {
			break
		}
		n++
		if r == 0 {
			return true
		}
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' && r != '\f' {
			ctl++
		}
	}
	return ctl*10 > n
}
