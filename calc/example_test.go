package calc_test

import (
	"fmt"

	"github.com/sanadhq/sanad/calc"
)

func ExampleRunway() {
	cash := calc.Input{ClaimID: "claim-cash", Value: 4500, Unit: "thousand", Currency: "USD", Period: "2024-12", Grade: "A"}
	burn := calc.Input{ClaimID: "claim-burn", Value: 300, Unit: "thousand", Currency: "USD", Period: "2024-Q4", Grade: "B"}
	r, err := calc.Runway(cash, burn)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Name, r.Value, r.Unit, r.CalcSanad)
	// Output: runway 15 months B
}

func ExampleParseProgram() {
	p, err := calc.ParseProgram("subtract(206588, 181001), divide(#0, 181001)")
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := p.Eval(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.5f\n", v.Num)
	// Output: 0.14136
}
