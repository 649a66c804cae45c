package local

import (
	"path"
	"path/filepath"
	"strings"
)

// maxPatternSegments bounds a glob's segments after its literal folder.
const maxPatternSegments = 64

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[`) }

// splitGlob splits an absolute glob into its literal leading folder and the
// pattern segments after it.
func splitGlob(abs string) (base string, pat []string) {
	segs := strings.Split(filepath.ToSlash(abs), "/")
	i := 0
	for i < len(segs) && !hasMeta(segs[i]) {
		i++
	}
	base = filepath.FromSlash(strings.Join(segs[:i], "/"))
	if base == "" {
		base = string(filepath.Separator)
	}
	return base, segs[i:]
}

func containsDoubleStar(pat []string) bool {
	for _, s := range pat {
		if s == "**" {
			return true
		}
	}
	return false
}

// mentionsHidden reports whether a pattern segment starts with '.', asking
// for hidden names explicitly.
func mentionsHidden(pat []string) bool {
	for _, s := range pat {
		if strings.HasPrefix(s, ".") {
			return true
		}
	}
	return false
}

// matchSeg matches one segment; "**" is handled by the callers.
func matchSeg(p, name string) bool {
	ok, err := path.Match(p, name)
	return err == nil && ok
}

// matchGlob reports whether the path segments name match pat, where "**"
// matches any number of segments. It runs in O(len(pat)·len(name)).
func matchGlob(pat, name []string) bool {
	// reach[j]: pat[:i] can match name[:j].
	reach := make([]bool, len(name)+1)
	reach[0] = true
	for _, p := range pat {
		reach = advance(reach, p, name)
	}
	return reach[len(name)]
}

// advance returns which prefixes of segs the pattern matches once segment
// p is added to it, given reach for the pattern before p.
func advance(reach []bool, p string, segs []string) []bool {
	next := make([]bool, len(segs)+1)
	if p == "**" {
		on := false
		for j := range reach {
			on = on || reach[j]
			next[j] = on
		}
		return next
	}
	for j := 0; j < len(segs); j++ {
		if reach[j] && matchSeg(p, segs[j]) {
			next[j+1] = true
		}
	}
	return next
}

// canContainMatch reports whether a path below the folder dir (segments)
// can match pat, so that a walk need not descend where nothing can match.
func canContainMatch(pat, dir []string) bool {
	reach := make([]bool, len(dir)+1)
	reach[0] = true
	for _, p := range pat {
		if reach[len(dir)] {
			// dir is fully matched and pattern segments remain for its
			// contents.
			return true
		}
		reach = advance(reach, p, dir)
	}
	// All segments used: only "**" at the end keeps matching deeper.
	return reach[len(dir)] && len(pat) > 0 && pat[len(pat)-1] == "**"
}
