// Package scaleout holds the tests of the fan-out recipes docs/scale-out.md
// gives to copy: the Kubernetes Indexed Job (testdata/k8s/job.yaml),
// decoded strictly into the Kubernetes API types, and the GitLab CI
// template (docs/gitlab-ci/rubichan.gitlab-ci.yml), checked against
// GitLab's documented keywords. It has no code of its own: its test-only
// dependencies (k8s.io/api, sigs.k8s.io/yaml) never reach the binary.
// Nothing imports it.
package scaleout
