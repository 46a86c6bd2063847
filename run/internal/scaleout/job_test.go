package scaleout

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/exit"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

const root = "../../.."

// loadJob decodes the Job manifest strictly: a field the Kubernetes types
// do not have (a typo, a field of another version) is an error.
func loadJob(t *testing.T, data []byte) (*batchv1.Job, error) {
	t.Helper()
	var job batchv1.Job
	err := yaml.UnmarshalStrict(data, &job)
	return &job, err
}

func readJob(t *testing.T) *batchv1.Job {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "testdata", "k8s", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	job, err := loadJob(t, data)
	if err != nil {
		t.Fatalf("testdata/k8s/job.yaml: %v", err)
	}
	return job
}

// TestJobStrict: the decoding is strict, so the manifest's own decoding
// proves every field is a real one.
func TestJobStrict(t *testing.T) {
	for name, doc := range map[string]string{
		"misspelt field":        "apiVersion: batch/v1\nkind: Job\nspec:\n  completionsMode: Indexed\n",
		"field of another kind": "apiVersion: batch/v1\nkind: Job\nspec:\n  replicas: 2\n",
		"duplicate key":         "apiVersion: batch/v1\nkind: Job\nspec:\n  parallelism: 1\n  parallelism: 2\n",
	} {
		if _, err := loadJob(t, []byte(doc)); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}

// TestJobShape: an Indexed Job whose pod runs the task of its index.
func TestJobShape(t *testing.T) {
	job := readJob(t)
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Errorf("apiVersion %q kind %q", job.APIVersion, job.Kind)
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Parallelism > *s.Completions {
		t.Errorf("completions %v parallelism %v", s.Completions, s.Parallelism)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q: podFailurePolicy needs Never", pod.RestartPolicy)
	}
	c := container(t, pod, "rubichan")
	cmd := strings.Join(append(slices.Clone(c.Command), c.Args...), " ")
	for _, want := range []string{"rubichan exec --tasks /tasks/tasks.jsonl", "--output json", "--patch $d/patch.diff", "--session-file $d/session.jsonl", "> $d/result.json", "d=/results/$JOB_COMPLETION_INDEX"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("the command %q lacks %q", cmd, want)
		}
	}
	if strings.Contains(cmd, "--task-index") {
		t.Errorf("the command %q names --task-index: JOB_COMPLETION_INDEX is the default", cmd)
	}
	if !mounted(c, "/tasks") || !mounted(c, "/results") || !mounted(c, "/workspace") || c.WorkingDir != "/workspace" {
		t.Errorf("mounts %+v, workingDir %q", c.VolumeMounts, c.WorkingDir)
	}
	var key bool
	for _, e := range c.Env {
		if e.Name == "ANTHROPIC_API_KEY" {
			key = e.Value == "" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil
		}
	}
	if !key {
		t.Errorf("ANTHROPIC_API_KEY does not come from a Secret: %+v", c.Env)
	}
}

// TestJobSecurity: the image's non-root uid, no privilege escalation, no
// capabilities, a read-only root, and the runtime's seccomp profile
// (which decides whether Landlock is there, docs/scale-out.md).
func TestJobSecurity(t *testing.T) {
	job := readJob(t)
	pod := job.Spec.Template.Spec
	build, err := os.ReadFile(filepath.Join(root, "testdata", "image", "build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^uid=(\d+)$`).FindSubmatch(build)
	if m == nil {
		t.Fatal("no uid= line in testdata/image/build.sh")
	}
	sc := pod.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || sc.FSGroup == nil {
		t.Fatalf("pod securityContext %+v", sc)
	}
	if got := string(m[1]); *sc.RunAsUser != atoi(t, got) || *sc.FSGroup != atoi(t, got) {
		t.Errorf("runAsUser %d fsGroup %d, want the image's uid %s", *sc.RunAsUser, *sc.FSGroup, got)
	}
	if sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("seccompProfile %+v, want RuntimeDefault", sc.SeccompProfile)
	}
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		cs := c.SecurityContext
		if cs == nil || cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation ||
			cs.ReadOnlyRootFilesystem == nil || !*cs.ReadOnlyRootFilesystem ||
			cs.Capabilities == nil || !slices.Equal(cs.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("container %s securityContext %+v", c.Name, cs)
		}
		// A read-only root: HOME and /tmp must be volumes.
		if !mounted(c, "/home/rubichan") || !mounted(c, "/tmp") {
			t.Errorf("container %s: HOME or /tmp not mounted", c.Name)
		}
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the pod mounts a service account token it does not need")
	}
}

