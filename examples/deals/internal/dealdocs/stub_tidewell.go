package dealdocs

func tidewell() map[string][]byte { return nil }
