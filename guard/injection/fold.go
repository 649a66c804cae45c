package injection

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// view is text prepared for matching, with the way back to the original:
// byte i of s came from the original bytes [start[i], end[i]).
type view struct {
	s     string
	start []int32
	end   []int32
}

// span returns the original bytes of the view's bytes [a, b).
func (v *view) span(a, b int) (int, int) {
	if a >= b || b > len(v.s) {
		return 0, 0
	}
	return int(v.start[a]), int(v.end[b-1])
}

// hidden is what folding removed or replaced that a reader does not see.
type hidden struct {
	invisible []runeSpan // zero-width and other format characters
	bidi      []runeSpan // bidirectional embeddings, overrides and isolates
	tags      []runeSpan // runs of characters of the tag block (U+E0000–U+E007F)
	tagText   []string   // the ASCII each run of tags spells
	mixed     []runeSpan // words that mix Latin letters with look-alikes from other scripts
}

type runeSpan struct{ start, end int }

// fold returns the text as the rules and the classifier read it: NFKD with
// combining marks dropped (so compatibility forms such as fullwidth and
// mathematical letters become plain ones, and accents go), lower case,
// invisible characters removed, and every run of white space one space (a
// newline when the run holds one). In a word whose letters are all Latin
// or look like Latin ones, letters of other scripts are folded to the
// Latin letters they imitate; a word of another script (Russian, Greek)
// keeps its letters.
func fold(text string) (view, hidden) {
	var h hidden
	v := view{
		start: make([]int32, 0, len(text)+8),
		end:   make([]int32, 0, len(text)+8),
	}
	buf := make([]byte, 0, len(text)+8)
	var i, j int // the original rune being emitted
	emit := func(b byte) {
		buf = append(buf, b)
		v.start = append(v.start, int32(i))
		v.end = append(v.end, int32(j))
	}
	emitString := func(s string) {
		for k := 0; k < len(s); k++ {
			emit(s[k])
		}
	}
	space := true // drops leading space
	newline := false
	pendingSpace := -1 // original offset of a run of white space not yet emitted
	flushSpace := func() {
		if pendingSpace >= 0 {
			si, sj := i, j
			i, j = pendingSpace, pendingSpace+1
			if newline {
				emit('\n')
			} else {
				emit(' ')
			}
			i, j = si, sj
		}
		pendingSpace, newline = -1, false
	}
	var dec [64]byte
	foldLatin := true // the current word folds look-alikes
	wordEnd := 0      // where the current word ends
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		j = i + n
		if i >= wordEnd && isWordRune(r) {
			wordEnd, foldLatin = scanWord(text, i, &h)
		}
		switch {
		case r >= 0xE0000 && r <= 0xE007F:
			if len(h.tags) > 0 && h.tags[len(h.tags)-1].end == i {
				h.tags[len(h.tags)-1].end = j
			} else {
				h.tags = append(h.tags, runeSpan{i, j})
				h.tagText = append(h.tagText, "")
			}
			if r >= 0xE0020 && r <= 0xE007E {
				h.tagText[len(h.tagText)-1] += string(rune(r - 0xE0000))
			}
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r >= utf8.RuneSelf && unicode.IsSpace(r):
			if !space {
				if pendingSpace < 0 {
					pendingSpace = i
				}
				newline = newline || r == '\n' || r == '\v' || r == '\f' || r == 0x2028 || r == 0x2029 || r == 0x85
			}
		case r < utf8.RuneSelf:
			flushSpace()
			c := byte(r)
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			emit(c)
			space = false
		case isBidi(r):
			h.bidi = append(h.bidi, runeSpan{i, j})
		case isInvisible(r):
			h.invisible = append(h.invisible, runeSpan{i, j})
		default:
			flushSpace()
			space = false
			if s, ok := confusable[r]; ok && foldLatin {
				emitString(s)
				break
			}
			d := norm.NFKD.AppendString(dec[:0], text[i:j])
			for k := 0; k < len(d); {
				q, m := utf8.DecodeRune(d[k:])
				k += m
				switch {
				case unicode.Is(unicode.Mn, q):
				case q == 'ß' || q == 'ẞ':
					emitString("ss")
				case q == ' ':
					emit(' ')
				default:
					if s, ok := confusable[q]; ok && foldLatin {
						emitString(s)
						continue
					}
					q = unicode.ToLower(q)
					if q < utf8.RuneSelf {
						emit(byte(q))
						continue
					}
					var tmp [utf8.UTFMax]byte
					emitString(string(tmp[:utf8.EncodeRune(tmp[:], q)]))
				}
			}
		}
		i = j
	}
	v.s = string(buf)
	return v, h
}

