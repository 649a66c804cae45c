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
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runner"
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
	// checkpointDirs are folders outside the home that keep a copy of the
	// log's latest checkpoint (--checkpoint-dir, $SANAD_CHECKPOINT_DIRS).
	checkpointDirs []string
	jsonOut        bool
	stdin          io.Reader
	stdout         io.Writer
	stderr         io.Writer
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
	if errors.As(err, &se) && se.Code == sanad.CodeInvalidInput {
		return exitUsage
	}
	return exitFailure
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "sanad",
		Short: "Governed, auditable multi-agent runtime",
		Long: `sanad runs agents under policy and records every step as a signed event in a tamper-evident Merkle log.

Every claim has a chain of evidence, and every action has a signed record.

Exit codes, for every command:
  0  success
  1  failure: the work did not succeed (a run that failed, waits on a gate or was denied,
     a verification that failed), or what the command names does not exist (no such run,
     trace, session, gate or artifact: code NOT_FOUND)
  2  bad usage or input: an unknown command or flag, a wrong number of arguments, a file
     or flag value that is not valid (code INVALID_INPUT)`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&a.homeDir, "home", "", "home folder (default $SANAD_HOME, else ./.sanad)")
	root.PersistentFlags().StringArrayVar(&a.checkpointDirs, "checkpoint-dir", nil, "folder outside the home that keeps a copy of the log's latest checkpoint; a home whose database does not extend it refuses to open (repeatable; default $SANAD_CHECKPOINT_DIRS, a list like $PATH)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		a.versionCommand(),
		a.quickstartCommand(),
		a.ledgerCommand(),
		a.exportCommand(),
		a.verifyCommand(),
		a.trustCommand(),
		a.benchCommand(),
		a.policyCommand(),
		a.gatesCommand(),
		a.toolsCommand(),
		a.runCommand(),
		a.runsCommand(),
		a.agentsCommand(),
		a.modelsCommand(),
		a.sessionCommand(),
		a.artifactsCommand(),
		a.parseCommand(),
		a.ingestCommand(),
		a.searchCommand(),
		a.askCommand(),
		a.diligenceCommand(),
		a.caseCommand(),
		a.debateCommand(),
		a.claimsCommand(),
		a.chatCommand(),
		a.docsCommand(),
		a.evalCommand(),
		a.guardCommand(),
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

// homeConfig is how every command opens the home: its folder, and the
// folders outside it that keep the latest checkpoint. The folders come from
// the command line or the environment, never from a file in the home, which
// whoever could roll the home back could also edit.
func (a *app) homeConfig(readOnly bool) home.Config {
	dirs := a.checkpointDirs
	if len(dirs) == 0 {
		dirs = filepath.SplitList(os.Getenv("SANAD_CHECKPOINT_DIRS"))
	}
	return home.Config{Dir: a.home(), ReadOnly: readOnly, CheckpointDirs: dirs}
}

// open opens the home for writing.
func (a *app) open(ctx context.Context) (*home.Home, error) {
	return home.Open(ctx, a.homeConfig(false))
}

// openRead opens an existing home for reading: for writing if no other
// process holds it (so its schema is brought up to date), else read-only.
func (a *app) openRead(ctx context.Context) (*home.Home, error) {
	ro := a.homeConfig(true)
	if _, err := os.Stat(filepath.Join(ro.Dir, "sanad.db")); err != nil {
		return home.Open(ctx, ro) // reports the missing home
	}
	h, err := home.Open(ctx, a.homeConfig(false))
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

// withExistingHome opens for writing a home that exists: a folder that
// holds no home is a usage error (exit 2), not a new empty home.
func (a *app) withExistingHome(ctx context.Context, fn func(h *home.Home) error) error {
	dir := a.home()
	if _, err := os.Stat(filepath.Join(dir, "sanad.db")); err != nil {
		return usagef("%s is not a sanad home (no sanad.db): give --home, or run sanad quickstart to make one", dir)
	}
	return a.withHome(ctx, fn)
}

// withAudit opens an existing home read-only and calls fn with what a
// verification of its log needs: its store, its event types, its origin
// (from the log key it registered) and the checkpoints it keeps outside its
// database. No private key is read.
func (a *app) withAudit(ctx context.Context, fn func(h *home.Home, cfg ledger.AuditConfig) error) error {
	dir := a.home()
	if _, err := os.Stat(filepath.Join(dir, "sanad.db")); err != nil {
		return usagef("%s is not a sanad home (no sanad.db): give --home, or run sanad quickstart to make one", dir)
	}
	h, err := home.Open(ctx, a.homeConfig(true))
	if err != nil {
		return err
	}
	defer h.Close()
	ks, err := ledger.LoadKeys(ctx, h.DB)
	if err != nil {
		return failure{err}
	}
	origin := home.OriginOf(ks.Log)
	return fn(h, ledger.AuditConfig{Store: h.DB, Types: h.Types, Origin: origin, Mirrors: home.Mirrors(dir, origin, a.homeConfig(true).CheckpointDirs)})
}

// readBounded reads at most max bytes of the file path; a larger file is an
// error.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("larger than %d bytes", max)
	}
	return data, nil
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

// withRunnerRead opens an existing home for reading (see openRead) and
// calls fn with a runner over it that registers nothing: it shows what is
// recorded.
func (a *app) withRunnerRead(ctx context.Context, fn func(r *runner.Runner) error) error {
	return a.withHomeRead(ctx, func(h *home.Home) error {
		r, err := runner.Open(ctx, runner.Config{Home: h})
		if err != nil {
			return err
		}
		defer r.Close()
		return fn(r)
	})
}

// notFound makes a NOT_FOUND error about id a failure (exit 1) that says
// where to look; other errors are returned as they are.
func notFound(err error, id string) error {
	if sanad.ErrorCode(err) == sanad.CodeNotFound {
		return failure{sanad.Errorf(sanad.CodeNotFound, "runs", "no run %q in this home (sanad runs list shows its runs)", id)}
	}
	return err
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

// group is a command that only holds sub-commands. Without one it prints
// its help; with a word that is not one of them it is a usage error (exit
// 2), with the nearest sub-command suggested.
func group(use, short string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short, Args: cobra.ArbitraryArgs, SuggestionsMinimumDistance: 2}
	c.AddCommand(subs...)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += fmt.Sprintf("; did you mean %q?", s[0])
		}
		return usagef("%s (see %s --help)", msg, cmd.CommandPath())
	}
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
