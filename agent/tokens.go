package agent

import (
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/sanadhq/sanad"
)

// Encoding is the tokenizer token budgets are counted in.
const Encoding = "cl100k_base"

// encoding loads the tokenizer once, from the vocabulary compiled into the
// binary: counting tokens never reaches the network. The loader is a global
// of the tiktoken package, so it is set here, once, and nowhere else.
var encoding = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	return tiktoken.GetEncoding(Encoding)
})

// CountTokens returns the number of [Encoding] tokens in s. Special tokens
// such as <|endoftext|> count as the plain text they are.
func CountTokens(s string) (int, error) {
	enc, err := encodingOrError()
	if err != nil {
		return 0, err
	}
	return len(enc.EncodeOrdinary(s)), nil
}

func encodingOrError() (*tiktoken.Tiktoken, error) {
	enc, err := encoding()
	if err != nil {
		// The vocabulary is compiled in: failing to load it is a bug.
		return nil, sanad.Wrap(err, sanad.CodeInternal, opInject, "the "+Encoding+" tokenizer does not load")
	}
	return enc, nil
}

// tokenText is a text split into tokens, so that it can be cut at a token
// boundary.
type tokenText struct {
	enc    *tiktoken.Tiktoken
	tokens []int
	full   string
}

func newTokenText(enc *tiktoken.Tiktoken, s string) tokenText {
	return tokenText{enc: enc, tokens: enc.EncodeOrdinary(s), full: s}
}

func (t tokenText) len() int { return len(t.tokens) }

// prefix returns the text of the first n tokens, without a character cut in
// two at its end.
func (t tokenText) prefix(n int) string {
	switch {
	case n >= len(t.tokens):
		return t.full
	case n <= 0:
		return ""
	}
	return strings.ToValidUTF8(t.enc.Decode(t.tokens[:n]), "")
}
