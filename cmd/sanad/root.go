package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks bad usage or input: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// failure marks an error that exits 1 whatever its code: a run that did not
// complete, or a run id that names no run of the home. The input was well
// formed; what it asked for did not happen.
type failure struct{ err error }

func (e failure) Error() string { return e.err.Error() }
func (e failure) Unwrap() error { return e.err }

// app holds what every command shares.
type app struct {
	homeDir string
	jsonOut bool
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "sanad: %s\n", message(err))
	return exitCode(err)
}

func message(err error) string {
	var se *sanad.Error
	if errors.As(err, &se) {
		return sanad.ErrorMessage(err)
	}
	return err.Error()
}

func exitCode(err error) int {
	var f failure
	if errors.As(err, &f) {
		return exitFailure
	}
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		return exitUsage
	}
	var se *sanad.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sanad.CodeInvalidInput, sanad.CodeNotFound:
			return exitUsage
		}
	}
	return exitFailure
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "sanad",
		Short:         "Governed, auditable multi-agent runtime",
		Long:          "sanad runs agents under policy and records every step as a signed event in a tamper-evident Merkle log.\n\nEvery claim has a chain of evidence, and every action has a signed record.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&a.homeDir, "home", "", "home folder (default $SANAD_HOME, else ./.sanad)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		a.versionCommand(),
		a.quickstartCommand(),
		a.ledgerCommand(),
		a.exportCommand(),
		a.verifyCommand(),
		a.benchCommand(),
		a.policyCommand(),
		a.gatesCommand(),
		a.toolsCommand(),
		a.runCommand(),
		a.runsCommand(),
		a.agentsCommand(),
		a.modelsCommand(),
		a.sessionCommand(),
	)
	return root
}

// jsonFlag adds --json to a command that prints results.
func (a *app) jsonFlag(c *cobra.Command) *cobra.Command {
	c.Flags().BoolVar(&a.jsonOut, "json", false, "print the result as JSON")
	return c
}

func (a *app) home() string {
	if a.homeDir != "" {
		return a.homeDir
	}
	if h := os.Getenv("SANAD_HOME"); h != "" {
		return h
	}
	return filepath.Join(".", ".sanad")
}

// open opens the home for writing.
func (a *app) open(ctx context.Context) (*home.Home, error) {
	return home.Open(ctx, home.Config{Dir: a.home()})
}

// openRead opens an existing home for reading: for writing if no other
// process holds it (so its schema is brought up to date), else read-only.
func (a *app) openRead(ctx context.Context) (*home.Home, error) {
	ro := home.Config{Dir: a.home(), ReadOnly: true}
	if _, err := os.Stat(filepath.Join(ro.Dir, "sanad.db")); err != nil {
		return home.Open(ctx, ro) // reports the missing home
	}
	h, err := home.Open(ctx, home.Config{Dir: ro.Dir})
	if sanad.ErrorCode(err) == sanad.CodeUnavailable {
		return home.Open(ctx, ro)
	}
	return h, err
}

// withHome opens the home for writing, calls fn with it and closes it.
func (a *app) withHome(ctx context.Context, fn func(h *home.Home) error) error {
	h, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer h.Close()
	return fn(h)
}

// withHomeRead opens an existing home for reading (see openRead), calls fn
// with it and closes it.
func (a *app) withHomeRead(ctx context.Context, fn func(h *home.Home) error) error {
	h, err := a.openRead(ctx)
	if err != nil {
		return err
	}
	defer h.Close()
	return fn(h)
}

// withRun opens the home for writing and calls fn with it once run id is
// known to be one of its runs (see findRun).
func (a *app) withRun(ctx context.Context, id string, fn func(h *home.Home) error) error {
	return a.withHome(ctx, func(h *home.Home) error {
		if _, err := findRun(ctx, h, id); err != nil {
			return err
		}
		return fn(h)
	})
}

// conflictFailure makes a CONFLICT error, such as resuming or aborting what
// has already ended, a failure (exit 1); other errors are returned as they
// are.
func conflictFailure(err error) error {
	if sanad.ErrorCode(err) == sanad.CodeConflict {
		return failure{err}
	}
	return err
}

// group is a command that only holds sub-commands.
func group(use, short string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short}
	c.AddCommand(subs...)
	return c
}

// report prints v as JSON with --json, else calls text.
func (a *app) report(v any, text func()) error {
	if a.jsonOut {
		return a.printJSON(v)
	}
	text()
	return nil
}

func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// args returns a cobra positional-argument check that reports usage errors.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %d argument(s), got %d (see --help)", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usagef("%s takes at most %d argument(s), got %d (see --help)", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

var version = "0.1.0-dev"

func (a *app) versionCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.report(map[string]string{"version": version}, func() {
				fmt.Fprintln(a.stdout, "sanad", version)
			})
		},
	})
}
