// Command validate checks Kubernetes manifests (rendered Helm output or plain
// files) against the Kubernetes API types, without a cluster and without
// downloading schemas: each YAML document is decoded strictly into the
// k8s.io/api Go type of its apiVersion and kind, so an unknown or misplaced
// field, a wrong type, a duplicate key or an unknown kind is an error. It
// then holds Shipgate's Deployment to the operational rules the project
// promises (probes on /healthz and /readyz, resources, a locked-down
// security context, credentials mounted read-only as files).
//
// It is its own Go module (deploy/validate) so that the Kubernetes
// libraries never enter the App's module.
//
//	go run . FILE...        (or - for standard input)
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: validate FILE... (- for standard input)")
		os.Exit(2)
	}
	failed := false
	for _, name := range os.Args[1:] {
		var data []byte
		var err error
		if name == "-" {
			data, err = io.ReadAll(os.Stdin)
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			failed = true
			continue
		}
		docs, errs := Validate(data)
		for _, e := range errs {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, e)
		}
		if len(errs) > 0 {
			failed = true
			continue
		}
		fmt.Printf("%s: %d documents valid (%s)\n", name, len(docs), strings.Join(docs, ", "))
	}
	if failed {
		os.Exit(1)
	}
}

// typeMeta is the part of every object that says what it is.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

// newObject returns an empty object of the Go type for apiVersion/kind.
func newObject(apiVersion, kind string) (any, bool) {
	switch apiVersion + "/" + kind {
	case "apps/v1/Deployment":
		return &appsv1.Deployment{}, true
	case "v1/Service":
		return &corev1.Service{}, true
	case "v1/Secret":
		return &corev1.Secret{}, true
	case "v1/ServiceAccount":
		return &corev1.ServiceAccount{}, true
	case "v1/Pod":
		return &corev1.Pod{}, true
	case "v1/ConfigMap":
		return &corev1.ConfigMap{}, true
	case "v1/PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}, true
	case "networking.k8s.io/v1/Ingress":
		return &networkingv1.Ingress{}, true
	case "policy/v1/PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}, true
	case "monitoring.coreos.com/v1/ServiceMonitor":
		// The Prometheus Operator's own API types: a field the chart
		// renders that the operator does not know fails validation.
		return &monitoringv1.ServiceMonitor{}, true
	}
	return nil, false
}

// Validate checks every document of a multi-document YAML stream and
// returns "Kind/name" of each valid one, and the errors.
func Validate(data []byte) (docs []string, errs []error) {
	var deployments []*appsv1.Deployment
	claims := map[string]*corev1.PersistentVolumeClaim{}
	for i, doc := range splitDocuments(data) {
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		where := fmt.Sprintf("document %d", i+1)
		js, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		var tm typeMeta
		if err := json.Unmarshal(js, &tm); err != nil {
			errs = append(errs, fmt.Errorf("%s: not an object: %w", where, err))
			continue
		}
		where = fmt.Sprintf("%s (%s/%s)", where, tm.Kind, tm.Metadata.Name)
		if tm.Metadata.Name == "" {
			errs = append(errs, fmt.Errorf("%s: metadata.name is empty", where))
		}
		obj, ok := newObject(tm.APIVersion, tm.Kind)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: unknown apiVersion/kind %s %s", where, tm.APIVersion, tm.Kind))
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		if err := dec.Decode(obj); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		for _, e := range check(obj) {
			errs = append(errs, fmt.Errorf("%s: %w", where, e))
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			deployments = append(deployments, o)
		case *corev1.PersistentVolumeClaim:
			claims[o.Name] = o
		}
		docs = append(docs, tm.Kind+"/"+tm.Metadata.Name)
	}
	// The rules that need the stream's other objects (the claims the
	// Deployment mounts).
	for _, d := range deployments {
		for _, e := range checkQueue(d, claims) {
			errs = append(errs, fmt.Errorf("Deployment/%s: %w", d.Name, e))
		}
	}
	if len(docs) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no Kubernetes object found"))
	}
	return docs, errs
}

// splitDocuments splits a YAML stream on "---" lines.
func splitDocuments(data []byte) [][]byte {
	var out [][]byte
	var cur bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimRight(line, " \t") == "---" || strings.HasPrefix(line, "--- ") {
			out = append(out, append([]byte(nil), cur.Bytes()...))
			cur.Reset()
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	return append(out, cur.Bytes())
}

func stripComments(doc []byte) []byte {
	var out bytes.Buffer
	for _, line := range strings.Split(string(doc), "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
