package canon

// ValueEnd returns where the JSON value starting at b[i] ends, or -1 if b
// holds no well-formed value there. It reads canonical JSON (no white
// space) and checks only what it needs to find the end; depth is the
// nesting already entered (0 at the top).
func ValueEnd(b []byte, i, depth int) int {
	if i >= len(b) || depth > maxDepth {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return -1
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i++
		if i < len(b) && b[i] == closer {
			return i + 1
		}
		for {
			if c == '{' {
				if i < len(b) && b[i] != '"' {
					return -1
				}
				if i = ValueEnd(b, i, depth+1); i < 0 || i >= len(b) || b[i] != ':' {
					return -1
				}
				i++
			}
			if i = ValueEnd(b, i, depth+1); i < 0 || i >= len(b) {
				return -1
			}
			switch b[i] {
			case ',':
				i++
			case closer:
				return i + 1
			default:
				return -1
			}
		}
	case c == 't':
		return word(b, i, "true")
	case c == 'f':
		return word(b, i, "false")
	case c == 'n':
		return word(b, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j
	}
	return -1
}

func word(b []byte, i int, w string) int {
	if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w {
		return i + len(w)
	}
	return -1
}

// Member returns the value of the member name of the canonical JSON
// object b, as canonical JSON, without decoding the rest of b. ok is false
// if b is not an object or has no such member.
func Member(b []byte, name string) (value []byte, ok bool) {
	if len(b) < 2 || b[0] != '{' {
		return nil, false
	}
	for i := 1; i < len(b) && b[i] != '}'; {
		if b[i] == ',' {
			i++
		}
		keyEnd := ValueEnd(b, i, 1)
		if keyEnd < 0 || b[i] != '"' || keyEnd >= len(b) || b[keyEnd] != ':' {
			return nil, false
		}
		end := ValueEnd(b, keyEnd+1, 1)
		if end < 0 {
			return nil, false
		}
		if matchesName(b[i:keyEnd], name) {
			return b[keyEnd+1 : end], true
		}
		i = end
	}
	return nil, false
}

// matchesName reports whether the quoted canonical string q is name.
func matchesName(q []byte, name string) bool {
	inner := q[1 : len(q)-1]
	for _, c := range inner {
		if c == '\\' {
			v, err := Parse(q)
			return err == nil && v == name
		}
	}
	return string(inner) == name
}
