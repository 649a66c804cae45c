package chaos_test

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/sanadhq/sanad/internal/chaos"
)

// The test binary is its own child: with childEnv set it runs chaos.Child.
const (
	childEnv = "SANAD_CHAOS_CHILD"
	// killsEnv sets how many kills TestCrashHarness makes (default 50),
	// e.g. SANAD_CHAOS_KILLS=1000.
	killsEnv     = "SANAD_CHAOS_KILLS"
	defaultKills = 50
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		chaos.ChildMain(os.Args[2:])
	}
	os.Exit(m.Run())
}

// TestCrashHarness kills a long workflow at random moments and at named
// crash points, resumes it each time, and requires that no acknowledged
// event is lost, no chain breaks, no effect happens twice, no completed step
// runs again, and every run ends as the crash-free run does.
func TestCrashHarness(t *testing.T) {
	kills := defaultKills
	if v := os.Getenv(killsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", killsEnv, v)
		}
		kills = n
	}
	if testing.Short() {
		kills = 10
	}
	rep, err := chaos.Run(t.Context(), chaos.Config{
		Dir: t.TempDir(), Kills: kills, Seed: 7,
		Command: func(args []string) *exec.Cmd {
			cmd := exec.Command(os.Args[0], append([]string{"--"}, args...)...)
			cmd.Env = append(os.Environ(), childEnv+"=1")
			return cmd
		},
	})
	t.Logf("report: %+v", rep)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !rep.OK() {
		t.Errorf("the crashes lost or repeated something: %+v", rep)
	}
	if rep.Kills < kills {
		t.Errorf("kills: got %d, want %d", rep.Kills, kills)
	}
	if len(rep.PointsHit) < 20 && kills >= 50 {
		t.Errorf("named crash points hit: got %d (%v), want at least 20", len(rep.PointsHit), rep.PointsHit)
	}
}
