package text_test

import (
	"context"
	"fmt"

	"github.com/sanadhq/sanad/parse/text"
)

func ExampleParse() {
	vtt := `WEBVTT

00:00:01.000 --> 00:00:03.000
<v Chair>The committee will come to order.

00:00:03.500 --> 00:00:05.000
<v Chair>Our first witness is here.

00:00:05.000 --> 00:00:07.000
<v Witness>Thank you, Chair.
`
	doc, err := text.Parse(context.Background(), []byte(vtt))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Format)
	fmt.Println(doc.Markdown())
	// Output:
	// vtt
	// [00:00:01] Chair: The committee will come to order. Our first witness is here.
	//
	// [00:00:05] Witness: Thank you, Chair.
}

func ExampleConfig_Parse() {
	csv := "Party;Role;Share\nAcme Ltd;Buyer;60%\nBeta plc;Seller;40%\n"
	doc, err := text.Config{Format: text.CSV}.Parse(context.Background(), []byte(csv))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Markdown())
	// Output:
	// | Party | Role | Share |
	// | - | - | - |
	// | Acme Ltd | Buyer | 60% |
	// | Beta plc | Seller | 40% |
}
