package dealdocs

func orrery() map[string][]byte { return nil }
