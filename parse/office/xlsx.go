package office

import (
	"context"
	"errors"

	"github.com/sanadhq/sanad/document"
)

func readXLSX(ctx context.Context, p *pkg, main string) (*document.Document, error) {
	return nil, errors.New("todo")
}
