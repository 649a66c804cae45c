package bundle_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/runs"
)

// measureChild runs the command after "--" in os.Args and prints its exit
// code, its peak resident memory as wait4 reports it (ru_maxrss), this
// process's own peak (VmHWM) before it started the command, and then what the
// command printed. A process started by a Go program shares its parent's
// memory until it execs, and ru_maxrss counts that memory too: measured from
// this small process, the figure is the larger of the command's peak and
// this process's own, which it prints.
func measureChild() int {
	i := slices.Index(os.Args, "--")
	if i < 0 || i+1 >= len(os.Args) {
		fmt.Println("usage: -- COMMAND ARGS...")
		return 2
	}
	self := int64(-1)
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				self, _ = strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			}
		}
	}
	cmd := exec.Command(os.Args[i+1], os.Args[i+2:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		fmt.Println("cannot run:", err)
		return 2
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Printf("exit %d maxrss_kib %d self_kib %d\n%s", code, ru.Maxrss, self, out.String())
	return 0
}

// sanadBinary builds the sanad command once per test binary.
var sanadBinary = func() func(t *testing.T) string {
	var path string
	var err error
	built := false
	return func(t *testing.T) string {
		t.Helper()
		if !built {
			built = true
			goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
			if _, err = os.Stat(goTool); err != nil {
				if goTool, err = exec.LookPath("go"); err != nil {
					err = fmt.Errorf("no go command to build sanad with")
				}
			}
			if err == nil {
				var dir string
				if dir, err = os.MkdirTemp("", "sanad-bin-"); err == nil {
					cleanupDirs = append(cleanupDirs, dir)
					path = filepath.Join(dir, "sanad")
					var out []byte
					cmd := exec.Command(goTool, "build", "-o", path, "github.com/sanadhq/sanad/cmd/sanad")
					cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
					if out, err = cmd.CombinedOutput(); err != nil {
						err = fmt.Errorf("go build: %v\n%s", err, out)
					}
				}
			}
		}
		if err != nil {
			t.Fatalf("cannot build the sanad command: %v", err)
		}
		return path
	}
}()

// peak runs `sanad verify FILE --log-key KEY` through measureChild and
// returns its exit code, its output and its peak resident memory in bytes,
// and the measuring process's own peak.
func peak(t *testing.T, sanadPath, bundlePath, logKey string) (int, string, int64, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", sanadPath, "verify", bundlePath, "--log-key", logKey)
	cmd.Env = append(os.Environ(), maxRSSEnv+"=1", "HOME="+t.TempDir(), "SANAD_HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("measuring sanad verify: %v\n%s", err, out)
	}
	first, rest, _ := strings.Cut(string(out), "\n")
	var code int
	var maxrss, self int64
	if _, err := fmt.Sscanf(first, "exit %d maxrss_kib %d self_kib %d", &code, &maxrss, &self); err != nil {
		t.Fatalf("measuring sanad verify: %q: %v", out, err)
	}
	return code, strings.TrimSpace(rest), maxrss << 10, self << 10
}

// exportWithArtifact records a short trace and a run whose output is an
// artifact of size random bytes in a new home, exports that run's trace to a
// file and returns the file and the log's verifier key.
func exportWithArtifact(t *testing.T, size int) (string, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	run, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: ledgertest.Scope, Agent: "intake-agent", Role: "intake",
		Decision: runs.Decision{Allow: true, Reason: "the intake lane allows it"}})
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, size)
	rand.Read(data)
	ref, err := h.Artifacts.Put(ctx, ledgertest.Scope, run.Record.ID, "application/octet-stream", data)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Complete(ctx, []sanad.ArtifactRef{ref}, map[string]any{"bytes": size}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bundle.tar.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	x := &bundle.Exporter{Ledger: h.Ledger, Artifacts: h.Artifacts, Runs: h.Runs}
	if _, err := x.Export(ctx, ledgertest.Scope, run.Record.Trace, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	key, err := h.Ledger.VerifierKey()
	if err != nil {
		t.Fatal(err)
	}
	return path, key
}

// TestSanadVerifyPeakMemory: the sanad command's verify (the binary, built
// here) stays under 64 MiB of resident memory plus the size of the largest
// artifact: on a bundle with a 32 MiB artifact, which it verifies, and on
// each decompression bomb, which it refuses. The peak is the process's
// ru_maxrss, measured from a small intermediate process (see measureChild).
// It builds the command and decompresses gigabytes, so it runs only with
// SANAD_VERIFY_MEMORY=1 or SANAD_TAMPER_FULL=1; TestBundleBombBoundedMemory
// checks the bombs in every run, with the verifier in a child test process.
func TestSanadVerifyPeakMemory(t *testing.T) {
	if os.Getenv("SANAD_VERIFY_MEMORY") == "" && os.Getenv("SANAD_TAMPER_FULL") == "" {
		t.Skip("builds the sanad command and decompresses gigabytes: set SANAD_VERIFY_MEMORY=1 to run it")
	}
	const base = 64 << 20
	sanadPath := sanadBinary(t)
	const artifact = 32 << 20
	path, key := exportWithArtifact(t, artifact)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	code, out, rss, self := peak(t, sanadPath, path, key)
	t.Logf("bundle of %d bytes with a %d MiB artifact: exit %d, peak RSS %.1f MiB (limit %d MiB; the measuring process's own peak %.1f MiB): %s",
		info.Size(), artifact>>20, code, float64(rss)/(1<<20), (base+artifact)>>20, float64(self)/(1<<20), firstLine(out))
	if code != 0 {
		t.Errorf("sanad verify of the bundle: exit %d, want 0: %s", code, out)
	}
	if rss >= base+artifact {
		t.Errorf("sanad verify of the bundle: peak RSS %.1f MiB, want under %d MiB", float64(rss)/(1<<20), (base+artifact)>>20)
	}
	e := bigExport(t)
	for _, tt := range bombCases(t, e) {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bomb.tar.gz")
			b := zeroBomb(t, tt.before, tt.hdr, tt.after)
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, rss, self := peak(t, sanadPath, p, e.logKey)
			t.Logf("%d-byte bomb holding %d bytes: exit %d, peak RSS %.1f MiB (the measuring process's own %.1f MiB): %s",
				len(b), tt.hdr.Size, code, float64(rss)/(1<<20), float64(self)/(1<<20), firstLine(out))
			if code == 0 || !strings.Contains(out, tt.want) {
				t.Errorf("sanad verify: exit %d, %q; want it refused, saying %q", code, out, tt.want)
			}
			// The largest real artifact of the bundle is a few bytes.
			if rss >= base {
				t.Errorf("peak RSS %.1f MiB, want under %d MiB", float64(rss)/(1<<20), base>>20)
			}
		})
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
