package canon

import "reflect"

// OnePass reports whether v is encoded without encoding/json.
func OnePass(v any) bool {
	enc := encoderFor(reflect.TypeOf(v))
	if enc == nil {
		return false
	}
	_, err := enc(nil, reflect.ValueOf(v), 0)
	return err == nil
}
