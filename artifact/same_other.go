//go:build !unix

package artifact

import (
	"bytes"
	"os"
)

// sameContent reports whether the file at path holds exactly data.
func sameContent(path string, data []byte) bool {
	existing, err := os.ReadFile(path)
	return err == nil && bytes.Equal(existing, data)
}
