package home_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tlog"
)

// The crash test re-executes the test binary as a child that appends to a
// home until it is killed. These variables configure it.
const (
	// crashChildEnv holds the home folder the child appends to; set only in
	// the child.
	crashChildEnv = "SANAD_CRASH_CHILD"
	// crashKillsEnv sets how many times TestCrashRecovery kills a child
	// (default defaultCrashKills), e.g. SANAD_CRASH_KILLS=1000.
	crashKillsEnv     = "SANAD_CRASH_KILLS"
	defaultCrashKills = 50
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashChild opens the home in dir and appends to it from many goroutines as
// fast as it can, writing the hash of every acknowledged event to stdout, one
// per line, as soon as the call that appended it has returned. It never
// returns on its own: the parent kills it. It exits if its stdin closes (the
// parent is gone) or after a minute.
func crashChild(dir string) {
	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "crash child: "+format+"\n", args...)
		os.Exit(2)
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(3)
	}()
	time.AfterFunc(time.Minute, func() { os.Exit(4) })

	ctx := context.Background()
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		fail("open home: %v", err)
	}
	var outMu sync.Mutex
	ack := func(hs ...canon.Digest) {
		var b []byte
		for _, d := range hs {
			b = d.AppendText(b)
			b = append(b, '\n')
		}
		outMu.Lock()
		defer outMu.Unlock()
		if _, err := os.Stdout.Write(b); err != nil {
			os.Exit(5)
		}
	}
	// ackTrace acknowledges the events of a trace after seq *last: used after
	// a call that appended events without returning them. Only the calling
	// goroutine writes the trace, so they are exactly the call's events.
	ackTrace := func(trace string, last *uint64) {
		var hs []canon.Digest
		err := h.DB.ReadTrace(ctx, trace, *last, func(st ledger.Stored) error {
			ev, err := ledger.Decode(st.Raw)
			if err != nil {
				return err
			}
			hs, *last = append(hs, ev.Hash), ev.Seq
			return nil
		})
		if err != nil {
			fail("read back %s: %v", trace, err)
		}
		ack(hs...)
	}
	scope := sanad.Scope{Tenant: "crash", Case: "case-" + strconv.Itoa(os.Getpid()%3)}
	decision := func(allow bool, reason string) runs.Decision {
		return runs.Decision{Allow: allow, Reason: reason, Principal: runs.Principal{Agent: "crash-test"}, Action: "crash:step"}
	}

	// Run workers: run trees of their own, with artifacts, every ending, and
	// some left open.
	for w := range 6 {
		go func() {
			for i := 0; ; i++ {
				root, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindWorkflow, Scope: scope, Agent: "crash-orchestrator",
					Request: map[string]any{"worker": w, "i": i}, Decision: decision(true, "ok")})
				if err != nil {
					fail("start root: %v", err)
				}
				var last uint64
				ackTrace(root.Record.Trace, &last)
				child, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindToolGateway, Parent: root, Scope: scope,
					Agent: "crash-gateway", Decision: decision(i%7 != 3, "tool lane")})
				if sanad.ErrorCode(err) == sanad.CodePolicyDenied {
					ackTrace(root.Record.Trace, &last)
				} else {
					if err != nil {
						fail("start child: %v", err)
					}
					ackTrace(root.Record.Trace, &last)
					ev, err := child.Append(ctx, runs.TypeAuthz, "", decision(true, "step"), nil)
					if err != nil {
						fail("append: %v", err)
					}
					ack(ev.Hash)
					last = ev.Seq
					out, err := h.Artifacts.Put(ctx, scope, child.Record.ID, "text/plain", fmt.Appendf(nil, "output of %s", child.Record.ID))
					if err != nil {
						fail("put artifact: %v", err)
					}
					if i%5 == 1 {
						err = child.Fail(ctx, sanad.Errorf(sanad.CodeToolFailed, "tool", "tool failed"))
					} else {
						err = child.Complete(ctx, []sanad.ArtifactRef{out}, map[string]any{"ok": true})
					}
					if err != nil {
						fail("end child: %v", err)
					}
					ackTrace(root.Record.Trace, &last)
				}
				if i%4 == 2 {
					continue // root left running
				}
				if err := root.Complete(ctx, nil, nil); err != nil {
					fail("complete root: %v", err)
				}
				ackTrace(root.Record.Trace, &last)
			}
		}()
	}
	// Shared-trace workers: several goroutines append to the same few traces,
	// which every child process continues.
	for w := range 4 {
		go func() {
			for i := 0; ; i++ {
				ev, err := h.Ledger.Append(ctx, ledger.Draft{Trace: fmt.Sprintf("crash-shared-%d", (w+i)%3), Type: runs.TypeAuthz,
					Scope: scope, Body: decision(true, fmt.Sprintf("w%d #%d", w, i))})
				if err != nil {
					fail("shared append: %v", err)
				}
				ack(ev.Hash)
			}
		}()
	}
	select {}
}

