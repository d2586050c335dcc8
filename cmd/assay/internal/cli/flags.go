package cli

import "strings"

// flagNames are the flags of the plan fields that library errors and
// warnings name ({Field} in a harness.PlanError), and a few command lines
// they point at.
var flagNames = map[string]string{
	"K": "-k", "Trials": "--trials", "Concurrency": "-j", "Timeout": "--timeout",
	"MaxErrors": "--max-errors", "MaxFailures": "--max-failures",
	"Cases": "--case", "Tags": "--tag", "Target": "--target",
	"Baseline": "--baseline", "Labels": "--label", "Failed": "--failed", "Shard": "--shard", "Group": "--group",
	"StoreDir": "--store", "Store": "--store", "NoStore": "--no-store", "Cache": "--cache",
	"CacheTrials": "--cache-trials", "MaxCost": "--max-cost", "MaxTokens": "--max-tokens", "DryRun": "--dry-run",
	"Gates": "--gate", "Strict": "--strict", "AllowNoBaseline": "--allow-no-baseline",
	"Judge": "--judge", "JudgeOff": "--no-judge", "JudgeRepeats": "--judge-repeats", "JudgeProbes": "--judge-probes",
	"JSON": "--json", "Markdown": "--markdown", "JUnit": "--junit", "Badge": "--badge", "OTel": "--otel",
	"Record": "--record", "TrecRun": "--trec-run", "TrecQrels": "--trec-qrels",
	"TrecTag": "--trec-tag", "ReportDir": "--report-dir",
	"RunShard": "assay run --shard",
}

// FlagName is the flag of a plan field (harness.PlanError.Text), the
// field's own name when no flag sets it.
func FlagName(field string) string {
	if f, ok := flagNames[field]; ok {
		return f
	}
	return strings.ToLower(field)
}
