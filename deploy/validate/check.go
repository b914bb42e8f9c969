package main

import (
	"fmt"
	"path"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// secretEnv are Shipgate's environment variables that hold secrets: they
// must come from a Secret (valueFrom), never be written in a manifest.
var secretEnv = map[string]bool{"SHIPGATE_PRIVATE_KEY": true, "SHIPGATE_WEBHOOK_SECRET": true, "SHIPGATE_REDIS_URL": true}

// check applies the project's operational rules to a decoded object.
func check(obj any) []error {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return checkDeployment(o)
	case *networkingv1.Ingress:
		return checkIngress(o)
	case *corev1.Pod:
		return checkTestPod(o)
	case *policyv1.PodDisruptionBudget:
		if o.Spec.Selector == nil || len(o.Spec.Selector.MatchLabels) == 0 {
			return []error{fmt.Errorf("PodDisruptionBudget without a selector")}
		}
		if o.Spec.MinAvailable == nil && o.Spec.MaxUnavailable == nil {
			return []error{fmt.Errorf("PodDisruptionBudget sets neither minAvailable nor maxUnavailable")}
		}
	case *monitoringv1.ServiceMonitor:
		if len(o.Spec.Endpoints) == 0 || o.Spec.Endpoints[0].Path != "/metrics" {
			return []error{fmt.Errorf("ServiceMonitor must scrape /metrics")}
		}
		if o.Spec.Endpoints[0].Port != "ops" {
			return []error{fmt.Errorf("ServiceMonitor scrapes port %q; want \"ops\", the health and metrics listener (the webhook's serves /webhook only)", o.Spec.Endpoints[0].Port)}
		}
	}
	return nil
}

func checkDeployment(d *appsv1.Deployment) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	pod := d.Spec.Template.Spec
	if sel := d.Spec.Selector; sel == nil || len(sel.MatchLabels) == 0 {
		bad("Deployment without a selector")
	} else {
		for k, v := range sel.MatchLabels {
			if d.Spec.Template.Labels[k] != v {
				bad("the pod template lacks the selector label %s=%s", k, v)
			}
		}
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		bad("automountServiceAccountToken must be false: Shipgate does not use the Kubernetes API")
	}
	psc := pod.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	if len(pod.Containers) != 1 {
		bad("want exactly one container, got %d", len(pod.Containers))
		return errs
	}
	c := pod.Containers[0]
	if strings.HasSuffix(c.Image, ":latest") || !strings.ContainsAny(c.Image, ":@") {
		bad("image %q is not pinned to a tag or digest", c.Image)
	}
	opsPort := listenPort(envValue(c, "SHIPGATE_OPS_LISTEN"))
	if opsPort == 0 {
		bad("SHIPGATE_OPS_LISTEN is not a port of its own (%q): health and metrics must not share the webhook's listener, where a slowloris at its connection cap fails the probes",
			envValue(c, "SHIPGATE_OPS_LISTEN"))
	}
	probe := func(name string, p *corev1.Probe, want string) {
		if p == nil || p.HTTPGet == nil {
			bad("%s probe missing (want GET %s)", name, want)
			return
		}
		if p.HTTPGet.Path != want {
			bad("%s probe path %q, want %s", name, p.HTTPGet.Path, want)
		}
		port := p.HTTPGet.Port.IntValue()
		if p.HTTPGet.Port.StrVal != "" {
			port = 0
			for _, cp := range c.Ports {
				if cp.Name == p.HTTPGet.Port.StrVal {
					port = int(cp.ContainerPort)
				}
			}
		}
		if opsPort != 0 && port != opsPort {
			bad("%s probe on port %s, want the health listener's %d (SHIPGATE_OPS_LISTEN)", name, p.HTTPGet.Port.String(), opsPort)
		}
	}
	probe("liveness", c.LivenessProbe, "/healthz")
	probe("readiness", c.ReadinessProbe, "/readyz")
	if c.StartupProbe != nil {
		probe("startup", c.StartupProbe, "/healthz")
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := c.Resources.Requests[r]; !ok || q.IsZero() {
			bad("no %s request", r)
		}
	}
	if q, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok || q.IsZero() {
		bad("no memory limit")
	}
	sc := c.SecurityContext
	if sc == nil {
		sc = &corev1.SecurityContext{}
	}
	nonRoot := (sc.RunAsNonRoot != nil && *sc.RunAsNonRoot) || (sc.RunAsNonRoot == nil && psc.RunAsNonRoot != nil && *psc.RunAsNonRoot)
	if !nonRoot {
		bad("runAsNonRoot must be true")
	}
	if uid := sc.RunAsUser; uid != nil && *uid == 0 {
		bad("runAsUser 0")
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		bad("readOnlyRootFilesystem must be true")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		bad("allowPrivilegeEscalation must be false")
	}
	if sc.Privileged != nil && *sc.Privileged {
		bad("privileged container")
	}
	dropAll := false
	if sc.Capabilities != nil {
		for _, cp := range sc.Capabilities.Drop {
			dropAll = dropAll || cp == "ALL"
		}
		if len(sc.Capabilities.Add) > 0 {
			bad("capabilities added: %v", sc.Capabilities.Add)
		}
	}
	if !dropAll {
		bad("capabilities must drop ALL")
	}
	seccomp := sc.SeccompProfile
	if seccomp == nil {
		seccomp = psc.SeccompProfile
	}
	if seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault {
		bad("seccompProfile must be RuntimeDefault")
	}

	// Credentials: files from a Secret, mounted read-only; no secret in env.
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
		if secretEnv[e.Name] && e.Value != "" {
			bad("%s is written in the manifest: take it from a Secret", e.Name)
		}
		if secretEnv[e.Name] && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef == nil {
			bad("%s must come from a Secret (secretKeyRef)", e.Name)
		}
	}
	if env["SHIPGATE_APP_ID"].Value == "" {
		bad("SHIPGATE_APP_ID is not set")
	}
	secretMounts := map[string]bool{}
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			secretMounts[v.Name] = true
		}
	}
	for _, name := range []string{"SHIPGATE_PRIVATE_KEY_FILE", "SHIPGATE_WEBHOOK_SECRET_FILE"} {
		file := env[name].Value
		if file == "" {
			bad("%s is not set: mount the credentials as files", name)
			continue
		}
		ok := false
		for _, m := range c.VolumeMounts {
			if secretMounts[m.Name] && m.ReadOnly && strings.HasPrefix(file, path.Clean(m.MountPath)+"/") {
				ok = true
			}
		}
		if !ok {
			bad("%s (%s) is not in a read-only mount of a Secret volume", name, file)
		}
	}
	if g := pod.TerminationGracePeriodSeconds; g == nil || *g < 10 {
		bad("terminationGracePeriodSeconds must leave time to drain (>= 10)")
	}
	return errs
}

