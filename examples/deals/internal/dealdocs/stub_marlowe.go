package dealdocs

func marlowe() map[string][]byte { return nil }
