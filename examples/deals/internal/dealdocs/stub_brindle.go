package dealdocs

func brindle() map[string][]byte { return nil }
