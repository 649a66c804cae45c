package pdf

import (
	"context"
	"fmt"
)

func ExampleParse() {
	data := buildPDF([]string{textStream("Due diligence memo", "", "The seller holds clear title to the land.")}, false)
	doc, err := Parse(context.Background(), data, Options{Pool: testPool, OCR: noOCR})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Pages, "page")
	fmt.Println(doc.Markdown())
	// Output:
	// 1 page
	// Due diligence memo
	//
	// The seller holds clear title to the land.
}
