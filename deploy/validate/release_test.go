package main

import (
	"bufio"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// releaseConfig is the part of .goreleaser.yaml the checks read.
type releaseConfig struct {
	Builds []struct {
		ID      string   `json:"id"`
		Main    string   `json:"main"`
		Binary  string   `json:"binary"`
		Env     []string `json:"env"`
		Flags   []string `json:"flags"`
		Ldflags []string `json:"ldflags"`
		Goos    []string `json:"goos"`
		Goarch  []string `json:"goarch"`
	} `json:"builds"`
	Checksum struct {
		NameTemplate string `json:"name_template"`
	} `json:"checksum"`
	Sboms []struct {
		Artifacts string `json:"artifacts"`
	} `json:"sboms"`
	Signs []struct {
		Cmd       string `json:"cmd"`
		Artifacts string `json:"artifacts"`
	} `json:"signs"`
	DockersV2 []struct {
		IDs        []string `json:"ids"`
		Dockerfile string   `json:"dockerfile"`
		Images     []string `json:"images"`
		Tags       []string `json:"tags"`
		Platforms  []string `json:"platforms"`
		SBOM       any      `json:"sbom"`
	} `json:"dockers_v2"`
	DockerSigns []struct {
		Cmd       string `json:"cmd"`
		Artifacts string `json:"artifacts"`
	} `json:"docker_signs"`
}

func readYAML(t *testing.T, rel string, v any) {
	t.Helper()
	if err := yaml.Unmarshal([]byte(read(t, rel)), v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

// TestReleaseConfig holds .goreleaser.yaml to what the project promises and
// to the Helm chart: the release publishes the image the chart installs
// (ghcr.io/shipgate-app/shipgate:<appVersion>), for the platforms the
// cluster nodes run, built from static binaries with the version stamped.
func TestReleaseConfig(t *testing.T) {
	var rc releaseConfig
	readYAML(t, ".goreleaser.yaml", &rc)
	var chart struct {
		Version    string `json:"version"`
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal([]byte(read(t, "deploy/helm/shipgate/Chart.yaml")), &chart); err != nil {
		t.Fatal(err)
	}
	var values struct {
		Image struct {
			Repository string `json:"repository"`
			Tag        string `json:"tag"`
		} `json:"image"`
	}
	if err := yaml.Unmarshal([]byte(read(t, "deploy/helm/shipgate/values.yaml")), &values); err != nil {
		t.Fatal(err)
	}

	if len(rc.Builds) != 1 {
		t.Fatalf("want one build, got %d", len(rc.Builds))
	}
	b := rc.Builds[0]
	if b.Main != "./cmd/shipgate" || b.Binary != "shipgate" {
		t.Errorf("build %s: main %q binary %q", b.ID, b.Main, b.Binary)
	}
	if !contains(b.Env, "CGO_ENABLED=0") || !contains(b.Flags, "-trimpath") {
		t.Errorf("build env %v flags %v: want CGO_ENABLED=0 and -trimpath (static, reproducible)", b.Env, b.Flags)
	}
	ld := strings.Join(b.Ldflags, " ")
	for _, want := range []string{"-X main.version={{ .Version }}", "-X main.commit={{ .FullCommit }}"} {
		if !strings.Contains(ld, want) {
			t.Errorf("ldflags %q lack %q (shipgate --version)", ld, want)
		}
	}
	if got := sorted(b.Goos); strings.Join(got, ",") != "darwin,linux,windows" {
		t.Errorf("goos %v, want linux, darwin, windows", got)
	}
	if got := sorted(b.Goarch); strings.Join(got, ",") != "amd64,arm64" {
		t.Errorf("goarch %v, want amd64, arm64", got)
	}
	if rc.Checksum.NameTemplate != "checksums.txt" {
		t.Errorf("checksum name %q (SECURITY.md names checksums.txt)", rc.Checksum.NameTemplate)
	}
	if len(rc.Sboms) == 0 || rc.Sboms[0].Artifacts != "archive" {
		t.Errorf("sboms %+v: want an SBOM per archive", rc.Sboms)
	}
	if len(rc.Signs) == 0 || rc.Signs[0].Cmd != "cosign" || rc.Signs[0].Artifacts != "checksum" {
		t.Errorf("signs %+v: want cosign over the checksums", rc.Signs)
	}
	if len(rc.DockerSigns) == 0 || rc.DockerSigns[0].Cmd != "cosign" || rc.DockerSigns[0].Artifacts != "manifests" {
		t.Errorf("docker_signs %+v: want cosign over the pushed manifests", rc.DockerSigns)
	}

	// The image: the chart's repository, tagged with the bare version.
	if len(rc.DockersV2) != 1 {
		t.Fatalf("want one dockers_v2 image, got %d", len(rc.DockersV2))
	}
	d := rc.DockersV2[0]
	if len(d.Images) != 1 || d.Images[0] != values.Image.Repository {
		t.Errorf("release images %v, chart image.repository %q: the chart would pull an image nobody publishes", d.Images, values.Image.Repository)
	}
	if values.Image.Repository != "ghcr.io/shipgate-app/shipgate" {
		t.Errorf("chart image.repository %q", values.Image.Repository)
	}
	if !contains(d.Tags, "{{ .Version }}") {
		t.Errorf("image tags %v lack {{ .Version }}, the tag the chart's appVersion names", d.Tags)
	}
	if values.Image.Tag != "" {
		t.Errorf("chart image.tag %q: leave it empty so the tag is the chart's appVersion", values.Image.Tag)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(chart.AppVersion) {
		t.Errorf("appVersion %q: want X.Y.Z, the release tag vX.Y.Z without its v ({{ .Version }})", chart.AppVersion)
	}
	if !contains(d.IDs, b.ID) {
		t.Errorf("image ids %v: not built from the release's binaries (build %s)", d.IDs, b.ID)
	}
	if got := sorted(d.Platforms); strings.Join(got, ",") != "linux/amd64,linux/arm64" {
		t.Errorf("image platforms %v", got)
	}
	for _, p := range d.Platforms {
		os, arch, _ := strings.Cut(p, "/")
		if !contains(b.Goos, os) || !contains(b.Goarch, arch) {
			t.Errorf("image platform %s has no binary in the build", p)
		}
	}
	if d.SBOM != true {
		t.Errorf("image sbom %v: want true", d.SBOM)
	}
	if d.Dockerfile != "deploy/Dockerfile.release" {
		t.Errorf("image dockerfile %q", d.Dockerfile)
	}

	// The plain manifests pin the same image.
	want := values.Image.Repository + ":" + chart.AppVersion
	for _, f := range []string{"deploy/kubernetes/shipgate.yaml", "deploy/kubernetes/shipgate-ha.yaml"} {
		for _, m := range regexp.MustCompile(`image: "?([^"\s]+)"?`).FindAllStringSubmatch(read(t, f), -1) {
			if m[1] != want {
				t.Errorf("%s runs image %s, the release publishes %s", f, m[1], want)
			}
		}
	}
	// The release workflow refuses a tag other than v<appVersion>.
	wf := read(t, ".github/workflows/release.yml")
	for _, w := range []string{"deploy/helm/shipgate/Chart.yaml", `"v$app_version"`, "id-token: write", "goreleaser/goreleaser-action", "version: v2.15.1"} {
		if !strings.Contains(wf, w) {
			t.Errorf("release.yml lacks %q", w)
		}
	}
}

// TestReleaseDockerfile: deploy/Dockerfile.release runs like deploy/Dockerfile
// (same base, user, entrypoint, command, port), copying the release's own
// binary from where GoReleaser's buildx context puts it.
func TestReleaseDockerfile(t *testing.T) {
	rel := parseDockerfile(t, read(t, "deploy/Dockerfile.release"))
	src := parseDockerfile(t, read(t, "deploy/Dockerfile"))
	final := func(ins []instruction) map[string][]string {
		m := map[string][]string{}
		for _, in := range ins {
			if in.cmd == "FROM" {
				m = map[string][]string{}
			}
			m[in.cmd] = append(m[in.cmd], in.args)
		}
		return m
	}
	r, s := final(rel), final(src)
	for _, k := range []string{"FROM", "USER", "ENTRYPOINT", "CMD", "EXPOSE", "ENV"} {
		if strings.Join(r[k], "|") != strings.Join(s[k], "|") {
			t.Errorf("%s: Dockerfile.release has %q, Dockerfile %q", k, r[k], s[k])
		}
	}
	froms := 0
	for _, in := range rel {
		switch in.cmd {
		case "FROM":
			froms++
		case "RUN", "ADD":
			t.Errorf("line %d: %s in the release image (it only copies the binary)", in.line, in.cmd)
		}
	}
	if froms != 1 {
		t.Errorf("Dockerfile.release has %d stages, want 1", froms)
	}
	if got := r["COPY"]; len(got) != 1 || got[0] != "${TARGETPLATFORM}/shipgate /usr/local/bin/shipgate" {
		t.Errorf("COPY %q: want the binary from ${TARGETPLATFORM}/shipgate", got)
	}
	if !contains(r["ARG"], "TARGETPLATFORM") {
		t.Error("ARG TARGETPLATFORM missing")
	}
}

// artifact is one entry of GoReleaser's dist/artifacts.json.
type artifact struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Goos   string `json:"goos"`
	Goarch string `json:"goarch"`
	Type   string `json:"type"`
}

// TestReleaseSnapshot checks what `goreleaser release --snapshot` built
// (SHIPGATE_DIST names its dist directory; .ci/run sets it): six static
// binaries of the right format and architecture, an archive each, checksums
// that match, and the linux/amd64 binary (the image's) stamped with the
// snapshot's version and commit. The images themselves need a Docker
// engine: the platforms they would copy are checked to have binaries.
func TestReleaseSnapshot(t *testing.T) {
	dist := os.Getenv("SHIPGATE_DIST")
	if dist == "" {
		t.Skip("SHIPGATE_DIST is not set (.ci/run runs the snapshot and sets it)")
	}
	var arts []artifact
	b, err := os.ReadFile(filepath.Join(dist, "artifacts.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &arts); err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Version string `json:"version"`
		Commit  string `json:"commit"`
	}
	if b, err := os.ReadFile(filepath.Join(dist, "metadata.json")); err != nil || json.Unmarshal(b, &meta) != nil {
		t.Fatalf("metadata.json: %v", err)
	}
	// Paths in artifacts.json are relative to where goreleaser ran: the
	// directory holding dist.
	distAbs, err := filepath.Abs(dist)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(distAbs)
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	binaries := map[string]string{}
	var archives []artifact
	var checksums string
	for _, a := range arts {
		switch a.Type {
		case "Binary":
			binaries[a.Goos+"/"+a.Goarch] = abs(a.Path)
		case "Archive":
			archives = append(archives, a)
		case "Checksum":
			checksums = abs(a.Path)
		}
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, arch := range []string{"amd64", "arm64"} {
			p, ok := binaries[goos+"/"+arch]
			if !ok {
				t.Errorf("no %s/%s binary", goos, arch)
				continue
			}
			checkFormat(t, p, goos, arch)
		}
	}
	if len(archives) != 6 {
		t.Errorf("%d archives, want 6", len(archives))
	}
	if checksums == "" {
		t.Fatal("no checksums file")
	}
	sums := map[string]string{}
	f, err := os.Open(checksums)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sum, name, ok := strings.Cut(sc.Text(), "  "); ok {
			sums[name] = sum
		}
	}
	for _, a := range archives {
		want, ok := sums[a.Name]
		if !ok {
			t.Errorf("checksums.txt lacks %s", a.Name)
			continue
		}
		if got := sha256File(t, abs(a.Path)); got != want {
			t.Errorf("%s: sha256 %s, checksums.txt says %s", a.Name, got, want)
		}
	}
	out, err := exec.Command(binaries["linux/amd64"], "version").CombinedOutput()
	wantPrefix := "shipgate " + meta.Version + " (commit " + meta.Commit
	if err != nil || !strings.HasPrefix(string(out), wantPrefix) {
		t.Errorf("linux/amd64 binary says %q (%v), want %q...", out, err, wantPrefix)
	}
}

// checkFormat opens a binary as the executable format of goos and checks
// its architecture, and that a linux binary is static.
func checkFormat(t *testing.T, p, goos, arch string) {
	t.Helper()
	switch goos {
	case "linux":
		f, err := elf.Open(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return
		}
		defer f.Close()
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
		if f.Machine != want {
			t.Errorf("%s: machine %v, want %v", p, f.Machine, want)
		}
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP {
				t.Errorf("%s is dynamically linked", p)
			}
		}
	case "darwin":
		f, err := macho.Open(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return
		}
		defer f.Close()
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[arch]
		if f.Cpu != want {
			t.Errorf("%s: cpu %v, want %v", p, f.Cpu, want)
		}
	case "windows":
		f, err := pe.Open(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return
		}
		defer f.Close()
		want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[arch]
		if f.Machine != want {
			t.Errorf("%s: machine %#x, want %#x", p, f.Machine, want)
		}
	}
}

func sha256File(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sorted(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

// TestValuesSchemaComplete: values.schema.json describes every key of
// values.yaml (the schema refuses unknown keys, so a key it lacked would make
// the chart's own defaults invalid) and nothing values.yaml lacks.
func TestValuesSchemaComplete(t *testing.T) {
	var values map[string]any
	if err := yaml.Unmarshal([]byte(read(t, "deploy/helm/shipgate/values.yaml")), &values); err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal([]byte(read(t, "deploy/helm/shipgate/values.schema.json")), &schema); err != nil {
		t.Fatal(err)
	}
	var walk func(prefix string, v map[string]any, s map[string]any)
	walk = func(prefix string, v map[string]any, s map[string]any) {
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			return // a free-form object (resources, affinity, ...)
		}
		if s["additionalProperties"] != false {
			t.Errorf("%s: the schema allows unknown keys", strings.TrimPrefix(prefix, "."))
		}
		for k, sub := range v {
			ps, ok := props[k].(map[string]any)
			if !ok {
				t.Errorf("values.yaml key %s%s is not in values.schema.json", prefix, k)
				continue
			}
			if m, ok := sub.(map[string]any); ok {
				walk(prefix+k+".", m, ps)
			}
		}
		for k := range props {
			if _, ok := v[k]; !ok {
				t.Errorf("values.schema.json has %s%s, which values.yaml does not", prefix, k)
			}
		}
	}
	walk("", values, schema)
}
