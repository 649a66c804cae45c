// Command train fits the injection classifier on the examples of the
// shared test data that are not held out and writes the model that
// guard/injection embeds:
//
//	go generate ./guard/injection
//
// which runs, from guard/injection,
//
//	go run ./train -data ../../../shared/testdata -out model.bin
//
// Training is deterministic: the same data give the same file, byte for
// byte (TestR01_TrainingReproducesEmbeddedModel checks it).
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"

	"github.com/sanadhq/sanad/guard/injection"
	"github.com/sanadhq/sanad/guard/injection/eval"
)

func main() {
	data := flag.String("data", "../shared/testdata", "shared test data folder")
	out := flag.String("out", "guard/injection/model.bin", "model file to write")
	flag.Parse()
	examples, err := eval.LoadTraining(*data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
	train, test := injection.Split(examples)
	m := injection.Train(train, injection.TrainConfig{})
	b := m.Encode()
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
	fmt.Printf("trained on %d examples (%d held out); wrote %s, %d bytes, sha256 %x\n", len(train), len(test), *out, len(b), sha256.Sum256(b))
}
