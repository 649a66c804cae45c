package injection

import (
	"math"
	"sync"
)

// sparse is a feature vector: indexes in increasing order, and values.
type sparse struct {
	idx []uint32
	val []float64
}

// FNV-1a, 64 bits.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// Seeds that keep the kinds of feature apart in the hashed space.
const (
	seedChar   = fnvOffset ^ 0x63 // 'c'
	seedWord   = fnvOffset ^ 0x77 // 'w'
	seedBigram = fnvOffset ^ 0x62 // 'b'
)

// Character n-grams are of these lengths, in bytes of folded text.
const (
	minGram = 3
	maxGram = 5
)

// scratch is the memory featurize works in, kept between calls.
type scratch struct {
	keys, tmp []uint64
	padded    []byte
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// featurize returns the hashed features of folded text s in a space of
// 2^bits dimensions: word unigrams and bigrams, and character 3- to
// 5-grams of the text with a space at each end. Each feature's value is
// ±(1+ln count), the sign a bit of its hash (signed feature hashing, so
// that collisions cancel out on average); the words and the character
// n-grams are each scaled to unit length, and the whole to unit length.
func featurize(s string, bits uint) sparse {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	chars, words := hashKeys(s, bits, sc)
	return merge(collapse(chars), collapse(words))
}

// hashKeys returns the sorted keys (see key) of the character n-grams and
// of the words of s, in memory of sc.
func hashKeys(s string, bits uint, sc *scratch) (chars, words []uint64) {
	mask := uint64(1)<<bits - 1
	keys := sc.keys[:0]
	// Character n-grams.
	padded := append(append(append(sc.padded[:0], ' '), s...), ' ')
	sc.padded = padded
	for i := range padded {
		h := uint64(seedChar)
		for k := 0; k < maxGram && i+k < len(padded); k++ {
			h ^= uint64(padded[i+k])
			h *= fnvPrime
			if k+1 >= minGram {
				keys = append(keys, key(h, mask))
			}
		}
	}
	nChar := len(keys)
	// Words and word pairs.
	var prev uint64
	havePrev := false
	for i := 0; i < len(s); {
		if !wordByte(s[i]) {
			i++
			continue
		}
		j := i
		h := uint64(seedWord)
		for j < len(s) && wordByte(s[j]) {
			h ^= uint64(s[j])
			h *= fnvPrime
			j++
		}
		keys = append(keys, key(h, mask))
		if havePrev {
			b := uint64(seedBigram)
			b ^= prev
			b *= fnvPrime
			b ^= h
			b *= fnvPrime
			keys = append(keys, key(b, mask))
		}
		prev, havePrev = h, true
		i = j
	}
	sc.keys = keys
	if cap(sc.tmp) < len(keys) {
		sc.tmp = make([]uint64, len(keys))
	}
	tmp := sc.tmp[:len(keys)]
	chars = radixSort(keys[:nChar], tmp[:nChar], bits+1)
	words = radixSort(keys[nChar:], tmp[nChar:], bits+1)
	return chars, words
}

// dotSorted returns the dot product of w with the unit vector that
// collapse makes of sorted keys, without making it.
func dotSorted(keys []uint64, w []float64) float64 {
	dot, norm := 0.0, 0.0
	acc, cur, have := 0.0, uint32(0), false
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		x := 1 + math.Log(float64(j-i))
		if keys[i]&1 == 1 {
			x = -x
		}
		idx := uint32(keys[i] >> 1)
		if have && idx != cur {
			dot += float64(acc * w[cur])
			norm += float64(acc * acc)
			acc = 0
		}
		acc += x
		cur, have = idx, true
		i = j
	}
	if have {
		dot += float64(acc * w[cur])
		norm += float64(acc * acc)
	}
	if norm == 0 {
		return 0
	}
	return dot / math.Sqrt(norm)
}

// key packs a feature's index and sign: index<<1 | sign.
func key(h, mask uint64) uint64 {
	h ^= h >> 29 // mix the high bits into the index
	return (h&mask)<<1 | h>>63
}

// wordByte reports the bytes of folded text that words are made of: ASCII
// letters and digits, and every byte of a non-ASCII letter.
func wordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c >= 0x80
}

// radixSort sorts keys below 2^bits, using tmp (as long as keys) as
// scratch, and returns the sorted slice (keys or tmp).
func radixSort(keys, tmp []uint64, bits uint) []uint64 {
	const digit = 11
	var count [1 << digit]int
	for shift := uint(0); shift < bits; shift += digit {
		clear(count[:])
		for _, k := range keys {
			count[k>>shift&(1<<digit-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range keys {
			d := k >> shift & (1<<digit - 1)
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	return keys
}

// collapse returns the features that sorted keys make, with values
// ±(1+ln count), scaled to unit length.
func collapse(keys []uint64) sparse {
	var v sparse
	norm := 0.0
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		x := 1 + math.Log(float64(j-i))
		if keys[i]&1 == 1 {
			x = -x
		}
		idx := uint32(keys[i] >> 1)
		if n := len(v.idx); n > 0 && v.idx[n-1] == idx {
			v.val[n-1] += x
		} else {
			v.idx = append(v.idx, idx)
			v.val = append(v.val, x)
		}
		i = j
	}
	for _, x := range v.val {
		norm += float64(x * x)
	}
	if norm > 0 {
		inv := 1 / math.Sqrt(norm)
		for i := range v.val {
			v.val[i] *= inv
		}
	}
	return v
}

// merge adds two unit vectors and scales the sum by 1/√2.
func merge(a, b sparse) sparse {
	out := sparse{idx: make([]uint32, 0, len(a.idx)+len(b.idx)), val: make([]float64, 0, len(a.idx)+len(b.idx))}
	const s = math.Sqrt2 / 2
	i, j := 0, 0
	for i < len(a.idx) || j < len(b.idx) {
		switch {
		case j >= len(b.idx) || i < len(a.idx) && a.idx[i] < b.idx[j]:
			out.idx, out.val = append(out.idx, a.idx[i]), append(out.val, float64(a.val[i]*s))
			i++
		case i >= len(a.idx) || b.idx[j] < a.idx[i]:
			out.idx, out.val = append(out.idx, b.idx[j]), append(out.val, float64(b.val[j]*s))
			j++
		default:
			out.idx, out.val = append(out.idx, a.idx[i]), append(out.val, float64(a.val[i]*s)+float64(b.val[j]*s))
			i++
			j++
		}
	}
	return out
}
