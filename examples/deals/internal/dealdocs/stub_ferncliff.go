package dealdocs

func ferncliff() map[string][]byte { return nil }
