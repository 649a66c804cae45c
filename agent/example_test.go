package agent_test

import (
	"fmt"

	"github.com/sanadhq/sanad/agent"
)

func ExampleRegistry_Select() {
	p, err := agent.ParseProfile("legal-reviewer.yaml", []byte(`
id: legal-reviewer
name: Legal Reviewer
description: Reviews the contracts of a target.
role: legal_reviewer
version: "1"
example_tasks: [Review the share purchase agreement]
not_for_tasks: [Give a final legal opinion]
`))
	if err != nil {
		panic(err)
	}
	r := agent.NewRegistry()
	if err := r.Create(p); err != nil {
		panic(err)
	}
	for _, task := range []string{"Review the share purchase agreement.", "Review the share purchase agreement and give a final legal opinion", "Bake a cake"} {
		m := r.Select(task)[0]
		fmt.Printf("%s %.1f\n", m.Agent, m.Confidence)
	}
	// Output:
	// legal-reviewer 0.6
	// standard 0.5
	// standard 0.5
}

func ExampleLibrary_Inject() {
	lib, err := agent.NewLibrary(agent.Ability{
		ID:      "evidence-citation",
		Title:   "Evidence citation",
		Content: "Cite the evidence of every statement.",
	})
	if err != nil {
		panic(err)
	}
	p := agent.Standard()
	p.CoreAbilities = []string{"evidence-citation"}
	inj, err := lib.Inject(p, "Summarize the file", "You are careful.", 100)
	if err != nil {
		panic(err)
	}
	fmt.Println(inj.Prompt)
	fmt.Println(inj.Included, inj.Tokens <= 100)
	// Output:
	// # Abilities
	//
	// ## Evidence citation [evidence-citation]
	//
	// Cite the evidence of every statement.
	//
	// ---
	//
	// You are careful.
	// [evidence-citation] true
}
