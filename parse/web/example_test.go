package web_test

import (
	"context"
	"fmt"

	"github.com/sanadhq/sanad/parse/web"
)

func ExampleParse() {
	page := `<html><head><title>Closing memo</title></head><body>
<h1>Closing memo</h1>
<p>Conditions met, see <a href="/annex">annex</a>:</p>
<ol><li>Regulatory approval</li><li>Financing</li></ol>
<table><tr><th rowspan="2">Party</th><th colspan="2">Shares</th></tr><tr><td>2023</td><td>2024</td></tr></table>
</body></html>`
	doc, err := web.Parse(context.Background(), []byte(page))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Title)
	fmt.Println(doc.Markdown())
	// Output:
	// Closing memo
	// # Closing memo
	//
	// Conditions met, see [annex](/annex):
	//
	// 1. Regulatory approval
	// 2. Financing
	//
	// | Party | Shares | Shares |
	// | - | - | - |
	// | Party | 2023 | 2024 |
}
