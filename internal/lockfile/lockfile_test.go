package lockfile_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/internal/lockfile"
)

// The tests re-execute the test binary as a second process that locks the
// file named by childEnv and reports what happened on stdout.
const childEnv = "SANAD_LOCKFILE_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(child(path))
	}
	os.Exit(m.Run())
}

// child tries the lock on path and writes "locked" or "refused", then Held's
// answer while it still has or lacks the lock. Holding the lock, it waits
// for its stdin to close before it exits.
func child(path string) int {
	unlock, ok, err := lockfile.TryLock(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	held, err := lockfile.Held(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Printf("%s held=%v\n", map[bool]string{true: "locked", false: "refused"}[ok], held)
	if ok {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		if err := unlock(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	return 0
}

// locker is a second process trying the lock.
type locker struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
	// report is the child's first line: "locked held=true" or
	// "refused held=true".
	report string
}

// startLocker starts a child process on path and waits for its report. A
// child that got the lock keeps it until stop.
func startLocker(t *testing.T, path string) *locker {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l := &locker{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { l.stop() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		l.stop()
		t.Fatalf("child reported nothing (%v); stderr: %s", err, stderr.String())
	}
	l.report = strings.TrimSpace(line)
	return l
}

// stop lets the child release its lock and exit, and waits for it.
func (l *locker) stop() {
	if l.stdin != nil {
		l.stdin.Close()
		l.stdin = nil
		_ = l.cmd.Wait()
	}
}

// kill ends the child without letting it unlock.
func (l *locker) kill(t *testing.T) {
	t.Helper()
	if err := l.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = l.cmd.Wait()
	l.stdin.Close()
	l.stdin = nil
}

func held(t *testing.T, path string) bool {
	t.Helper()
	h, err := lockfile.Held(path)
	if err != nil {
		t.Fatalf("Held: %v", err)
	}
	return h
}

// A lock taken by one process is refused to another while it is held, and
// granted to it once released.
func TestTryLockAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	unlock, ok, err := lockfile.TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock: got (%v, %v), want (true, nil)", ok, err)
	}
	if got, want := startLocker(t, path).report, "refused held=true"; got != want {
		t.Errorf("second process while the lock is held: got %q, want %q", got, want)
	}
	if err := unlock(); err != nil {
		t.Fatalf("unlock: %v", err)
	}
	if held(t, path) {
		t.Errorf("Held after unlock: got true, want false")
	}
	other := startLocker(t, path)
	if got, want := other.report, "locked held=true"; got != want {
		t.Errorf("second process after the release: got %q, want %q", got, want)
	}
	if !held(t, path) {
		t.Errorf("Held while the other process holds the lock: got false, want true")
	}
	if _, ok, err := lockfile.TryLock(path); ok || err != nil {
		t.Errorf("TryLock while the other process holds the lock: got (%v, %v), want (false, nil)", ok, err)
	}
	other.stop()
	if held(t, path) {
		t.Errorf("Held after the other process released the lock: got true, want false")
	}
}

// A process that dies holding the lock frees it: the lock says whether its
// holder is alive.
func TestLockFreedWhenHolderDies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.lock")
	holder := startLocker(t, path)
	if holder.report != "locked held=true" {
		t.Fatalf("child: got %q, want it to take the lock", holder.report)
	}
	if !held(t, path) {
		t.Fatalf("Held while the child holds the lock: got false, want true")
	}
	holder.kill(t)
	if held(t, path) {
		t.Errorf("Held after the holder was killed: got true, want false")
	}
	unlock, ok, err := lockfile.TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock after the holder was killed: got (%v, %v), want (true, nil)", ok, err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
}

// Within one process a second TryLock of the same file is refused too; Held
// does not create a missing file.
func TestTryLockInProcess(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lock")
	if held(t, path) {
		t.Errorf("Held of a missing file: got true, want false")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Held created %s (stat: %v)", path, err)
	}
	unlock, ok, err := lockfile.TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock: got (%v, %v), want (true, nil)", ok, err)
	}
	if _, ok, err := lockfile.TryLock(path); ok || err != nil {
		t.Errorf("second TryLock: got (%v, %v), want (false, nil)", ok, err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	again, ok, err := lockfile.TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock after unlock: got (%v, %v), want (true, nil)", ok, err)
	}
	if err := again(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := lockfile.TryLock(filepath.Join(dir, "missing", "lock")); err == nil {
		t.Errorf("TryLock in a missing folder: got nil error, want one")
	}
}
