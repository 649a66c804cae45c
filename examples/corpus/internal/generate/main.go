// Command generate writes the PDF and DOCX documents of the sample corpus
// (examples/corpus): Tessaro Systems Ltd's annual report for 2024 and the
// minutes of its board meeting of 18 March 2025. The output depends only
// on this program, so running it again gives the same bytes.
//
//	go run ./examples/corpus/internal/generate
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// files are the generated documents, by file name.
func files() map[string][]byte {
	return map[string][]byte{
		"annual-report-2024.pdf":        annualReport(),
		"board-minutes-2025-03-18.docx": boardMinutes(),
	}
}

func main() {
	dir := flag.String("dir", filepath.Join("examples", "corpus"), "the folder to write the documents to")
	flag.Parse()
	for name, data := range files() {
		if err := os.WriteFile(filepath.Join(*dir, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
