// Package shard splits a suite into deterministic slices and names the
// group a sharded run's slices share; package harness runs a shard
// (harness.Plan.Shard) and merges a group (harness.Merge).
//
// # Slices
//
// A Spec "I/N" is slice I of N, 0-based (0/4 .. 3/4), as Kubernetes
// numbers an Indexed Job's pods ($JOB_COMPLETION_INDEX). A case belongs to
// slice Of(id, N): the first 8 bytes of the SHA-256 of its id, read as a
// big-endian integer, modulo N. The slice of a case depends on its id and
// N only: not on the order of the suite, on the other cases, on the
// machine or on the version of assay, so every shard of a group, wherever
// it runs, agrees on who runs what, and each case is in exactly one slice.
// With many cases the slices are about the same size; a slice may hold no
// case (2 cases in 4 shards): that shard is an empty run, still needed
// for the group to be complete.
//
// # Groups
//
// The shards of one sharded run share a group name. --group NAME gives
// it; the default (DefaultGroup) is derived from what every shard of one
// CI run agrees on and the next CI run does not: the suite fingerprint,
// the git commit of the working tree and the CI run id when one of the
// known variables is set (CIVars: GITHUB_RUN_ID, CI_PIPELINE_ID, ...).
// Without a CI run id two sharded runs of one suite at one commit share a
// group, and merge takes the newest complete run of each slice.
// A group name is 1 to 128 bytes of letters, digits, '.', '_' and '-'.
package shard