// crashKills returns how many kills TestCrashRecovery does.
func crashKills(t *testing.T) int {
	s := os.Getenv(crashKillsEnv)
	if s == "" {
		if testing.Short() {
			return 10
		}
		return defaultCrashKills
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", crashKillsEnv, s)
	}
	return n
}

// TestCrashRecovery kills a child appending to a home with SIGKILL at a
// random moment, many times over, and after each kill reopens the home and
// checks that every event the child acknowledged is there, that no partial
// event was stored, and that the ledger verifies. The moment is set by how
// much the child has done, not by a clock: it dies once it has acknowledged
// a random number of events, while its other writers are mid-append.
func TestCrashRecovery(t *testing.T) {
	kills := crashKills(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	st := newLogState()
	fullEvery := max(10, kills/10)
	start := time.Now()
	var startup, checking time.Duration
	totalAcks := 0
	for i := range kills {
		acks, wait := crashOnce(t, exe, dir, 20+rnd.IntN(281))
		totalAcks += len(acks)
		startup += wait
		full := i%fullEvery == fullEvery-1 || i == kills-1
		t0 := time.Now()
		st.check(t, dir, acks, rnd, full)
		checking += time.Since(t0)
		if t.Failed() {
			t.Fatalf("after kill %d of %d", i+1, kills)
		}
	}
	t.Logf("%d kills in %v (child start to first ack %v, checks %v): %d acknowledged events, %d events stored, %d runs",
		kills, time.Since(start).Round(time.Millisecond), startup.Round(time.Millisecond), checking.Round(time.Millisecond), totalAcks, st.size, st.runs)
}

// crashOnce starts a child on the home in dir, kills it as soon as it has
// acknowledged n events, and returns the hashes it acknowledged (n or a few
// more) and how long the first acknowledgement took.
func crashOnce(t *testing.T, exe, dir string, n int) ([]canon.Digest, time.Duration) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wait time.Duration
	var firstAt time.Time
	enough := make(chan struct{}) // closed at the n-th acknowledgement
	var acks []canon.Digest
	var readErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				// A line cut short by the kill was never fully acknowledged.
				if err != io.EOF {
					readErr = err
				}
				return
			}
			d, err := canon.ParseDigest(strings.TrimSuffix(line, "\n"))
			if err != nil {
				readErr = fmt.Errorf("child wrote %q: %v", line, err)
				return
			}
			if acks = append(acks, d); len(acks) == 1 {
				firstAt = time.Now()
			}
			if len(acks) == n {
				close(enough)
			}
		}
	}()
	select {
	case <-enough:
		wait = firstAt.Sub(started)
	case <-done:
	case <-time.After(30 * time.Second): // a child that stalls is reported below
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Errorf("kill: %v", err)
	}
	<-done
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v before it was killed; stderr:\n%s", err, stderr.String())
	}
	if readErr != nil {
		t.Fatalf("reading acknowledgements: %v", readErr)
	}
	if len(acks) == 0 {
		t.Fatalf("child acknowledged nothing; stderr:\n%s", stderr.String())
	}
	if stderr.Len() > 0 {
		t.Fatalf("child reported:\n%s", stderr.String())
	}
	return acks, wait
}

// logState is what the parent has verified of the log so far: the checker's
// chain and ordering state per trace, the Merkle tree of the events checked,
// and where each event hash sits. Each reopen checks only the new events.
type logState struct {
	chk  *ledger.Checker
	tree *tlog.Tree
	seen map[canon.Digest]uint64
	size uint64
	runs int
}

func newLogState() *logState {
	return &logState{tree: tlog.NewTree(), seen: make(map[canon.Digest]uint64)}
}

