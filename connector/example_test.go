package connector_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/connector/local"
)

func Example() {
	dir, _ := os.MkdirTemp("", "connector-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "memo.txt"), []byte("Board approved the merger."), 0o644)
	os.WriteFile(filepath.Join(dir, ".DS_Store"), []byte("junk"), 0o644)

	opt := connector.Options{}
	files, _ := local.New(opt)
	mux := connector.Mux{connector.SourceLocal: files} // web.New, gdrive.New likewise

	in := connector.Input{SourceType: "local", SourceIdentifier: dir}
	for out, err := range mux.Fetch(context.Background(), in) {
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(filepath.Base(out.FilePath), out.FileSizeBytes, out.MimeType, out.Checksum[:15])
	}
	// Output:
	// memo.txt 26 text/plain sha256:fcabb4e5
}
