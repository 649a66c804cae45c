package injection

//go:generate go run ./train -data ../../../shared/testdata -out model.bin