func checkIngress(in *networkingv1.Ingress) []error {
	var errs []error
	for _, r := range in.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if p.Path != "/webhook" {
				errs = append(errs, fmt.Errorf("ingress path %q: expose only /webhook (metrics and probes stay inside the cluster)", p.Path))
			}
		}
	}
	return errs
}

// checkTestPod holds the chart's only bare Pod, the `helm test` hook, to
// what it is for: a hook that runs once, as locked down as the App, asking
// the Service for /readyz with the image's own `shipgate probe`.
func checkTestPod(p *corev1.Pod) []error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("Pod %s: "+format, append([]any{p.Name}, a...)...))
	}
	if p.Annotations["helm.sh/hook"] != "test" {
		bad("a bare Pod must be the helm test hook (annotation helm.sh/hook: test)")
	}
	if p.Spec.RestartPolicy != corev1.RestartPolicyNever {
		bad("restartPolicy %q: a test runs once (Never)", p.Spec.RestartPolicy)
	}
	if sc := p.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		bad("runAsNonRoot is not set")
	}
	if len(p.Spec.Containers) != 1 {
		bad("want one container, got %d", len(p.Spec.Containers))
		return errs
	}
	c := p.Spec.Containers[0]
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		bad("container %s: want readOnlyRootFilesystem and no privilege escalation", c.Name)
	}
	if len(c.Args) == 0 || c.Args[0] != "probe" || !strings.HasSuffix(c.Args[len(c.Args)-1], "/readyz") {
		bad("container %s: want args [probe ... URL/readyz], got %v", c.Name, c.Args)
	}
	if c.Resources.Limits.Memory().IsZero() {
		bad("container %s: no memory limit", c.Name)
	}
	return errs
}

// envValue is the value of the container's environment variable k ("" if
// unset or from a reference).
func envValue(c corev1.Container, k string) string {
	for _, e := range c.Env {
		if e.Name == k {
			return e.Value
		}
	}
	return ""
}

