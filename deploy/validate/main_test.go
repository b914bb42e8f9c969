package main

import (
	"bufio"
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// repo is the repository root, from deploy/validate.
var repo = filepath.Join("..", "..")

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// goodDeployment is a Deployment that passes every rule; cases break one.
const goodDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shipgate
spec:
  selector:
    matchLabels: {app: shipgate}
  template:
    metadata:
      labels: {app: shipgate}
    spec:
      automountServiceAccountToken: false
      terminationGracePeriodSeconds: 30
      securityContext:
        runAsNonRoot: true
        seccompProfile: {type: RuntimeDefault}
      containers:
        - name: shipgate
          image: ghcr.io/shipgate-app/shipgate:0.1.0
          env:
            - {name: SHIPGATE_APP_ID, value: "1"}
            - {name: SHIPGATE_PRIVATE_KEY_FILE, value: /etc/shipgate/credentials/private-key.pem}
            - {name: SHIPGATE_WEBHOOK_SECRET_FILE, value: /etc/shipgate/credentials/webhook-secret}
            - {name: SHIPGATE_OPS_LISTEN, value: ":9090"}
            - {name: SHIPGATE_QUEUE_DIR, value: /var/lib/shipgate/queue}
          ports:
            - {name: http, containerPort: 8080}
            - {name: ops, containerPort: 9090}
          volumeMounts:
            - {name: credentials, mountPath: /etc/shipgate/credentials, readOnly: true}
            - {name: queue, mountPath: /var/lib/shipgate}
          livenessProbe: {httpGet: {path: /healthz, port: ops}}
          readinessProbe: {httpGet: {path: /readyz, port: 9090}}
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {memory: 512Mi}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: {drop: [ALL]}
      volumes:
        - name: credentials
          secret: {secretName: shipgate}
        - name: queue
          emptyDir: {}
`

func TestValidatorCatchesMistakes(t *testing.T) {
	if _, errs := Validate([]byte(goodDeployment)); len(errs) > 0 {
		t.Fatalf("the good Deployment fails: %v", errs)
	}
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown field", "automountServiceAccountToken: false", "automountServiceAccountToken: false\n      hostNetwrk: true", "unknown field"},
		{"misplaced field", "          image:", "          replicas: 2\n          image:", "unknown field"},
		{"wrong type", "terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: thirty", "cannot unmarshal"},
		{"duplicate key", "  name: shipgate\nspec:", "  name: shipgate\n  name: other\nspec:", "already set"},
		{"unknown kind", "kind: Deployment", "kind: Deploymnt", "unknown apiVersion/kind"},
		{"no readiness probe", "          readinessProbe: {httpGet: {path: /readyz, port: 9090}}\n", "", "readiness probe missing"},
		{"probe on the webhook port", "path: /healthz, port: ops", "path: /healthz, port: http", "want the health listener's 9090"},
		{"probe by number on the webhook port", "path: /readyz, port: 9090", "path: /readyz, port: 8080", "readiness probe on port 8080"},
		{"health on the webhook listener", `value: ":9090"`, `value: same`, "not a port of its own"},
		{"wrong liveness path", "path: /healthz", "path: /", "liveness probe path"},
		{"root", "runAsNonRoot: true", "runAsNonRoot: false", "runAsNonRoot"},
		{"writable root", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", "readOnlyRootFilesystem"},
		{"capabilities kept", "drop: [ALL]", "drop: [NET_RAW]", "drop ALL"},
		{"no seccomp", "        seccompProfile: {type: RuntimeDefault}\n", "", "seccompProfile"},
		{"no requests", "requests: {cpu: 100m, memory: 128Mi}", "requests: {memory: 128Mi}", "no cpu request"},
		{"latest image", "shipgate:0.1.0", "shipgate:latest", "not pinned"},
		{"secret in env", "- {name: SHIPGATE_APP_ID, value: \"1\"}", "- {name: SHIPGATE_APP_ID, value: \"1\"}\n            - {name: SHIPGATE_WEBHOOK_SECRET, value: hunter2}", "written in the manifest"},
		{"key outside the secret mount", "value: /etc/shipgate/credentials/private-key.pem", "value: /tmp/private-key.pem", "not in a read-only mount"},
		{"token mounted", "automountServiceAccountToken: false", "automountServiceAccountToken: true", "automountServiceAccountToken"},
		// The job queue (issue 20): the root file system is read-only.
		{"queue directory unset", "            - {name: SHIPGATE_QUEUE_DIR, value: /var/lib/shipgate/queue}\n", "", "SHIPGATE_QUEUE_DIR is not set and there is no Redis"},
		{"queue in memory", "value: /var/lib/shipgate/queue}", "value: memory}", "SHIPGATE_QUEUE_DIR=memory"},
		{"queue on the root file system", "value: /var/lib/shipgate/queue}", "value: /home/nonroot/queue}", "is on no volume"},
		{"queue on a read-only mount", "{name: queue, mountPath: /var/lib/shipgate}", "{name: queue, mountPath: /var/lib/shipgate, readOnly: true}", "read-only mount"},
		{"queue on a ConfigMap", "          emptyDir: {}", "          configMap: {name: x}", "neither an emptyDir nor a persistentVolumeClaim"},
		{"queue on a claim, rolling", "          emptyDir: {}", "          persistentVolumeClaim: {claimName: q}", "use Recreate"},
		{"queue directory beside Redis", "            - {name: SHIPGATE_QUEUE_DIR,", "            - {name: SHIPGATE_REDIS_URL, valueFrom: {secretKeyRef: {name: r, key: u}}}\n            - {name: SHIPGATE_QUEUE_DIR,", "the directory would be unused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.Replace(goodDeployment, c.from, c.to, 1)
			if doc == goodDeployment {
				t.Fatalf("case does not change the document (%q not found)", c.from)
			}
			_, errs := Validate([]byte(doc))
			for _, e := range errs {
				if strings.Contains(e.Error(), c.want) {
					return
				}
			}
			t.Errorf("errors %v, want one containing %q", errs, c.want)
		})
	}
	if _, errs := Validate([]byte("# nothing\n")); len(errs) == 0 {
		t.Error("an empty stream passed")
	}
	ing := "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: x}\nspec:\n  rules:\n    - host: h\n      http:\n        paths:\n          - path: /\n            pathType: Prefix\n            backend: {service: {name: x, port: {name: http}}}\n"
	if _, errs := Validate([]byte(ing)); len(errs) == 0 {
		t.Error("an Ingress exposing / (metrics included) passed")
	}
}

// TestQueueOnAClaim: a queue on a claim passes with the Recreate strategy
// and a claim the stream holds is checked too.
func TestQueueOnAClaim(t *testing.T) {
	onClaim := strings.Replace(strings.Replace(goodDeployment, "          emptyDir: {}", "          persistentVolumeClaim: {claimName: q}", 1),
		"spec:\n  selector:", "spec:\n  strategy: {type: Recreate}\n  selector:", 1)
	claim := "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: q}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n"
	if _, errs := Validate([]byte(onClaim + "---\n" + claim)); len(errs) > 0 {
		t.Fatalf("a queue on a claim with Recreate fails: %v", errs)
	}
	for name, c := range map[string]struct{ from, to, want string }{
		"read-only claim":   {"accessModes: [ReadWriteOnce]", "accessModes: [ReadOnlyMany]", "ReadOnlyMany"},
		"no storage asked":  {"storage: 1Gi", "storage: 0", "requests no storage"},
		"claim mounted r/o": {"claimName: q}", "claimName: q, readOnly: true}", "mounted read-only"},
	} {
		doc := strings.Replace(onClaim+"---\n"+claim, c.from, c.to, 1)
		_, errs := Validate([]byte(doc))
		if !slices.ContainsFunc(errs, func(e error) bool { return strings.Contains(e.Error(), c.want) }) {
			t.Errorf("%s: errors %v, want one containing %q", name, errs, c.want)
		}
	}
}

// TestServiceMonitorSchema: the ServiceMonitor is decoded into the
// Prometheus Operator's own API types, so a field the operator does not
// know, or a value of the wrong type, fails.
func TestServiceMonitorSchema(t *testing.T) {
	const good = `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: shipgate}
