// Package provider builds the models of a [model.Config]: for each class it
// reads the API key from the environment variable the class names, opens
// the adapter of its provider (model/openai or model/anthropic), and wraps
// it in [model.Structured], so every structured reply is checked.
package provider

import (
	"net/http"
	"sort"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/anthropic"
	"github.com/sanadhq/sanad/model/openai"
)

const op = "model.open"

// Open returns the registry of cfg's classes. getenv reads an environment
// variable (os.Getenv in cmd/, a map in tests); keys are read once, here,
// and kept only inside the adapters. hc is the HTTP client of every call
// (http.DefaultClient when nil).
//
// Open fails with INVALID_INPUT when cfg is not valid, and with MODEL_AUTH
// when a class names an API key variable that is unset or empty; the error
// names the variable, never its value. An empty cfg gives an empty
// registry: no model is configured.
func Open(cfg model.Config, getenv func(string) string, hc *http.Client) (*model.Registry, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(cfg.Classes))
	for name := range cfg.Classes {
		names = append(names, name)
	}
	sort.Strings(names)
	models := make(map[string]model.Model, len(names))
	for _, name := range names {
		m, err := open(name, cfg.Classes[name], cfg, getenv, hc)
		if err != nil {
			return nil, err
		}
		models[name] = model.Structured(m)
	}
	return model.NewRegistry(cfg, models), nil
}

func open(class string, cc model.ClassConfig, cfg model.Config, getenv func(string) string, hc *http.Client) (model.Model, error) {
	var key model.Secret
	if cc.APIKeyEnv != "" {
		if getenv != nil {
			key = model.Secret(getenv(cc.APIKeyEnv))
		}
		if key == "" {
			return nil, sanad.Errorf(sanad.CodeModelAuth, op,
				"model class %s: environment variable %s is not set; it must hold the %s API key", class, cc.APIKeyEnv, cc.Provider)
		}
	}
	switch cc.Provider {
	case model.ProviderAnthropic:
		return anthropic.New(anthropic.Config{
			Model: cc.Model, BaseURL: cc.BaseURL, APIKey: key, APIKeyEnv: cc.APIKeyEnv,
			HTTPClient: hc, Retry: cfg.Retry, Timeout: cfg.Timeout, Logger: cfg.Logger,
		})
	default:
		return openai.New(openai.Config{
			Model: cc.Model, BaseURL: cc.BaseURL, APIKey: key, APIKeyEnv: cc.APIKeyEnv,
			HTTPClient: hc, Retry: cfg.Retry, Timeout: cfg.Timeout, Logger: cfg.Logger,
		})
	}
}