// listenPort is the port of a listen address such as ":9090" (0 if none).
func listenPort(addr string) int {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return 0
	}
	n := 0
	for _, r := range addr[i+1:] {
		if r < '0' || r > '9' {
			return 0
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// checkQueue holds the Deployment's job queue to what it must survive. With
// a read-only root file system, serve's default queue directory (under the
// image's home) cannot be written: without Redis the queue must be named
// (SHIPGATE_QUEUE_DIR) on a writable mount of an emptyDir or a claim, never
// in memory, and a claim (one writer at a time: the queue's database is
// locked by the process that has it open) needs the Recreate strategy, or a
// rolling update's new pod waits for the old one's lock while the old one
// waits for the new one to be ready. A claim the stream holds must be
// single-node (ReadWriteOnce or ReadWriteOncePod) or the strategy alone
// keeps two writers apart. With Redis the queue is in Redis: no directory.
func checkQueue(d *appsv1.Deployment, claims map[string]*corev1.PersistentVolumeClaim) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		return nil // checkDeployment said so
	}
	c := pod.Containers[0]
	redis, dir := false, ""
	for _, e := range c.Env {
		switch e.Name {
		case "SHIPGATE_REDIS_URL":
			redis = true
		case "SHIPGATE_QUEUE_DIR":
			dir = e.Value
		}
	}
	if redis {
		if dir != "" {
			bad("SHIPGATE_QUEUE_DIR is set beside SHIPGATE_REDIS_URL: the queue is in Redis, the directory would be unused")
		}
		return errs
	}
	switch {
	case dir == "":
		bad("SHIPGATE_QUEUE_DIR is not set and there is no Redis: serve's default directory is on the read-only root file system, so the queue cannot be kept (mount a volume and name a directory on it)")
		return errs
	case dir == "memory":
		bad("SHIPGATE_QUEUE_DIR=memory: every accepted delivery not yet run is lost when the pod restarts (give the queue a volume)")
		return errs
	case !path.IsAbs(dir):
		bad("SHIPGATE_QUEUE_DIR %q is not an absolute path", dir)
		return errs
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	var mount *corev1.VolumeMount
	for i, m := range c.VolumeMounts {
		mp := path.Clean(m.MountPath)
		if (dir == mp || strings.HasPrefix(dir, mp+"/")) && (mount == nil || len(mp) > len(path.Clean(mount.MountPath))) {
			mount = &c.VolumeMounts[i]
		}
	}
	if mount == nil {
		bad("SHIPGATE_QUEUE_DIR %s is on no volume: the root file system is read-only, serve cannot keep its queue there", dir)
		return errs
	}
	if mount.ReadOnly {
		bad("SHIPGATE_QUEUE_DIR %s is on the read-only mount %s", dir, mount.Name)
	}
	v, ok := volumes[mount.Name]
	switch {
	case !ok:
		bad("the queue's mount %s names no volume of the pod", mount.Name)
	case v.EmptyDir != nil:
		// Survives container restarts; each pod has its own: rolling updates are fine.
	case v.PersistentVolumeClaim != nil:
		if v.PersistentVolumeClaim.ReadOnly {
			bad("the queue's claim %s is mounted read-only", v.PersistentVolumeClaim.ClaimName)
		}
		if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
			bad("the queue is on the claim %s but the strategy is %q: the queue has one writer at a time, so a rolling update's new pod cannot open it while the old one runs (use Recreate)",
				v.PersistentVolumeClaim.ClaimName, d.Spec.Strategy.Type)
		}
		if r := d.Spec.Replicas; r != nil && *r > 1 {
			bad("%d replicas share the queue's claim %s: one process per queue directory (more replicas need Redis)", *r, v.PersistentVolumeClaim.ClaimName)
		}
		if pvc, ok := claims[v.PersistentVolumeClaim.ClaimName]; ok {
			for _, m := range pvc.Spec.AccessModes {
				if m == corev1.ReadOnlyMany {
					bad("the queue's claim %s is ReadOnlyMany", pvc.Name)
				}
			}
			if q, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; !ok || q.IsZero() {
				bad("the queue's claim %s requests no storage", pvc.Name)
			}
		}
	default:
		bad("the queue's volume %s is neither an emptyDir nor a persistentVolumeClaim: the queue needs a writable volume of its own", mount.Name)
	}
	return errs
}
