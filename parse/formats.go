package parse

// readers are the readers of each format.
var readers = map[string]reader{}
