package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/keyring"
)

// trustedLogsFile is the trusted-logs file of a home: the log keys `sanad
// verify` trusts by default.
const trustedLogsFile = "trusted-logs"

const trustedLogsHeader = `# Logs whose bundles 'sanad verify' trusts: one checkpoint verifier key per line,
# as 'sanad ledger key' prints it (<origin>+<hash>+<base64>). Lines starting with # are comments.
`

// trustedLogsPath returns file, or the home's trusted-logs file if file is
// empty.
func (a *app) trustedLogsPath(file string) string {
	if file != "" {
		return file
	}
	return filepath.Join(a.home(), trustedLogsFile)
}

// trustedLogs reads the trusted-logs file: file, or the home's if file is
// empty, which may be missing (then nothing is trusted).
func (a *app) trustedLogs(file string) (bundle.TrustedLogs, error) {
	path := a.trustedLogsPath(file)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && file == "" {
		return nil, nil
	}
	if err != nil {
		return nil, usagef("cannot read trusted logs: %v", err)
	}
	t, err := bundle.ParseTrustedLogs(data)
	if err != nil {
		return nil, usagef("trusted logs %s: %v", path, err)
	}
	return t, nil
}

// addTrustedLog appends key, after a comment line, to the trusted-logs file
// at path (created with a header if missing) unless it is already there. It
// reports whether it added it.
func addTrustedLog(path, key, comment string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("cannot read trusted logs: %w", err)
	}
	t, err := bundle.ParseTrustedLogs(data)
	if err != nil {
		return false, usagef("trusted logs %s: %v (fix or remove the line; nothing was added)", path, err)
	}
	if t.Contains(key) {
		return false, nil
	}
	var b strings.Builder
	if len(data) == 0 {
		b.WriteString(trustedLogsHeader)
	} else if data[len(data)-1] != '\n' {
		b.WriteByte('\n')
	}
	if comment != "" {
		fmt.Fprintf(&b, "# %s\n", strings.ReplaceAll(comment, "\n", " "))
	}
	b.WriteString(key + "\n")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("cannot write trusted logs: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return false, fmt.Errorf("cannot write trusted logs: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return false, fmt.Errorf("cannot write trusted logs: %w", err)
	}
	return true, f.Close()
}

func (a *app) trustCommand() *cobra.Command {
	var file string
	c := group("trust", "Manage the log keys 'sanad verify' trusts (the trusted-logs file)",
		a.trustAddCommand(&file), a.trustListCommand(&file))
	c.Long = `The trusted-logs file holds the checkpoint verifier keys of the logs whose bundles
'sanad verify' accepts as theirs: one key per line, as 'sanad ledger key' prints it, and
# comments. It is <home>/trusted-logs unless --trusted-logs names another; 'sanad export'
adds the home's own key to it. It can be edited by hand.`
	c.PersistentFlags().StringVar(&file, "trusted-logs", "", "trusted-logs file (default <home>/trusted-logs)")
	return c
}

func (a *app) trustAddCommand(file *string) *cobra.Command {
	var comment string
	c := a.jsonFlag(&cobra.Command{
		Use:   "add KEY",
		Short: "Trust a log's checkpoint verifier key (from 'sanad ledger key' of the issuing home)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key := strings.TrimSpace(args[0])
			v, err := keyring.NewNoteVerifier(key)
			if err != nil {
				return usagef("%q is not a log key (<origin>+<hash>+<base64>, as sanad ledger key prints it): %v", key, err)
			}
			path := a.trustedLogsPath(*file)
			if comment == "" {
				comment = "added by sanad trust add"
			}
			added, err := addTrustedLog(path, key, comment)
			if err != nil {
				return err
			}
			return a.report(map[string]any{"file": path, "origin": v.Name(), "key": key, "added": added}, func() {
				if added {
					fmt.Fprintf(a.stdout, "trusted log %s (key %s) in %s\n", v.Name(), key, path)
				} else {
					fmt.Fprintf(a.stdout, "log %s (key %s) was already trusted in %s\n", v.Name(), key, path)
				}
			})
		},
	})
	c.Flags().StringVar(&comment, "comment", "", "comment written above the key")
	return c
}

func (a *app) trustListCommand(file *string) *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "list",
		Short: "List the trusted log keys",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := a.trustedLogs(*file)
			if err != nil {
				return err
			}
			type log struct {
				Origin string `json:"origin"`
				Key    string `json:"key"`
			}
			logs := make([]log, 0, len(t))
			for _, k := range t {
				origin, _, _ := strings.Cut(k, "+")
				logs = append(logs, log{origin, k})
			}
			path := a.trustedLogsPath(*file)
			return a.report(map[string]any{"file": path, "logs": logs}, func() {
				if len(logs) == 0 {
					fmt.Fprintf(a.stdout, "no trusted logs in %s\n", path)
				}
				for _, l := range logs {
					fmt.Fprintf(a.stdout, "%s  %s\n", l.Origin, l.Key)
				}
			})
		},
	})
}
