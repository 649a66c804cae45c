package delegation_test

import (
	"fmt"

	"github.com/sanadhq/sanad/delegation"
)

func ExampleChain_Delegate() {
	c := delegation.NewChain("researcher")
	c, _ = c.Delegate("analyst")
	_, err := c.Delegate("researcher")
	fmt.Println(c.Depth(), c)
	fmt.Println(err)
	// Output:
	// 1 researcher → analyst
	// delegation.delegate: DELEGATION_REFUSED: agent researcher is already in the chain researcher → analyst: circular delegation refused
}
