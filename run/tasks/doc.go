// Package tasks reads the tasks file of a fan-out — JSON lines, one task a
// line (`prompt` required; `id`, `dir`, `policy`, `allow`, `model`
// optional) — and picks the task of this process by its index: the
// --task-index flag, else a Kubernetes Indexed Job's JOB_COMPLETION_INDEX
// (0-based), else GitLab's CI_NODE_INDEX − 1 (1-based). See
// docs/scale-out.md.
//
// It is a format leaf: it imports only the standard library, and only the
// command layer (package run) imports it.
package tasks