spec:
  selector: {matchLabels: {app.kubernetes.io/name: shipgate}}
  endpoints:
    - port: ops
      path: /metrics
      interval: 30s
      scrapeTimeout: 10s
`
	if _, errs := Validate([]byte(good)); len(errs) > 0 {
		t.Fatalf("the good ServiceMonitor fails: %v", errs)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"unknown field", "interval: 30s", "intervall: 30s", "unknown field"},
		{"wrong type", "interval: 30s", "interval: [30s]", "cannot unmarshal"},
		{"scrapes something else", "path: /metrics", "path: /", "must scrape /metrics"},
	} {
		doc := strings.Replace(good, c.from, c.to, 1)
		_, errs := Validate([]byte(doc))
		found := false
		for _, e := range errs {
			found = found || strings.Contains(e.Error(), c.want)
		}
		if !found {
			t.Errorf("%s: errors %v, want one containing %q", c.name, errs, c.want)
		}
	}
}

// TestPlainManifests validates deploy/kubernetes: every file decodes
// strictly and follows the rules.
func TestPlainManifests(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repo, "deploy", "kubernetes", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no manifests in deploy/kubernetes")
	}
	kinds := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(filepath.Base(f), "values") {
			continue
		}
		docs, errs := Validate(b)
		for _, e := range errs {
			t.Errorf("%s: %v", filepath.Base(f), e)
		}
		for _, d := range docs {
			kinds[strings.Split(d, "/")[0]] = true
		}
	}
	for _, k := range []string{"Deployment", "Service", "ServiceAccount", "PodDisruptionBudget"} {
		if !kinds[k] {
			t.Errorf("the plain manifests have no %s", k)
		}
	}
}

// dockerfile is the parsed instruction list of deploy/Dockerfile.
type instruction struct {
	cmd, args string
	line      int
}

func parseDockerfile(t *testing.T, text string) []instruction {
	t.Helper()
	var out []instruction
	sc := bufio.NewScanner(strings.NewReader(text))
	var cur strings.Builder
	start, n := 0, 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = n
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		fields := strings.SplitN(cur.String(), " ", 2)
		ins := instruction{cmd: strings.ToUpper(fields[0]), line: start}
		if len(fields) == 2 {
			ins.args = strings.TrimSpace(fields[1])
		}
		out = append(out, ins)
		cur.Reset()
	}
	return out
}

// TestDockerfileRules lints deploy/Dockerfile for what the project cares
// about (hadolint is not installable here).
func TestDockerfileRules(t *testing.T) {
	text := read(t, "deploy/Dockerfile")
	ins := parseDockerfile(t, text)
	args := map[string]string{}
	var froms []instruction
	var final []instruction // instructions of the last stage
	for _, in := range ins {
		switch in.cmd {
		case "ARG":
			if k, v, ok := strings.Cut(in.args, "="); ok {
				args[k] = v
			}
		case "FROM":
			froms = append(froms, in)
			final = nil
		}
		final = append(final, in)
		switch in.cmd {
		case "ADD":
			t.Errorf("line %d: ADD (use COPY; never fetch URLs or unpack archives implicitly)", in.line)
		case "HEALTHCHECK":
			t.Errorf("line %d: HEALTHCHECK (Kubernetes probes /healthz and /readyz instead)", in.line)
		case "MAINTAINER":
			t.Errorf("line %d: MAINTAINER is deprecated (use a LABEL)", in.line)
		case "RUN":
			for _, bad := range []string{"curl ", "wget ", "apt-get upgrade", "sudo "} {
				if strings.Contains(in.args, bad) {
					t.Errorf("line %d: RUN uses %q", in.line, strings.TrimSpace(bad))
				}
			}
		}
	}
	if len(froms) < 2 {
		t.Fatalf("want a multi-stage build, got %d FROM", len(froms))
	}
	expand := regexp.MustCompile(`\$\{(\w+)\}`)
	for _, f := range froms {
		image := strings.Fields(f.args)[0]
		image = expand.ReplaceAllStringFunc(image, func(m string) string { return args[expand.FindStringSubmatch(m)[1]] })
		name, tag, hasTag := strings.Cut(image, ":")
		switch {
		case strings.Contains(image, "@sha256:"):
		case !hasTag || tag == "" || tag == "latest":
			t.Errorf("line %d: base image %s is not pinned (give a version tag or a digest)", f.line, image)
		case strings.HasPrefix(name, "golang") && !regexp.MustCompile(`^\d+\.\d+\.\d+`).MatchString(tag):
			t.Errorf("line %d: Go image tag %q: pin the patch version", f.line, tag)
		}
	}
	last := strings.Fields(froms[len(froms)-1].args)[0]
	if !strings.HasPrefix(last, "gcr.io/distroless/static") && last != "scratch" {
		t.Errorf("final stage %s: use distroless/static or scratch (static binary, CA certificates)", last)
	}
	var user, entry string
	copies := 0
	for _, in := range final {
		switch in.cmd {
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			entry = in.args
		case "COPY":
			copies++
			if !strings.Contains(in.args, "--from=") {
				t.Errorf("line %d: the final stage copies from the build context; copy only the built binary", in.line)
			}
		}
	}
	uid, _, _ := strings.Cut(user, ":")
	if uid == "" || uid == "0" || uid == "root" || !regexp.MustCompile(`^\d+$`).MatchString(uid) {
		t.Errorf("final stage USER %q: use a numeric non-root UID (Kubernetes runAsNonRoot checks numbers)", user)
	}
	if !strings.HasPrefix(entry, "[") {
		t.Errorf("ENTRYPOINT %q: use the exec form", entry)
	}
	if copies != 1 {
		t.Errorf("final stage has %d COPY instructions, want 1 (the binary)", copies)
	}
	if !strings.Contains(text, "./deploy/build.sh") {
		t.Error("the image must build the binary with deploy/build.sh, the script CI runs")
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-X main.version="} {
		if !strings.Contains(read(t, "deploy/build.sh"), want) {
			t.Errorf("deploy/build.sh lacks %s", want)
		}
	}
	ignore := read(t, ".dockerignore")
	for _, want := range []string{".git", "bin", "*.pem"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + `$`).MatchString(ignore) {
			t.Errorf(".dockerignore lacks %s", want)
		}
	}
}

// TestBuiltBinaryIsStatic checks the binary deploy/build.sh produced (path
// in SHIPGATE_BINARY; deploy/ci.sh sets it): no ELF interpreter, no shared
// libraries, built with -trimpath, CGO off and a version stamped in.
func TestBuiltBinaryIsStatic(t *testing.T) {
	path := os.Getenv("SHIPGATE_BINARY")
	if path == "" {
		t.Skip("SHIPGATE_BINARY is not set (deploy/ci.sh builds it with deploy/build.sh and sets it)")
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary has an ELF interpreter: it is dynamically linked")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v", libs)
	}
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	// -ldflags is not recorded with -trimpath (it may hold paths): the
	// version the binary prints proves the -X flag instead.
	if settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" {
		t.Errorf("build settings %v: want CGO_ENABLED=0 and -trimpath", settings)
	}
	if _, ok := settings["vcs.revision"]; ok {
		t.Error("VCS stamping on: the image (no .git in its context) would differ")
	}
	out, err := exec.Command(path, "version").CombinedOutput()
	want := regexp.MustCompile(`^shipgate ` + regexp.QuoteMeta(os.Getenv("SHIPGATE_VERSION")) + ` \(commit ([0-9a-f]{40}|unknown), go1\.[0-9.]+ linux/[a-z0-9]+\)$`)
	if err != nil || os.Getenv("SHIPGATE_VERSION") == "" || !want.MatchString(strings.TrimSpace(string(out))) {
		t.Errorf("shipgate version: %q (%v), want %s (SHIPGATE_VERSION, set with -X main.version; the commit with -X main.commit)", out, err, want)
	}
}

// TestChartValuesDocumented holds deploy/helm/shipgate/README.md's table to
// values.yaml: every value is documented, and every documented value exists.
func TestChartValuesDocumented(t *testing.T) {
	var values map[string]any
	if err := yaml.Unmarshal([]byte(read(t, "deploy/helm/shipgate/values.yaml")), &values); err != nil {
		t.Fatal(err)
	}
	readme := read(t, "deploy/helm/shipgate/README.md")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(readme, -1) {
		documented[m[1]] = true
	}
	var leaves []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		m, ok := v.(map[string]any)
		if !ok || len(m) == 0 || documented[prefix] {
			leaves = append(leaves, prefix)
			return
		}
		for k, sub := range m {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			walk(p, sub)
		}
	}
	walk("", values)
	sort.Strings(leaves)
	exists := map[string]bool{}
	for _, l := range leaves {
		exists[l] = true
		if !documented[l] {
			t.Errorf("values.yaml key %s is not in README.md's table", l)
		}
	}
	for d := range documented {
		if !exists[d] {
			t.Errorf("README.md documents %s, which values.yaml does not have", d)
		}
	}
}
