package ledger

import (
	"bytes"
	"crypto/ed25519"
	"reflect"
	"testing"

	"github.com/sanadhq/sanad"
)

// sealedVariants returns canonical sealed events with and without each
// optional field, signed.
func sealedVariants(tb testing.TB) [][]byte {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		tb.Fatal(err)
	}
	full := benchEvent()
	bare := *full
	bare.Parent, bare.Root, bare.Run, bare.Refs, bare.Actor.Role, bare.Scope = "", "", "", nil, "", sanad.Scope{Tenant: "acme"}
	oneRef := *full
	oneRef.Refs = full.Refs[:1]
	oneRef.Refs[0].URI, oneRef.Refs[0].CreatedByRun = "", ""
	var out [][]byte
	for _, ev := range []*Event{full, &bare, &oneRef} {
		ev.Hash, _ = ev.computeHash(nil)
		ev.Sig = ed25519.Sign(priv, SigningMessage(ev.Hash))
		out = append(out, ev.appendCanonical(nil, true))
	}
	return out
}

// TestDecodeDirectReadsCanonicalEvents: canonical events are read without a
// tree, and read as decodeTree reads them.
func TestDecodeDirectReadsCanonicalEvents(t *testing.T) {
	for i, raw := range sealedVariants(t) {
		direct, ok := decodeDirect(raw)
		if !ok {
			t.Fatalf("variant %d: decodeDirect refused %s", i, raw)
		}
		checkSameEvent(t, raw, direct)
	}
}

// FuzzDecodePathsAgree: whatever decodeDirect accepts, decodeTree accepts
// too, and reads the same event.
func FuzzDecodePathsAgree(f *testing.F) {
	for _, raw := range sealedVariants(f) {
		f.Add(raw)
		s := string(raw)
		for _, edit := range [][2]string{
			{`"v":1`, `"v":2`}, {`"seq":417`, `"seq":0417`}, {`"seq":417`, `"seq":9007199254740993`},
			{`"trace":"`, `"trace":"\u0072`}, {`"outcome"`, `"outcome" `}, {`,"role":"mapping"`, `,"role":""`},
			{`"size_bytes":1834`, `"size_bytes":1834.0`}, {`Z"`, `+00:00"`}, {`"case":"case-7",`, ``},
		} {
			f.Add([]byte(replaceOnce(s, edit[0], edit[1])))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if _, ok := decodeDirect(raw); ok {
			checkSameEvent(t, raw, nil)
		}
	})
}

// checkSameEvent fails t unless decodeTree accepts raw and reads the event
// decodeDirect reads (direct, or decodeDirect(raw) if nil).
func checkSameEvent(t *testing.T, raw []byte, direct *Event) {
	t.Helper()
	if direct == nil {
		direct, _ = decodeDirect(bytes.Clone(raw))
	}
	tree, err := decodeTree(bytes.Clone(raw))
	if err != nil {
		t.Fatalf("decodeDirect accepted what decodeTree refuses (%v):\n%s", err, raw)
	}
	a, b := *direct, *tree
	a.tree, b.tree = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the two decoders read different events from %s:\ndirect %+v\ntree   %+v", raw, a, b)
	}
}

func replaceOnce(s, old, new string) string {
	return string(bytes.Replace([]byte(s), []byte(old), []byte(new), 1))
}

// TestDecodePathsAgreeOnDeepBodies: around the nesting limit, the two
// decoders accept and refuse the same bodies.
func TestDecodePathsAgreeOnDeepBodies(t *testing.T) {
	raw := sealedVariants(t)[1] // no refs
	s := string(raw)
	i := bytes.Index(raw, []byte(`"body":`)) + len(`"body":`)
	end := bytes.Index(raw, []byte(`,"hash":`))
	accepted, refused := 0, 0
	for depth := 995; depth <= 1003; depth++ {
		body := `{"a":` + string(bytes.Repeat([]byte("["), depth)) + string(bytes.Repeat([]byte("]"), depth)) + `}`
		ev := s[:i] + body + s[end:]
		_, ok := decodeDirect([]byte(ev))
		_, err := decodeTree([]byte(ev))
		if ok && err != nil {
			t.Fatalf("nesting %d: decodeDirect accepted what decodeTree refuses: %v", depth, err)
		}
		if ok {
			accepted++
		}
		if err != nil {
			refused++
		}
	}
	if accepted == 0 || refused == 0 {
		t.Fatalf("%d nestings accepted and %d refused: the limit is not between 995 and 1003", accepted, refused)
	}
}
