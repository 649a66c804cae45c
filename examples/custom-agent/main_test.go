package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), t.TempDir(), &out); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^run r[0-9a-f]+ completed: \{"matches":\["Acme Shell Co"\],"screened":2\}
  agent run by screener: completed
  tool_gateway run by screener: completed
  tool_gateway run by screener: completed
trace verified: [0-9]+ signed events
$`)
	if !want.Match(out.Bytes()) {
		t.Fatalf("got\n%s", out.String())
	}
}

// TestReadmeShowsThisProgram: the README's section "Write your own agent and
// tool" holds this program as it is, so the code a newcomer copies is the
// code this package compiles and TestRun runs.
func TestReadmeShowsThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Write your own agent and tool\n")
	if !ok {
		t.Fatal(`README.md has no section "Write your own agent and tool"`)
	}
	_, code, ok := strings.Cut(section, "```go\n")
	if ok {
		code, _, ok = strings.Cut(code, "```\n")
	}
	if !ok {
		t.Fatal("the section has no Go code block")
	}
	main, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if code != string(main) {
		t.Fatal("the README's code differs from examples/custom-agent/main.go: copy main.go into the README")
	}
}
