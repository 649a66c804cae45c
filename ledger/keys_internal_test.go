package ledger

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/keyring"
)

// TestIntegrity7_SmallOrderKeyNotRegistered: under the cofactored rule a
// small-order public key verifies signatures anyone can make, so the keys
// rule refuses to register one; an ordinary key is registered.
func TestIntegrity7_SmallOrderKeyNotRegistered(t *testing.T) {
	good, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	weak, _ := hex.DecodeString("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a") // order 8
	for _, tt := range []struct {
		name string
		pub  []byte
		ok   bool
	}{{"ordinary", good, true}, {"small order", weak, false}} {
		id := keyring.KeyID(tt.pub)
		body, _ := json.Marshal(KeyBody{Identity: "sanad-runtime", KeyID: id, PublicKey: base64.StdEncoding.EncodeToString(tt.pub), Role: KeyRoleRuntime})
		ev := &Event{Trace: KeysTrace, Type: TypeKeyRegistered, Actor: Actor{Agent: "sanad-runtime", Key: id}, Body: body}
		err := (&keysRule{}).Check(ev)
		if tt.ok != (err == nil) || !tt.ok && !strings.Contains(err.Error(), "small order") {
			t.Errorf("%s key: got %v", tt.name, err)
		}
	}
}