// isWordRune reports the runes a word is made of. Invisible characters
// count, so that one inside a word does not split it.
func isWordRune(r rune) bool {
	return r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || isInvisible(r))
}

// scanWord reads the word that starts at text[i:] and returns where it
// ends and whether its look-alike letters are to be folded: whether every
// letter in it is Latin or a look-alike. A word that mixes Latin letters
// with look-alikes is recorded in h.mixed.
func scanWord(text string, i int, h *hidden) (end int, foldLatin bool) {
	latin, lookalike, foreign := false, false, false
	end = i
	for end < len(text) {
		r, n := utf8.DecodeRuneInString(text[end:])
		if !isWordRune(r) {
			break
		}
		end += n
		switch {
		case r < utf8.RuneSelf:
			latin = latin || r > '9'
		case confusable[r] != "":
			lookalike = true
		case unicode.Is(unicode.Latin, r):
			latin = true
		case unicode.IsLetter(r):
			foreign = true
		}
	}
	if latin && lookalike && !foreign {
		h.mixed = append(h.mixed, runeSpan{i, end})
	}
	return end, !foreign
}

// isBidi reports the bidirectional controls that reorder text: embeddings,
// overrides and isolates. The marks (U+200E, U+200F, U+061C), which
// right-to-left text uses in the ordinary way, are invisible, not bidi.
func isBidi(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// isInvisible reports characters that take no space on screen: zero-width
// spaces and joiners, the word joiner and its kin, the byte order mark,
// the soft hyphen, variation selectors, bidi marks, and other format
// characters.
func isInvisible(r rune) bool {
	switch {
	case r == 0x00AD, r == 0x034F, r == 0x061C, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
		r == 0x180E, r >= 0x200B && r <= 0x200F, r >= 0x2060 && r <= 0x2064, r == 0x3164, r == 0xFEFF,
		r == 0xFFA0, r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// confusable maps letters of other scripts that look like Latin ones to the
// letters they imitate (a selection of Unicode's confusables.txt: Cyrillic,
// Greek, Armenian, Latin small capitals and IPA letters). Fullwidth and
// mathematical letters need no entry: NFKD folds them.
var confusable = map[rune]string{
	// Cyrillic
	'а': "a", 'в': "b", 'е': "e", 'ё': "e", 'к': "k", 'м': "m", 'н': "h", 'о': "o", 'р': "p",
	'с': "c", 'т': "t", 'у': "y", 'х': "x", 'ѕ': "s", 'і': "i", 'ї': "i", 'ј': "j", 'ԁ': "d",
	'ԛ': "q", 'ԝ': "w", 'һ': "h", 'ӏ': "l", 'ɡ': "g", 'ո': "n", 'ս': "u", 'օ': "o",
	'А': "a", 'В': "b", 'Е': "e", 'Ё': "e", 'К': "k", 'М': "m", 'Н': "h", 'О': "o", 'Р': "p",
	'С': "c", 'Т': "t", 'У': "y", 'Х': "x", 'Ѕ': "s", 'І': "i", 'Ї': "i", 'Ј': "j", 'Ԁ': "d",
	'Ԛ': "q", 'Ԝ': "w", 'Һ': "h", 'Ӏ': "l",
	// Greek
	'α': "a", 'β': "b", 'ε': "e", 'η': "n", 'ι': "i", 'κ': "k", 'ν': "v", 'ο': "o", 'ρ': "p",
	'τ': "t", 'υ': "u", 'χ': "x", 'γ': "y", 'ϲ': "c", 'ϳ': "j",
	'Α': "a", 'Β': "b", 'Ε': "e", 'Ζ': "z", 'Η': "h", 'Ι': "i", 'Κ': "k", 'Μ': "m", 'Ν': "n",
	'Ο': "o", 'Ρ': "p", 'Τ': "t", 'Υ': "y", 'Χ': "x", 'Ϲ': "c",
	// Latin look-alikes outside ASCII that NFKD keeps
	'ı': "i", 'ɩ': "i", 'ȷ': "j", 'ɑ': "a", 'ɛ': "e", 'ɪ': "i", 'ʟ': "l", 'ɴ': "n", 'ʀ': "r",
	'ᴀ': "a", 'ʙ': "b", 'ᴄ': "c", 'ᴅ': "d", 'ᴇ': "e", 'ɢ': "g", 'ʜ': "h", 'ᴊ': "j", 'ᴋ': "k",
	'ᴍ': "m", 'ᴏ': "o", 'ᴘ': "p", 'ꜱ': "s", 'ᴛ': "t", 'ᴜ': "u", 'ᴠ': "v", 'ᴡ': "w", 'ʏ': "y",
	'ᴢ': "z", 'ℓ': "l",
}