// check reopens the home and checks it after a kill: the events stored since
// the last check decode (none is partial), verify (hash, signature, signer,
// schema, chain, ordering), and refer only to artifacts that are durable and
// indexed; the stored Merkle tree is the tree of all event hashes; every
// acknowledged event is stored. With full set it also runs the ledger's own
// Verify over the whole log and checks the runs table against a rebuild.
func (s *logState) check(t *testing.T, dir string, acks []canon.Digest, rnd *rand.Rand, full bool) {
	t.Helper()
	ctx := t.Context()
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		t.Fatalf("reopen home after the kill: %v", err)
	}
	defer h.Close()
	pub, err := h.Keys.Public()
	if err != nil {
		t.Fatalf("keys: %v", err)
	}
	if s.chk == nil {
		s.chk = &ledger.Checker{Types: h.Types, RuntimeIdentity: h.Ledger.RuntimeIdentity()}
	}
	s.chk.Keys = ledger.KeyMap(pub)
	err = h.DB.ReadLog(ctx, s.size, func(st ledger.Stored) error {
		if st.Index != s.size {
			return fmt.Errorf("leaf %d is missing: next stored is %d", s.size, st.Index)
		}
		ev, err := ledger.Decode(st.Raw)
		if err != nil {
			return fmt.Errorf("leaf %d does not decode (a partial event?): %v", st.Index, err)
		}
		if err := s.chk.CheckEvent(ev); err != nil {
			return fmt.Errorf("leaf %d: %v", st.Index, err)
		}
		if err := s.chk.Next(ev); err != nil {
			return fmt.Errorf("leaf %d: %v", st.Index, err)
		}
		for _, ref := range ev.Refs {
			if _, err := h.Artifacts.Read(ref.SHA256); err != nil {
				return fmt.Errorf("leaf %d refers to artifact %s: %v", st.Index, ref.ID, err)
			}
			if _, err := h.DB.Artifact(ctx, ref.ID, ref.Scope); err != nil {
				return fmt.Errorf("leaf %d refers to artifact %s, not indexed: %v", st.Index, ref.ID, err)
			}
		}
		if ev.Type == runs.TypeStarted {
			s.runs++
		}
		if err := s.tree.Append(tlog.LeafHash(ev.Hash[:]), nil); err != nil {
			return err
		}
		s.seen[ev.Hash] = st.Index
		s.size++
		return nil
	})
	if err != nil {
		t.Fatalf("checking the events stored since the last kill: %v", err)
	}
	size, err := h.DB.TreeSize(ctx)
	if err != nil || size != s.size {
		t.Fatalf("TreeSize: got (%d, %v), want %d", size, err, s.size)
	}
	root, _ := s.tree.Root()
	stored, err := tlog.Prover{Nodes: h.DB}.RootAt(ctx, size)
	if err != nil || !bytes.Equal(stored, root) {
		t.Fatalf("stored root at size %d: got (%x, %v), want %x", size, stored, err, root)
	}
	missing := 0
	for _, a := range acks {
		if _, ok := s.seen[a]; !ok {
			if missing++; missing <= 5 {
				t.Errorf("acknowledged event %s is not stored", a)
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged events are not stored", missing, len(acks))
	}
	// The store finds acknowledged events by hash: the last one acknowledged
	// and a few others.
	for _, a := range []canon.Digest{acks[len(acks)-1], acks[rnd.IntN(len(acks))], acks[rnd.IntN(len(acks))]} {
		got, err := h.DB.EventByHash(ctx, a)
		if err != nil || got.Index != s.seen[a] {
			t.Fatalf("EventByHash(%s): got (index %d, %v), want index %d", a, got.Index, err, s.seen[a])
		}
	}
	if !full {
		return
	}
	rep, err := h.Ledger.Verify(ctx, "")
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if rep.TreeSize != s.size {
		t.Fatalf("Verify: got tree size %d, want %d", rep.TreeSize, s.size)
	}
	before, err := h.DB.Runs(ctx, "")
	if err != nil {
		t.Fatalf("Runs: %v", err)
	}
	if len(before) != s.runs {
		t.Fatalf("Runs: got %d runs, want the %d started in the log", len(before), s.runs)
	}
	if err := h.DB.RebuildRuns(ctx); err != nil {
		t.Fatalf("RebuildRuns: %v", err)
	}
	after, err := h.DB.Runs(ctx, "")
	if err != nil {
		t.Fatalf("Runs after rebuild: %v", err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("runs table after a crash differs from its rebuild from the ledger")
	}
}
