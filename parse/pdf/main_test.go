package pdf

import (
	"os"
	"path/filepath"
	"testing"
)

// testPool is shared by the package's tests: pdfium is compiled once.
var testPool *Pool

func TestMain(m *testing.M) {
	var err error
	// The compiled module is cached between test runs.
	testPool, err = NewPool(PoolConfig{CacheDir: filepath.Join(os.TempDir(), "sanad-pdfium-wazero-cache")})
	if err != nil {
		panic(err)
	}
	code := m.Run()
	testPool.Close()
	os.Exit(code)
}
