package gdrive

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/sanadhq/sanad"
)

// credentialsFile is what a credentials document may hold: a service
// account key ("type": "service_account"), a gcloud user credentials file
// ("type": "authorized_user"), or an OAuth2 token, optionally with the
// client that may refresh it.
type credentialsFile struct {
	Type string `json:"type"`

	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret"`
	TokenURI     string    `json:"token_uri"`
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type"`
	RefreshToken string    `json:"refresh_token"`
	Expiry       time.Time `json:"expiry"`
}

// tokenSource returns the token source for an input's credentials, or the
// configured one when the input names none. Errors are CodeConnectorAuth.
func (c *Connector) tokenSource(ctx context.Context, id, source string) (oauth2.TokenSource, error) {
	if id == "" {
		if c.cfg.TokenSource != nil {
			return c.cfg.TokenSource, nil
		}
		return nil, sanad.Errorf(sanad.CodeConnectorAuth, op, "no credentials for %s: name them with credentials_id", source)
	}
	b, err := c.opt.LoadCredentials(ctx, id, source)
	if err != nil {
		return nil, err
	}
	bad := func(err error, why string) error {
		return sanad.Wrap(err, sanad.CodeConnectorAuth, op, "credentials \""+id+"\" for "+source+" "+why)
	}
	var f credentialsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, bad(err, "are not a JSON object")
	}
	// Token requests go through the connector's HTTP client, bounded by the
	// request timeout, and end with the fetch's ctx.
	hc := *c.opt.HTTPClient
	hc.Timeout = c.opt.Timeout
	hc.CheckRedirect = nil
	tctx := context.WithValue(ctx, oauth2.HTTPClient, &hc)
	switch {
	case f.Type == "service_account":
		jc, err := google.JWTConfigFromJSON(b, Scope)
		if err != nil {
			return nil, bad(err, "are not a usable service account key")
		}
		if len(jc.PrivateKey) == 0 || jc.Email == "" {
			return nil, bad(nil, "are a service account key without a private key or client_email")
		}
		if c.cfg.TokenURL != "" {
			jc.TokenURL = c.cfg.TokenURL
		}
		return jc.TokenSource(tctx), nil
	case f.Type == "authorized_user" || f.Type == "" && (f.AccessToken != "" || f.RefreshToken != ""):
		tok := &oauth2.Token{AccessToken: f.AccessToken, TokenType: f.TokenType, RefreshToken: f.RefreshToken, Expiry: f.Expiry}
		if f.RefreshToken == "" || f.ClientID == "" {
			if f.AccessToken == "" {
				return nil, bad(nil, "hold neither an access token nor a refresh token with its client_id")
			}
			return oauth2.ReuseTokenSource(tok, oauth2.StaticTokenSource(tok)), nil
		}
		tokenURL := f.TokenURI
		if tokenURL == "" {
			tokenURL = google.Endpoint.TokenURL
		}
		if c.cfg.TokenURL != "" {
			tokenURL = c.cfg.TokenURL
		}
		conf := &oauth2.Config{
			ClientID:     f.ClientID,
			ClientSecret: f.ClientSecret,
			Endpoint:     oauth2.Endpoint{TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams},
			Scopes:       []string{Scope},
		}
		return conf.TokenSource(tctx, tok), nil
	}
	return nil, bad(nil, "are neither a service account key, an authorized_user file nor an OAuth2 token")
}

// authorizer returns the Authorize func of requests: it sets a bearer token
// from ts, fetching or refreshing it as needed.
func authorizer(ts oauth2.TokenSource, source string) func(context.Context, *http.Request) error {
	return func(ctx context.Context, req *http.Request) error {
		tok, err := ts.Token()
		if err != nil {
			return tokenError(ctx, err, source)
		}
		if !tok.Valid() {
			return sanad.Errorf(sanad.CodeConnectorAuth, op, "the access token for %s has expired and cannot be refreshed: renew the credentials", source)
		}
		tok.SetAuthHeader(req)
		return nil
	}
}

// tokenError classifies a failure to get a token: the token endpoint
// refusing the credentials is CodeConnectorAuth; it failing or being
// unreachable is CodeDependencyDown.
func tokenError(ctx context.Context, err error, source string) error {
	var re *oauth2.RetrieveError
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return sanad.Wrap(err, sanad.CodeTimeout, op, "the deadline passed while getting a token for "+source)
		}
		return sanad.Wrap(err, sanad.CodeCancelled, op, "getting a token for "+source+" was cancelled")
	case errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 500:
		return sanad.Wrap(err, sanad.CodeDependencyDown, op, "the token endpoint failed for "+source+": try again later")
	case errors.As(err, &re):
		msg := "the token endpoint refused the credentials for " + source
		if re.ErrorCode != "" {
			msg += " (" + re.ErrorCode + ")"
		}
		return sanad.Wrap(err, sanad.CodeConnectorAuth, op, msg+": check the key and its access")
	case errors.As(err, &ne):
		return sanad.Wrap(err, sanad.CodeDependencyDown, op, "cannot reach the token endpoint for "+source)
	}
	return sanad.Wrap(err, sanad.CodeConnectorAuth, op, "cannot get a token for "+source+": the credentials are not usable")
}
