package tailor_test

import "github.com/sanadhq/sanad/memory"

// The test set: passages on unrelated subjects, each with questions they
// answer (want is text the answer must contain) and questions they do not
// (want is empty: the answer must be a refusal).

type topic struct {
	name      string
	chunks    []memory.Result
	questions []testQuestion
}

type testQuestion struct {
	q    string
	want string
}

func passage(id, source, title string, score float64, content string) memory.Result {
	return memory.Result{
		ChunkID: id, SourceID: source, SourceURL: "https://example.org/" + source, RelevanceScore: score, Content: content,
		Metadata: map[string]any{"title": title, "page": 1, "layout_type": "text"},
	}
}

var testSet = []topic{
	{
		name: "photosynthesis",
		chunks: []memory.Result{
			passage("bio-1", "biology-notes", "Plant biology", 0.62, `# Photosynthesis

Photosynthesis is the process by which green plants convert light energy into chemical energy. It takes place mainly in the chloroplasts of leaf cells, which contain the pigment chlorophyll.

During the light-dependent reactions, water molecules are split and oxygen is released as a by-product. The Calvin cycle then uses carbon dioxide from the air to build glucose.`),
			passage("bio-2", "biology-notes", "Plant biology", 0.41, `## Factors

The rate of photosynthesis rises with light intensity until another factor becomes limiting. Most plants photosynthesise best between 25 and 35 degrees Celsius; above about 40 degrees the enzymes begin to denature.

- Carbon dioxide concentration limits the rate in bright light.
- Water shortage closes the stomata and slows the process.`),
		},
		questions: []testQuestion{
			{"Where does photosynthesis take place?", "chloroplasts"},
			{"What gas is released when water is split?", "oxygen"},
			{"What does the Calvin cycle use to build glucose?", "carbon dioxide"},
			{"At what temperature do the enzymes begin to denature?", "40 degrees"},
			{"What pigment do chloroplasts contain?", "chlorophyll"},
			{"How do fungi digest their food?", ""},
			{"What is the boiling point of mercury?", ""},
		},
	},
	{
		name: "annual report",
		chunks: []memory.Result{
			passage("fin-1", "northwind-2023", "Northwind Traders annual report 2023", 0.71, `# Financial highlights

Northwind Traders had a record year. Revenue grew 18% to $48.2 million in 2023, driven by online orders, while operating costs rose only 6%.

| Metric | 2022 | 2023 |
|---|---|---|
| Revenue | $40.8M | $48.2M |
| Net income | $3.1M | $5.4M |
| Employees | 310 | 355 |`),
			passage("fin-2", "northwind-2023", "Northwind Traders annual report 2023", 0.44, `## Outlook

The board approved a dividend of $0.45 per share, payable in March 2024. Management expects revenue growth to slow to between 8% and 10% in 2024 as the company opens two warehouses in Poland.`),
			passage("fin-3", "trade-weekly", "Trade Weekly", 0.38, `Northwind Traders reported revenue of $48.2 million for 2023, its best result since the company was founded in 1998 by Laura Callahan.`),
		},
		questions: []testQuestion{
			{"What was revenue in 2023?", "48.2"},
			{"What was net income in 2022?", "3.1M"},
			{"How many employees did Northwind have in 2023?", "355"},
			{"What dividend did the board approve?", "$0.45 per share"},
			{"Who founded Northwind Traders?", "Laura Callahan"},
			{"Where will the company open warehouses?", "Poland"},
			{"What was revenue in 2019?", ""},
			{"What is the CEO's salary?", ""},
			{"How much did Contoso spend on marketing?", ""},
		},
	},
	{
		name: "lease",
		chunks: []memory.Result{
			passage("lease-1", "lease-12-elm", "Residential lease, 12 Elm Street", 0.55, `# Term and rent

The lease begins on 1 September 2024 and runs for twelve months. The monthly rent is $1,850, due on the first day of each month. A late fee of $75 applies to rent received after the fifth day of the month.`),
			passage("lease-2", "lease-12-elm", "Residential lease, 12 Elm Street", 0.47, `# Deposit and pets

The tenant pays a security deposit of $3,700 before moving in. The deposit is returned within 30 days after the tenant leaves, less the cost of any damage. Pets are not allowed without the landlord's written consent.

# Termination

Either party may end the lease with sixty days' written notice.`),
		},
		questions: []testQuestion{
			{"What is the monthly rent?", "$1,850"},
			{"How much is the security deposit?", "$3,700"},
			{"When does the lease begin?", "1 September 2024"},
			{"Are pets allowed?", "Pets are not allowed"},
			{"How much notice is needed to end the lease?", "sixty days"},
			{"What is the late fee?", "$75"},
			{"Who pays for the internet connection?", ""},
			{"Is smoking permitted in the garden?", ""},
		},
	},
	{
		name: "apollo",
		chunks: []memory.Result{
			passage("ap-1", "space-history", "The Moon landings", 0.66, `Apollo 11 launched from Kennedy Space Center on 16 July 1969. Neil Armstrong and Buzz Aldrin landed the lunar module Eagle on 20 July 1969, while Michael Collins stayed in orbit aboard Columbia.

Armstrong became the first person to walk on the Moon. The crew returned to Earth on 24 July 1969, splashing down in the Pacific Ocean.`),
			passage("ap-2", "nasa-facts", "Apollo program facts", 0.52, `The Apollo program cost about $25.8 billion. Six missions landed astronauts on the Moon between 1969 and 1972, and twelve astronauts walked on its surface. Apollo 17 was the last crewed Moon landing, in December 1972.`),
		},
		questions: []testQuestion{
			{"When did Apollo 11 launch?", "16 July 1969"},
			{"Who stayed in orbit aboard Columbia?", "Michael Collins"},
			{"How much did the Apollo program cost?", "$25.8 billion"},
			{"How many astronauts walked on the Moon?", "twelve astronauts"},
			{"Which mission was the last crewed Moon landing?", "Apollo 17"},
			{"When did Gagarin orbit the Earth?", ""},
			{"What rocket did the Artemis mission use?", ""},
		},
	},
	{
		name: "release notes",
		chunks: []memory.Result{
			passage("rel-1", "relnotes-4.2", "Release notes 4.2", 0.58, `# Version 4.2

Version 4.2 was released on 3 March 2025.

## Changes

- The import command now accepts CSV files up to 2 GB.
- Search results are cached for 10 minutes by default.
- The legacy XML exporter was removed; use the JSON exporter instead.

## Requirements

Version 4.2 requires PostgreSQL 14 or later and at least 4 GB of memory.`),
		},
		questions: []testQuestion{
			{"When was version 4.2 released?", "3 March 2025"},
			{"How long are search results cached?", "10 minutes"},
			{"What replaces the XML exporter?", "JSON exporter"},
			{"Which PostgreSQL version is required?", "PostgreSQL 14"},
			{"How large can imported CSV files be?", "2 GB"},
			{"Does version 4.2 support Windows ARM?", ""},
			{"What is the price of an enterprise licence?", ""},
		},
	},
	{
		name: "coffee",
		chunks: []memory.Result{
			passage("cof-1", "health-guide", "Caffeine and health", 0.49, `A typical cup of brewed coffee contains about 95 milligrams of caffeine. Health authorities consider up to 400 milligrams a day safe for most healthy adults.

Caffeine's effects peak 30 to 60 minutes after drinking and its half-life is around five hours. Pregnant women are advised to limit caffeine to 200 milligrams a day.`),
			passage("cof-2", "coffee-encyclopedia", "Coffee", 0.36, `Coffee plants were first cultivated in Yemen in the 15th century. Arabica and Robusta are the two most widely grown species; Robusta beans contain nearly twice as much caffeine as Arabica beans.`),
		},
		questions: []testQuestion{
			{"How much caffeine is in a cup of coffee?", "95 milligrams"},
			{"How much caffeine per day is safe for adults?", "400 milligrams"},
			{"What is the half-life of caffeine?", "five hours"},
			{"Where was coffee first cultivated?", "Yemen"},
			{"How much caffeine should pregnant women have?", "200 milligrams"},
			{"How much caffeine is in green tea?", ""},
			{"What is the price of Arabica futures?", ""},
		},
	},
}