// TestJobDeadlines: rubichan's --timeout ends the run before the pod's
// activeDeadlineSeconds does (so the result is written, exit 4), and the
// Job's deadline leaves room for every index and a retry.
func TestJobDeadlines(t *testing.T) {
	job := readJob(t)
	pod := job.Spec.Template.Spec
	c := container(t, pod, "rubichan")
	m := regexp.MustCompile(`--timeout (\S+)`).FindStringSubmatch(strings.Join(append(slices.Clone(c.Command), c.Args...), " "))
	if m == nil {
		t.Fatal("the command gives no --timeout")
	}
	timeout, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if pod.ActiveDeadlineSeconds == nil {
		t.Fatal("no pod activeDeadlineSeconds")
	}
	podDeadline := time.Duration(*pod.ActiveDeadlineSeconds) * time.Second
	if podDeadline <= timeout || podDeadline > timeout+10*time.Minute {
		t.Errorf("pod activeDeadlineSeconds %v: want more than --timeout %v, by at most 10m", podDeadline, timeout)
	}
	waves := (*job.Spec.Completions + *job.Spec.Parallelism - 1) / *job.Spec.Parallelism
	if job.Spec.ActiveDeadlineSeconds == nil || time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second < 2*time.Duration(waves)*podDeadline {
		t.Errorf("job activeDeadlineSeconds %v: want room for %d waves of pods and one retry each", job.Spec.ActiveDeadlineSeconds, waves)
	}
	// Requests sized from the measured peak RSS (about 15 MB, docs/scale-out.md).
	req, lim := c.Resources.Requests[corev1.ResourceMemory], c.Resources.Limits[corev1.ResourceMemory]
	if req.Cmp(resource.MustParse("32Mi")) < 0 || lim.Cmp(req) < 0 {
		t.Errorf("memory request %s limit %s: want at least twice the measured 15 MB, limit above", req.String(), lim.String())
	}
}

// TestJobPodFailurePolicy: what Kubernetes does with each exit code of
// rubichan's contract (DESIGN.md's table, run/exit), as the issue asks:
// provider failures and SIGTERM retried, a runtime failure retried once per
// index, usage, policy, limit, verify and schema failures never.
func TestJobPodFailurePolicy(t *testing.T) {
	job := readJob(t)
	sigterm := 128 + int(syscall.SIGTERM)
	const count = "Count (backoffLimitPerIndex)"
	want := map[int]string{
		exit.OK:         "success",
		exit.Failure:    count,
		exit.Usage:      string(batchv1.PodFailurePolicyActionFailIndex),
		exit.Policy:     string(batchv1.PodFailurePolicyActionFailIndex),
		exit.Limit:      string(batchv1.PodFailurePolicyActionFailIndex),
		exit.Provider:   string(batchv1.PodFailurePolicyActionIgnore),
		exit.Verify:     string(batchv1.PodFailurePolicyActionFailIndex),
		exit.Schema:     string(batchv1.PodFailurePolicyActionFailIndex),
		130:             count, // SIGINT: nobody sends it to a pod
		sigterm:         string(batchv1.PodFailurePolicyActionIgnore),
		exit.BrokenPipe: count,
	}
	// Every code the contract names is decided here.
	for code := 0; code < 256; code++ {
		if _, ok := want[code]; !ok && exit.Meaning(code) != "unknown" {
			t.Errorf("exit code %d (%s) has no expected action in this test", code, exit.Meaning(code))
		}
	}
	p := job.Spec.PodFailurePolicy
	if p == nil {
		t.Fatal("no podFailurePolicy")
	}
	if job.Spec.BackoffLimitPerIndex == nil || *job.Spec.BackoffLimitPerIndex != 1 {
		t.Errorf("backoffLimitPerIndex %v: a runtime failure is retried at most once per index", job.Spec.BackoffLimitPerIndex)
	}
	for code, action := range want {
		if got := actionFor(p, "rubichan", code); got != action {
			t.Errorf("exit %d (%s): %s, want %s", code, exit.Meaning(code), got, action)
		}
	}
	var disruption bool
	for _, r := range p.Rules {
		for _, c := range r.OnPodConditions {
			disruption = disruption || c.Type == corev1.DisruptionTarget && r.Action == batchv1.PodFailurePolicyActionIgnore
		}
	}
	if !disruption {
		t.Error("an evicted pod (DisruptionTarget) is not retried")
	}
}

// actionFor is what the Job controller does with a pod whose container
// name exited with code: the first rule that matches, as Kubernetes
// evaluates them; without one, the failure counts against the backoff.
func actionFor(p *batchv1.PodFailurePolicy, name string, code int) string {
	if code == 0 {
		return "success"
	}
	for _, r := range p.Rules {
		e := r.OnExitCodes
		if e == nil || e.ContainerName != nil && *e.ContainerName != name {
			continue
		}
		in := slices.Contains(e.Values, int32(code))
		if e.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && in || e.Operator == batchv1.PodFailurePolicyOnExitCodesOpNotIn && !in {
			return string(r.Action)
		}
	}
	return "Count (backoffLimitPerIndex)"
}

func container(t *testing.T, pod corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range pod.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %q", name)
	return corev1.Container{}
}

func mounted(c corev1.Container, path string) bool {
	return slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == path })
}

func atoi(t *testing.T, s string) int64 {
	var n int64
	for _, r := range s {
		n = n*10 + int64(r-'0')
	}
	return n
}
